// npm run bench -- --engines: the GEMM in JavaScriptCore (jsc), SpiderMonkey (gjs) and V8 (node), each against its own mul+add peak loop (engine-gemm.mjs in a child process per engine), both microkernels, interleaved rounds.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onPath } from '../helpers/tools.js';
import { peakLoad, peakLoadLines, hostVerdict } from './peak.js';

const here = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(here, 'engine-gemm.mjs');

/** A Debian package's version, or '?' (for the engines' names in the report). */
function debVersion(pkg) {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(/[-+]/)[0] || '?';
  } catch {
    return '?';
  }
}

const ENGINES = [
  { name: 'JavaScriptCore', cmd: 'jsc', args: (a) => ['-m', SCRIPT, '--', ...a], version: () => `jsc, WebKitGTK ${debVersion('libjavascriptcoregtk-4.0-18')}`, target: true },
  { name: 'SpiderMonkey', cmd: 'gjs', args: (a) => ['-m', SCRIPT, ...a], version: () => `gjs ${debVersion('gjs')}, mozjs ${debVersion('libmozjs-102-0')}` },
  { name: 'V8', cmd: process.execPath, args: (a) => [SCRIPT, ...a], version: () => `node ${process.versions.node}, V8 ${process.versions.v8}` },
];

function run(cmd, args) {
  return new Promise((done, fail) => {
    execFile(cmd, args, { timeout: 20 * 60000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const line = stdout.split('\n').find((l) => l.startsWith('ENGINE-BENCH'));
      if (!line) return fail(new Error(`${cmd} printed no result (${err?.message ?? 'exit 0'})\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`));
      if (line.startsWith('ENGINE-BENCH-ERROR')) return fail(new Error(`${cmd}: ${stdout.slice(stdout.indexOf('ENGINE-BENCH-ERROR'))}`));
      done(JSON.parse(line.slice('ENGINE-BENCH '.length)));
    });
  });
}

const pad = (s, n) => String(s).padStart(n);
const padEnd = (s, n) => String(s).padEnd(n);

/** Runs engine-gemm.mjs in each engine found on PATH (one after the other), prints a table per engine and the targets. */
export async function runEngines({ probeBytes, quick = false, log = console.log, env = '' }) {
  const dir = mkdtempSync(join(tmpdir(), 'ffn-engines-'));
  const results = [];
  try {
    const probe = join(dir, 'probe.wasm');
    writeFileSync(probe, probeBytes);
    log(`# ffn-lab GEMM in other engines ${quick ? '(--quick) ' : ''}${env}`);
    log('Each engine runs tests/bench/engine-gemm.mjs: per shape one interleaved run of the kernel alone (gemm_forward, X and Y in wasm memory)');
    log('and forward(X, { out }) on both microkernels, forward(X) with a fresh array, and the engine\'s own mul+add peak loop; of peak:');
    log('medians of the round-by-round ratios to that peak loop. Targets: kernel and out; fresh is reported, not a target.');
    for (const e of ENGINES) {
      if (!onPath(e.cmd)) {
        log('');
        log(`${e.name}: ${e.cmd} is not installed, skipped`);
        continue;
      }
      const r = await run(e.cmd, e.args([probe, quick ? 'quick' : 'full']));
      r.engine = e.name;
      r.version = e.version();
      r.target = !!e.target;
      r.load = peakLoad(r.peakRates);
      results.push(r);
      log('');
      log(`${e.name} (${r.version}), ffn.wasm build ${r.build}: ready() ${r.readyMs.toFixed(1)} ms, selected the ${r.kernels.selected} microkernel (the choice: ${r.firstChooseUs.toFixed(0)} us on its first call, ${r.chooseUs.toFixed(2)} us warm); peak loop ${r.peakCh} chains`);
      log(`${' '.repeat(39)}of peak (selected)     ${padEnd(r.kernels.other, 14)}selected/  peak`);
      log(`GEMM  M x K x N        GFLOPS   peak   kernel    out  fresh    kernel    out     other    spread`);
      for (const w of r.rows) {
        const sp = (Math.max(...w.peakRounds) - Math.min(...w.peakRounds)) / w.peak;
        log(`      ${padEnd(`${w.M} x ${w.K} x ${w.N}`, 18)}${pad(w.gflops.toFixed(1), 6)}${pad(w.peak.toFixed(1), 7)}${pad(w.kernel.toFixed(2), 9)}${pad(w.out.toFixed(2), 7)}${pad(w.fresh.toFixed(2), 7)}${pad(w.otherKernel.toFixed(2), 10)}${pad(w.otherOut.toFixed(2), 7)}${pad(w.selectedVsOther.toFixed(2) + 'x', 10)}${pad((100 * sp).toFixed(0) + ' %', 10)}`);
      }
      peakLoadLines(r.load).forEach((l) => log(l));
    }
    log('');
    log('targets (issue 17), this run:');
    for (const r of results) {
      const big = r.rows.filter((w) => w.M >= 128);
      const least = (k) => Math.min(...big.map((w) => w[k]));
      const vs = big.map((w) => w.selectedVsOther);
      const met = (v) => (v >= 0.85 ? 'met' : 'NOT met');
      const host = `; host ${hostVerdict(r.load)}`;
      const goal = r.target ? `>= 0.85 of its peak loop for M >= 128: kernel alone min ${least('kernel').toFixed(2)} ${met(least('kernel'))}, forward(X, { out }) min ${least('out').toFixed(2)} ${met(least('out'))}` : `of its peak loop for M >= 128 (reported): kernel alone min ${least('kernel').toFixed(2)}, forward(X, { out }) min ${least('out').toFixed(2)}`;
      log(`  ${r.engine} ${goal}; fresh array min ${least('fresh').toFixed(2)} (reported); ${r.kernels.selected} against ${r.kernels.other}, kernel alone: ${Math.min(...vs).toFixed(2)}x..${Math.max(...vs).toFixed(2)}x${host}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
