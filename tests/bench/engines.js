// npm run bench -- --engines: the GEMM in jsc, gjs and node against each one's own peak loop (engine-gemm.mjs).
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onPath } from '../helpers/tools.js';
import { peakLoad, peakLoadLines, hostVerdict } from './peak.js';
import { against } from './core.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Issue 28: the selected microkernel alone at this share of the engine's peak loop, every shape, every engine. */
export const KERNEL_GOAL = 0.9;
const SCRIPT = join(here, 'engine-gemm.mjs');

/** A Debian package's version, or '?' (for the engines' names in the report). */
function debVersion(pkg) {
  try {
    const opts = { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] };
    return execFileSync('dpkg-query', ['-W', '-f=${Version}', pkg], opts).split(/[-+]/)[0] || '?';
  } catch {
    return '?';
  }
}

const ENGINES = [
  {
    name: 'JavaScriptCore',
    cmd: 'jsc',
    args: (a) => ['-m', SCRIPT, '--', ...a],
    target: true,
    version: () => `jsc, WebKitGTK ${debVersion('libjavascriptcoregtk-4.0-18')}`,
  },
  {
    name: 'SpiderMonkey',
    cmd: 'gjs',
    args: (a) => ['-m', SCRIPT, ...a],
    version: () => `gjs ${debVersion('gjs')}, mozjs ${debVersion('libmozjs-102-0')}`,
  },
  {
    name: 'V8',
    cmd: process.execPath,
    args: (a) => [SCRIPT, ...a],
    version: () => `node ${process.versions.node}, V8 ${process.versions.v8}`,
  },
];

function run(cmd, args) {
  return new Promise((done, fail) => {
    execFile(cmd, args, { timeout: 20 * 60000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const line = stdout.split('\n').find((l) => l.startsWith('ENGINE-BENCH'));
      const tail = `${stdout.slice(-2000)}\n${stderr.slice(-2000)}`;
      if (!line) return fail(new Error(`${cmd} printed no result (${err?.message ?? 'exit 0'})\n${tail}`));
      if (line.startsWith('ENGINE-BENCH-ERROR')) return fail(new Error(`${cmd}: ${line.slice(19)}\n${tail}`));
      done(JSON.parse(line.slice('ENGINE-BENCH '.length)));
    });
  });
}

const pad = (s, n) => String(s).padStart(n);
const padEnd = (s, n) => String(s).padEnd(n);

/** Runs engine-gemm.mjs in each engine on PATH, one after the other; prints a table per engine and the targets. */
export async function runEngines({ probeBytes, quick = false, log = console.log, env = '' }) {
  const dir = mkdtempSync(join(tmpdir(), 'ffn-engines-'));
  const results = [];
  try {
    const probe = join(dir, 'probe.wasm');
    writeFileSync(probe, probeBytes);
    log(`# ffn-lab GEMM in other engines ${quick ? '(--quick) ' : ''}${env}`);
    log('Each engine runs tests/bench/engine-gemm.mjs: per shape one interleaved run of the kernel alone');
    log('(gemm_forward, X and Y in wasm memory) and forward(X, { out }) on both microkernels, forward(X) with a fresh');
    log("array, and the engine's own mul+add peak loop; of peak: medians of the round-by-round ratios to that loop.");
    log("Targets: kernel and out; fresh is reported. selected/other: the other kernel's time / the selected one's.");
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
      const choice = `${r.firstChooseUs.toFixed(0)} us on its first call, ${r.chooseUs.toFixed(2)} us warm`;
      log(
        `${e.name} (${r.version}), build ${r.build}: ready() ${r.readyMs.toFixed(1)} ms, selected the ` +
          `${r.kernels.selected} microkernel (the choice: ${choice}); peak loop ${r.peakCh} chains`,
      );
      log(`${' '.repeat(39)}of peak (selected)     ${padEnd(r.kernels.other, 14)}selected/  peak`);
      log(`GEMM  M x K x N        GFLOPS   peak   kernel    out  fresh    kernel    out     other    spread`);
      for (const w of r.rows) {
        const sp = (Math.max(...w.peakRounds) - Math.min(...w.peakRounds)) / w.peak;
        const cells = [
          [w.gflops.toFixed(1), 6],
          [w.peak.toFixed(1), 7],
          [w.kernel.toFixed(2), 9],
          [w.out.toFixed(2), 7],
          [w.fresh.toFixed(2), 7],
          [w.otherKernel.toFixed(2), 10],
          [w.otherOut.toFixed(2), 7],
          [w.selectedVsOther.toFixed(2) + 'x', 10],
          [(100 * sp).toFixed(0) + ' %', 10],
        ];
        log(`      ${padEnd(`${w.M} x ${w.K} x ${w.N}`, 18)}${cells.map(([v, n]) => pad(v, n)).join('')}`);
      }
      peakLoadLines(r.load).forEach((l) => log(l));
    }
    log('');
    log(`targets (issue 28), this run: the selected kernel alone >= ${KERNEL_GOAL} of its peak loop on every shape`);
    for (const r of results) {
      const least = Math.min(...r.rows.map((w) => w.kernel));
      const met = least >= KERNEL_GOAL ? 'met' : 'NOT met';
      log(
        `  ${r.engine}: ${r.kernels.selected}, min ${against(least, KERNEL_GOAL)} ${met}; host: ${hostVerdict(r.load)}`,
      );
    }
    // The ratios above are against each engine's own peak loop, which the engines compile unequally on one core
    log('the same core in GFLOPS: each peak loop (median) and the selected kernel alone (least..most over the shapes)');
    for (const r of results) {
      const g = r.rows.map((w) => w.gflops);
      const span = `${Math.min(...g).toFixed(1)}..${Math.max(...g).toFixed(1)}`;
      log(`  ${r.engine}: peak loop ${r.load.median.toFixed(1)}, kernel ${span}`);
    }
    log('targets (issue 17), this run:');
    for (const r of results) {
      const big = r.rows.filter((w) => w.M >= 128);
      const least = (k) => Math.min(...big.map((w) => w[k]));
      const vs = big.map((w) => w.selectedVsOther);
      const met = (v) => (v >= 0.85 ? 'met' : 'NOT met');
      const host = `; host: ${hostVerdict(r.load)}`;
      const [k, o] = [least('kernel'), least('out')];
      const mins = r.target
        ? `kernel alone min ${against(k, 0.85)} ${met(k)}, forward(X, { out }) min ${against(o, 0.85)} ${met(o)}`
        : `kernel alone min ${k.toFixed(2)}, forward(X, { out }) min ${o.toFixed(2)}`;
      const goal = r.target ? `>= 0.85 of its peak loop for M >= 128: ${mins}` : `of its peak loop, M >= 128: ${mins}`;
      const range = `${Math.min(...vs).toFixed(2)}x..${Math.max(...vs).toFixed(2)}x`;
      log(
        `  ${r.engine} ${goal}; fresh array min ${least('fresh').toFixed(2)} (reported); ` +
          `${r.kernels.selected} against ${r.kernels.other}, kernel alone: ${range}${host}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
