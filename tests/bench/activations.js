// Activation kernel rates (Melem/s, 1M floats, medians, interleaved): ffn-lab act_forward/act_grad vs a former
// src/activations.c built from git (default: the f64x2 kernels) and tfjs-wasm, with the onnxruntime-web rates quoted in
// issue 3 (measured ones: npm run bench -- --act-only).
// Standalone: node tests/bench/activations.js [--quick] [--no-baseline] [--no-tfjs] [--baseline <git rev>]
//   [--browser (in headless Chromium, without tfjs)]
// As a module: import { runActivationBench, tfjsWasmNode } from './activations.js' (run.js takes its tfjs-wasm set-up
// from here).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomArray } from './core.js';
import { ulpDistance as ulps } from '../helpers/ulps.js';
import { rng } from '../helpers/rng.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

/** The last revision whose src/activations.c computed the smooth activations in f64x2 lanes. */
export const F64_BASELINE_REV = 'b99bb6b';

/**
 * Onnxruntime-web 1.30 and tfjs rates quoted in issue 3 (Melem/s, measured on this machine earlier); run.js measures
 * ORT in the same run.
 */
export const QUOTED = { gelu: 130, gelu_tanh: 225, silu: 193, tfjs_silu: 509 };

const CODES = { sigmoid: 3, silu: 4, gelu: 5, gelu_tanh: 6, gelu_sigmoid: 7 };

// helpers are function declarations so that --browser can hand their source to the page
function now() {
  return performance.now();
}
function median(a) {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Median seconds per call of each candidate: calibrated batches, round-robin, order flipped each round. */
function interleaved(fns, { batchMs, reps, warmMs }) {
  const calls = fns.map((f) => {
    let n = 0;
    const t0 = now();
    while (n < 3 || now() - t0 < warmMs) (f(), n++);
    return Math.max(1, Math.ceil(batchMs / Math.max((now() - t0) / n, 1e-4)));
  });
  const times = fns.map(() => []);
  for (let r = 0; r < reps; r++) {
    const order = fns.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) {
      const t0 = now();
      for (let k = 0; k < calls[i]; k++) fns[i]();
      times[i].push((now() - t0) / 1e3 / calls[i]);
    }
  }
  return times.map(median);
}

