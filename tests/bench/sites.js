// Course-site figures for npm run bench -- --browser (or node tests/bench/sites.js [--quick]): per fixture site of
// tests/sites/, the bytes transferred until all four elements are ready and the Run-tests-to-verdict times; then the
// sandbox frame inline (srcdoc) against the frame file, in interleaved page loads.
import { writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// A page of the plain site that opens the sandbox frame the way ?mode= says (the <meta> option) and times it.
const FRAME_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>frame bench</title><link rel="icon" href="data:,"></head><body>
<script type="module">
const mode = new URLSearchParams(location.search).get('mode');
const meta = Object.assign(document.createElement('meta'), { name: 'ffn-lab-sandbox', content: mode });
document.head.append(meta);
const base = '/node_modules/ffn-lab/web/';
const { ready } = await import(base + 'index.js');
const { warmSandbox } = await import(base + 'sandbox/run/frame-host.js');
const { gradeExercise, exercises } = await import(base + 'sandbox/index.js');
const sol = exercises.find((e) => e.id === 'gelu').solution;
await ready();
let t = performance.now();
await warmSandbox();
const open = performance.now() - t;
t = performance.now();
const first = await gradeExercise('gelu', sol);
const firstMs = performance.now() - t;
const next = [];
let passed = first.passed;
for (let i = 0; i < 10; i++) {
  t = performance.now();
  passed = (await gradeExercise('gelu', sol)).passed && passed;
  next.push(performance.now() - t);
}
next.sort((a, b) => a - b);
window.__result = { open, first: firstMs, again: (next[4] + next[5]) / 2, passed };
</script></body></html>`;

const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pad = (v, n) => String(v).padStart(n);

/** Print the sites section through log (run.js's, which saves it); `quick` runs fewer verdicts and frame loads. */
export async function runSitesBench({ quick = false, log = console.log } = {}) {
  const { startSites, driveSite } = await import(pathToFileURL(join(root, 'tests/helpers/sites.js')).href);
  const { launchBrowser } = await import(pathToFileURL(join(root, 'tests/helpers/browser.js')).href);
  const { exercises } = await import(pathToFileURL(join(root, 'web/sandbox/index.js')).href);
  const { variantSources } = await import(pathToFileURL(join(root, 'tests/helpers/sandbox-variants.js')).href);
  const solution = exercises.find((e) => e.id === 'gelu').solution;
  const runs = quick ? 3 : 7;
  const loads = quick ? 4 : 10;
  const { sites, dirs, close } = await startSites();
  const b = await launchBrowser();
  try {
    const version = `Chrome/${await b.version()}`;
    const when = `${new Date().toISOString().slice(0, 16)}Z${quick ? ' (--quick)' : ''}`;
    log(`\n# ffn-lab course sites, headless ${version}, ${when}`);
    log('# bytes: transferred (headers + bodies, text gzipped) until all four elements fired ffn-ready;');
    log('# verdict: Run tests -> report (a trusted click), the first run (the exercise in view, the code typed, Run');
    log(`# 1 s later), then the median of ${runs - 1} more`);
    log('site        build ms  KiB to ready  requests  first verdict ms  verdict ms');
    for (const s of sites) {
      const r = await driveSite(b.context, s.url, { solution, wrong: variantSources['gelu-swapped'].source, runs });
      const ok = r.runs.every((x) => x.passed) && r.wrong && !r.wrong.passed && r.problems.length === 0;
      const later = r.runs.slice(1).map((x) => x.ms);
      const problem = ok ? '' : `  PROBLEM: ${r.problems.join(' | ') || 'a run did not end as expected'}`;
      const cols = [
        pad(s.build ? s.build.ms : '-', 10),
        pad((r.bytes / 1024).toFixed(0), 14),
        pad(r.requests, 10),
        pad(r.runs[0].ms.toFixed(0), 18),
        pad(med(later).toFixed(0), 12),
      ];
      log(`${s.name.padEnd(10)}${cols.join('')}${problem}`);
    }
    // inline vs file, interleaved and alternating which goes first
    writeFileSync(join(dirs.plain, 'frame-bench.html'), FRAME_PAGE);
    const plain = sites.find((s) => s.name === 'plain').url;
    const got = { inline: [], file: [] };
    const bytes = { inline: [], file: [] };
    for (let i = 0; i < loads; i++) {
      for (const mode of i % 2 ? ['file', 'inline'] : ['inline', 'file']) {
        const p = await b.newPage();
        let frameBytes = 0;
        p.on('requestfinished', async (req) => {
          if (!/sandbox\/run\/frame\.html$/.test(req.url())) return;
          const sz = await req.sizes().catch(() => null);
          if (sz) frameBytes += sz.responseBodySize + sz.responseHeadersSize;
        });
        await p.goto(`${plain}frame-bench.html?mode=${mode}`);
        await p.waitForFunction(() => window.__result, null, { timeout: 60000 });
        const r = await p.evaluate(() => window.__result);
        if (!r.passed) throw new Error(`frame bench: ${mode} did not pass`);
        got[mode].push(r);
        await p.waitForTimeout(100);
        bytes[mode].push(frameBytes);
        await p.close();
      }
    }
    log(`# sandbox frame, ${loads} page loads each (interleaved, plain site): open = warmSandbox() until`);
    log('# the frame answered ready (its worker checked); grading the gelu solution: 1st, then median of 10');
    log('mode      open ms  first verdict ms  next verdict ms  frame bytes');
    for (const mode of ['inline', 'file']) {
      const g = got[mode];
      const m = (k) => med(g.map((x) => x[k])).toFixed(1);
      const cols = [pad(m('open'), 9), pad(m('first'), 18), pad(m('again'), 17), pad(med(bytes[mode]), 13)];
      log(`${mode.padEnd(8)}${cols.join('')}`);
    }
    const ratio = (k) => (med(got.inline.map((x) => x[k])) / med(got.file.map((x) => x[k]))).toFixed(2);
    log(
      `inline/file ratio: open ${ratio('open')}, first verdict ${ratio('first')}, ` + `next verdict ${ratio('again')}`,
    );
  } finally {
    await b.close();
    await close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { saveRun } = await import('./results.js');
  const quick = process.argv.includes('--quick');
  const printed = [];
  await runSitesBench({
    quick,
    log: (s = '') => {
      console.log(s);
      printed.push(s);
    },
  });
  console.log(`\nbench: saved to ${saveRun(`sites${quick ? '-quick' : ''}`, printed)}`);
}