/** Builds a small wasm of src/activations.c (+ its headers) as of git revision `rev`; null if git/emcc fail. */
export function buildActivationsAt(rev = F64_BASELINE_REV) {
  const dir = mkdtempSync(join(tmpdir(), 'ffn-actbench-'));
  try {
    mkdirSync(join(dir, 'src'));
    for (const f of ['activations.c', 'simd.h', 'ffn.h']) {
      writeFileSync(join(dir, 'src', f), execFileSync('git', ['-C', root, 'show', `${rev}:src/${f}`]));
    }
    const out = join(dir, 'act.wasm');
    execFileSync(
      'emcc',
      [
        '-O3',
        '-std=c11',
        '-msimd128',
        `-I${join(dir, 'src')}`,
        join(dir, 'src/activations.c'),
        '-o',
        out,
        '--no-entry',
        '-sSTANDALONE_WASM',
        '-sALLOW_MEMORY_GROWTH',
        '-sFILESYSTEM=0',
        '-sEXPORTED_FUNCTIONS=_malloc,_free,_act_forward,_act_grad,_act_backward',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return readFileSync(out);
  } catch (e) {
    console.error(`activations bench: could not build the ${rev} baseline (${String(e.message).split('\n')[0]})`);
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * raw: ffn.wasm exports (act_forward, act_grad, act_ref, act_grad_ref, malloc, free, memory);
 * base: optional exports of a baseline module (baseLabel names its column); tf: optional tfjs-core with the wasm
 * backend ready.
 * Every timed kernel's output is checked against act_ref/act_grad_ref (plain C in float64) to 4 ulps.
 */
export function runActivationBench({
  raw,
  base = null,
  baseLabel = 'f64x2',
  tf = null,
  quick = false,
  log = console.log,
}) {
  const opts = quick ? { batchMs: 25, reps: 5, warmMs: 40 } : { batchMs: 50, reps: 15, warmMs: 100 };
  const n = 1 << 20;
  // uniform in [-8, 8): the range a pre-activation occupies (scaling by 8 is exact in float32)
  const x = randomArray(n, 12345).map((v) => v * 8);
  const mods = [['new', raw], ...(base ? [[baseLabel, base]] : [])].map(([name, e]) => {
    const px = e.malloc(4 * n) >>> 0;
    const py = e.malloc(4 * n) >>> 0;
    new Float32Array(e.memory.buffer, px, n).set(x);
    return { name, e, px, py };
  });
  const check = (m, fn, act) => {
    const y = new Float32Array(m.e.memory.buffer, m.py, n);
    const pr = raw.malloc(4 * 4096) >>> 0;
    const pxs = raw.malloc(4 * 4096) >>> 0;
    const stride = n / 4096;
    const xs = new Float32Array(raw.memory.buffer, pxs, 4096);
    for (let i = 0; i < 4096; i++) xs[i] = x[i * stride];
    raw[fn === 'act_forward' ? 'act_ref' : 'act_grad_ref'](pr, pxs, 4096, act);
    const r = new Float32Array(raw.memory.buffer, pr, 4096);
    for (let i = 0; i < 4096; i++) {
      const u = Math.abs(y[i * stride] - r[i]) < 1e-30 ? 0 : ulps(y[i * stride], r[i]);
      if (!(u <= 4))
        throw new Error(`activations bench: ${m.name} ${fn}(${x[i * stride]}) = ${y[i * stride]}, ref ${r[i]}`);
    }
    raw.free(pr);
    raw.free(pxs);
  };
  const rows = [];
  const rate = (sec) => n / sec / 1e6;
  const fmt = (v) => (v == null ? '-' : v.toFixed(0)).padStart(9);
  const ratio = (a, b) => (a == null || b == null ? '-' : (a / b).toFixed(2) + 'x').padStart(8);
  log(
    `activations, ${n} floats in [-8, 8), in wasm memory (y = phi(x), not in place), Melem/s, medians of ${opts.reps}:`,
  );
  log(
    `${'function'.padEnd(14)}${'new'.padStart(9)}${baseLabel.slice(0, 8).padStart(9)}${'speedup'.padStart(8)}` +
      `${'tfjs'.padStart(9)}${'ort(q)'.padStart(9)}${'new/ort'.padStart(8)}${'anchored'.padStart(9)}`,
  );
  for (const fn of ['act_forward', 'act_grad']) {
    for (const [name, act] of Object.entries(CODES)) {
      const cands = mods.map((m) => () => m.e[fn](m.py, m.px, n, act));
      // tfjs-wasm: its own sigmoid in the sigmoid row; x * sigmoid(x) in every forward row, interleaved with
      // ours, as a load-robust anchor (the quoted rates were measured on this machine alongside tfjs SiLU 509)
      let tfIdx = -1;
      if (tf && fn === 'act_forward') {
        const xt = tf.tensor1d(x);
        tfIdx = cands.length;
        cands.push(
          name === 'sigmoid'
            ? () =>
                tf.tidy(() => {
                  tf.sigmoid(xt);
                })
            : () =>
                tf.tidy(() => {
                  tf.mul(xt, tf.sigmoid(xt));
                }),
        );
        cands.cleanup = () => xt.dispose();
      }
      const secs = interleaved(cands, opts);
      cands.cleanup?.();
      mods.forEach((m) => check(m, fn, act));
      const tfRate = tfIdx >= 0 ? rate(secs[tfIdx]) : null;
      const r = {
        fn,
        name,
        melem: rate(secs[0]),
        f64x2: base ? rate(secs[1]) : null,
        tfjs: tfRate,
        tfjsOp: tfIdx < 0 ? null : name === 'sigmoid' ? 'sigmoid' : 'silu',
        ortQuoted: fn === 'act_forward' ? (QUOTED[name] ?? null) : null,
      };
      // ours / tfjs SiLU in the same row, times the quoted tfjs SiLU / ort ratio
      r.ortAnchored =
        r.ortQuoted && tfRate && r.tfjsOp === 'silu' ? (r.melem / tfRate) * (QUOTED.tfjs_silu / r.ortQuoted) : null;
      rows.push(r);
      const label = fn === 'act_forward' ? name : `${name}'`;
      const anch = r.ortAnchored == null ? '-'.padStart(9) : (r.ortAnchored.toFixed(2) + 'x').padStart(9);
      log(
        `${label.padEnd(14)}${fmt(r.melem)}${fmt(r.f64x2)}${ratio(r.melem, r.f64x2)}${fmt(r.tfjs)}` +
          `${fmt(r.ortQuoted)}${ratio(r.melem, r.ortQuoted)}${anch}`,
      );
    }
  }
  log(
    `(tfjs: tfjs-wasm tf.sigmoid (sigmoid row) or tf.mul(x, tf.sigmoid(x)) (other rows) on a resident tensor, ` +
      `output allocation included,`,
  );
  log(
    ` interleaved with ours; ort(q): onnxruntime-web rates quoted in issue 3 (not installed here); new/ort: ` +
      `against the quoted rate;`,
  );
  log(
    ` anchored: (new / tfjs SiLU in the same row) x (${QUOTED.tfjs_silu} / ort), the quoted tfjs SiLU rate, ` +
      `which load on this shared machine does not skew)`,
  );
  mods.forEach((m) => {
    m.e.free(m.px);
    m.e.free(m.py);
  });
  return rows;
}

/** tfjs-core on its wasm backend (XNNPACK) in Node, one thread, wasm files from node_modules: { tf, tfw }. */
export async function tfjsWasmNode() {
  const tf = await import('@tensorflow/tfjs-core');
  const tfw = await import('@tensorflow/tfjs-backend-wasm');
  tfw.setWasmPaths(join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + '/');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  tfw.setThreadsCount(1);
  if (!(await tf.setBackend('wasm'))) throw new Error('bench: tfjs wasm backend failed to start');
  await tf.ready();
  return { tf, tfw };
}

/* ---- standalone ---- */
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (f) => args.includes(f);
  const revAt = args.indexOf('--baseline');
  const rev = revAt >= 0 ? args[revAt + 1] : F64_BASELINE_REV;
  const env = { env: { emscripten_notify_memory_growth() {} } };
  const inst = async (bytes) => {
    const { instance } = await WebAssembly.instantiate(bytes, env);
    instance.exports._initialize?.();
    return instance.exports;
  };
  const rawBytes = readFileSync(join(root, 'web/ffn.wasm'));
  const baseBytes = flag('--no-baseline') ? null : buildActivationsAt(rev);
  if (flag('--browser')) {
    // the same bench in a page: its functions and constants as source, both modules as bytes
    const src =
      [now, median, interleaved, ulps, rng, randomArray, runActivationBench].map(String).join('\n') +
      '\nconst ulps = ulpDistance;' +
      `\nconst CODES = ${JSON.stringify(CODES)}, QUOTED = ${JSON.stringify(QUOTED)};`;
    const { launchBrowser } = await import(pathToFileURL(join(root, 'tests/helpers/browser.js')).href);
    const b = await launchBrowser();
    try {
      const page = await b.newPage();
      const { ua, lines } = await page.evaluate(
        async ({ src, raw64, base64, baseLabel, quick }) => {
          const bench = new Function(`${src}\nreturn runActivationBench;`)();
          const inst = async (b64) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const { instance } = await WebAssembly.instantiate(bytes, {
              env: { emscripten_notify_memory_growth() {} },
            });
            instance.exports._initialize?.();
            return instance.exports;
          };
          const lines = [];
          const raw = await inst(raw64);
          bench({ raw, base: base64 ? await inst(base64) : null, baseLabel, quick, log: (l) => lines.push(l) });
          return { ua: navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0], lines };
        },
        {
          src,
          raw64: rawBytes.toString('base64'),
          base64: baseBytes ? baseBytes.toString('base64') : null,
          baseLabel: rev,
          quick: flag('--quick'),
        },
      );
      console.log(
        `# ffn-lab activations, headless ${ua}, ${cpus()[0]?.model?.trim()}, baseline ` +
          `${baseBytes ? rev : 'none'}, ${new Date().toISOString().slice(0, 16)}Z`,
      );
      console.log(lines.join('\n'));
    } finally {
      await b.close();
    }
    process.exit(0);
  }
  const raw = await inst(rawBytes);
  const base = baseBytes ? await inst(baseBytes) : null;
  let tf = null;
  if (!flag('--no-tfjs')) {
    try {
      ({ tf } = await tfjsWasmNode());
    } catch (e) {
      console.error(`activations bench: no tfjs-wasm (${e.message})`);
      tf = null;
    }
  }
  console.log(
    `# ffn-lab activations, Node ${process.versions.node}, ${cpus()[0]?.model?.trim()}, baseline ` +
      `${base ? rev : 'none'}, ${new Date().toISOString().slice(0, 16)}Z`,
  );
  runActivationBench({ raw, base, baseLabel: rev, tf, quick: flag('--quick') });
}
