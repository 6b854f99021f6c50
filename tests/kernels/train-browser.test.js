// The training kernels in headless Chromium, both builds (ffn.wasm and ffn-relaxed.wasm, whose GEMM fuses): the
// backwards, softmax cross-entropy, AdamW and the SPD solve run in the page on the raw exports, and are checked in
// Node against their _ref twins (run in the same page) and the float64 references of tests/helpers/train-ref.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';
import { ACTIVATIONS as ACTS } from '../helpers/wasm-under-test.js';
import { rng } from '../helpers/numeric.js';
import {
  assertAllClose,
  ffn64,
  gated64,
  numericGrads,
  assertGradClose,
  awayFromKink,
  softmaxCe64,
  logitRows,
  randomSpd,
  solve64,
  ADAMW_OPTS,
  adamwGrads,
  adamw64,
  assertAdamwClose,
} from '../helpers/train-ref.js';

const served = servedBrowser();
const rand = rng(77);
const randArray = (n, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => lo + (hi - lo) * rand());
const f32 = (a) => ({ f32: Array.from(a) });
const work = (n) => ({ zeros: n }); // scratch, not read back
const out = (n) => ({ zeros: n, ret: true }); // an output, read back

/**
 * Runs calls [{ fn, args }] in order on one fresh instance of web/<file> in the page. An arg is a number, or a
 * buffer: { f32: [...] }, { i32: [...] }, { zeros: n }, any of them with ret: true (read back after the call) and
 * keep: 'name' (stays allocated for later calls), or { use: 'name' } (read back). Returns per call
 * { status, out: [the contents of its read-back buffers after the call, in argument order] }.
 */
function runCalls(page, file, calls) {
  return page.evaluate(
    async ({ file, calls }) => {
      const bytes = await (await fetch(`/web/${file}`)).arrayBuffer();
      const env = { emscripten_notify_memory_growth() {} };
      const k = (await WebAssembly.instantiate(bytes, { env })).instance.exports;
      k._initialize();
      const kept = {};
      const view = (b) => new (b.int ? Int32Array : Float32Array)(k.memory.buffer, b.p, b.n);
      const results = calls.map(({ fn, args }) => {
        const bufs = [];
        const vals = args.map((a) => {
          if (typeof a === 'number') return a;
          if (a.use) return (bufs.push({ ...kept[a.use], ret: true }), kept[a.use].p);
          const n = a.f32 ? a.f32.length : a.i32 ? a.i32.length : a.zeros;
          const b = { p: k.malloc(Math.max(4, 4 * n)), n, int: !!a.i32, keep: a.keep, ret: a.ret };
          view(b).set(a.f32 || a.i32 || new Float32Array(n));
          if (a.keep) kept[a.keep] = b;
          bufs.push(b);
          return b.p;
        });
        const status = k[fn](...vals);
        const out = bufs.filter((b) => b.ret).map((b) => Array.from(view(b)));
        bufs.forEach((b) => b.keep || k.free(b.p));
        return { status, out };
      });
      Object.values(kept).forEach((b) => k.free(b.p));
      return results;
    },
    { file, calls },
  );
}

/** every call returned status 0 */
const statuses = (results) =>
  assert.deepEqual(
    results.map((r) => r.status),
    results.map(() => 0),
  );

const BUILDS = ['ffn.wasm', 'ffn-relaxed.wasm'];

/** the classic and gated backwards on [T, d, dff] for every activation, kernel then _ref (4 calls per activation) */
function backwardCalls([T, d, F]) {
  const calls = [];
  for (let act = 0; act < ACTS.length; act++) {
    const X = randArray(T * d, -2, 2);
    if (act === 3) X[1] = NaN;
    const [dY, W1, b1, W2, Wu] = [randArray(T * d), randArray(d * F), randArray(F), randArray(F * d), randArray(d * F)];
    const classic = [T * d, d * F, F, F * d, d].map(out);
    const gated = [T * d, d * F, d * F, F * d].map(out);
    const ins = [dY, X, W1, b1, W2].map(f32);
    for (const fn of ['ffn_backward', 'ffn_backward_ref'])
      calls.push({ fn, args: [...classic, ...ins, T, d, F, act, work(2 * T * F)] });
    const gins = [dY, X, W1, Wu, W2].map(f32);
    for (const fn of ['gated_ffn_backward', 'gated_ffn_backward_ref'])
      calls.push({ fn, args: [...gated, ...gins, T, d, F, act, work(3 * T * F)] });
  }
  return calls;
}

for (const build of BUILDS) {
  test(
    `browser (${build}): ffn_backward, gated_ffn_backward vs their _ref twins, every activation`,
    {
      skip: served.skip || false,
    },
    async () => {
      const page = await served.newPage();
      try {
        await page.goto(`${served.url}package.json`);
        for (const shape of [
          [9, 5, 17],
          [65, 33, 129],
        ]) {
          const res = await runCalls(page, build, backwardCalls(shape));
          statuses(res);
          for (let act = 0; act < ACTS.length; act++) {
            const [c, cr, g, gr] = res.slice(4 * act, 4 * act + 4);
            for (let o = 0; o < 5; o++) assertAllClose(c.out[o], cr.out[o], 2e-5, `${ACTS[act]} ${shape} classic ${o}`);
            for (let o = 0; o < 4; o++) assertAllClose(g.out[o], gr.out[o], 2e-5, `${ACTS[act]} ${shape} gated ${o}`);
          }
        }
      } finally {
        await page.close();
      }
    },
  );

  test(
    `browser (${build}): the backwards against float64 central differences, all 8 activations`,
    {
      skip: served.skip || false,
    },
    async () => {
      const [T, d, F] = [3, 4, 5];
      const cases = ACTS.map((name, act) => {
        const [X, W1, b1] = awayFromKink(randArray, T, d, F);
        const [W2, b2, dY] = [randArray(F * d), randArray(d), randArray(T * d)];
        const num = numericGrads(
          (...p) => ffn64(name, ...p, T, d, F),
          [X, W1, b1, W2, b2].map((a) => Float64Array.from(a)),
          dY,
        );
        const call = {
          fn: 'ffn_backward',
          args: [
            ...[T * d, d * F, F, F * d, d].map(out),
            ...[dY, X, W1, b1, W2].map(f32),
            T,
            d,
            F,
            act,
            work(2 * T * F),
          ],
        };
        return { name, num, call };
      });
      // the gated one with X W1 as the gate (its pre-activations kept away from 0 the same way, b1 = 0)
      const gcases = ACTS.map((name, act) => {
        const [X, Wg] = awayFromKink(randArray, T, d, F, false);
        const [Wu, Wd, dY] = [randArray(d * F), randArray(F * d), randArray(T * d)];
        const num = numericGrads(
          (...p) => gated64(name, ...p, T, d, F),
          [X, Wg, Wu, Wd].map((a) => Float64Array.from(a)),
          dY,
        );
        const call = {
          fn: 'gated_ffn_backward',
          args: [
            ...[T * d, d * F, d * F, F * d].map(out),
            ...[dY, X, Wg, Wu, Wd].map(f32),
            T,
            d,
            F,
            act,
            work(3 * T * F),
          ],
        };
        return { name, num, call };
      });
      const page = await served.newPage();
      try {
        await page.goto(`${served.url}package.json`);
        const res = await runCalls(
          page,
          build,
          [...cases, ...gcases].map((c) => c.call),
        );
        statuses(res);
        [...cases, ...gcases].forEach(({ name, num, call }, i) =>
          num.forEach((n, o) => assertGradClose(res[i].out[o], n, `${call.fn} ${name} output ${o}`)),
        );
      } finally {
        await page.close();
      }
    },
  );

  test(
    `browser (${build}): softmax CE (+-1e4, NaN, +-inf), AdamW over 100 steps, SPD solve vs float64`,
    {
      skip: served.skip || false,
    },
    async () => {
      const calls = [];
      const sm = [];
      for (const kind of ['plain', 'large', 'special'])
        for (const [N, V] of [
          [3, 5],
          [33, 479],
        ]) {
          const L = logitRows(randArray, rand, N, V, kind);
          const t = Int32Array.from({ length: N }, () => Math.floor(rand() * V));
          sm.push({ ref: softmaxCe64(L, t, N, V), label: `${kind} ${N}x${V}` });
          calls.push({
            fn: 'softmax_ce_backward',
            args: [out(N * V), out(1), { i32: [0], ret: true }, f32(L), { i32: [...t] }, N, V],
          });
        }
      const n = 37;
      const opts = ADAMW_OPTS.map(Math.fround);
      const grads = adamwGrads(randArray, n, 100);
      const p0 = randArray(n);
      calls.push({ fn: 'sgd_step', args: [{ ...f32(p0), keep: 'p' }, { ...work(n), keep: 'm' }, 0, 0] }); // p, m: no-op
      calls.push({ fn: 'sgd_step', args: [{ ...work(n), keep: 'v' }, { use: 'm' }, n, 0] });
      grads.forEach((g, t) =>
        calls.push({ fn: 'adamw_step', args: [{ use: 'p' }, { use: 'm' }, { use: 'v' }, f32(g), n, ...opts, t + 1] }),
      );
      const spd = [33, 257].map((sz) => {
        const A = randomSpd(randArray, sz);
        const B = randArray(sz * 2);
        calls.push({ fn: 'spd_factor', args: [{ ...work(sz * sz), keep: `L${sz}` }, f32(A), sz] });
        calls.push({ fn: 'spd_solve', args: [out(sz * 2), { use: `L${sz}` }, f32(B), sz, 2] });
        return solve64(A, B, sz, 2);
      });
      const page = await served.newPage();
      try {
        await page.goto(`${served.url}package.json`);
        const res = await runCalls(page, build, calls);
        statuses(res);
        sm.forEach(({ ref, label }, i) => {
          const [d, [loss], [correct]] = res[i].out;
          if (Number.isNaN(ref.loss)) assert.ok(Number.isNaN(loss), `${label} loss ${loss}`);
          else assert.ok(Math.abs(loss - ref.loss) <= 1e-6 * (Math.abs(ref.loss) + 1), `${label} loss ${loss}`);
          assert.equal(correct, ref.correct, `${label} correct`);
          d.forEach((v, j) => {
            const e = ref.d[j];
            if (Number.isNaN(e)) assert.ok(Number.isNaN(v), `${label} d[${j}] ${v} should be NaN`);
            else assert.ok(Math.abs(v - e) <= 1e-6 * Math.abs(e) + 2e-38, `${label} d[${j}]: ${v} vs ${e}`);
          });
        });
        const last = res[sm.length + 1 + grads.length];
        assertAdamwClose(last.out[0], last.out[1], last.out[2], adamw64(p0, grads, opts), `${build} adamw_step`);
        spd.forEach((X64, i) => {
          const X = res[res.length - 3 + 2 * i].out[0];
          const big = X64.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
          X.forEach((v, j) =>
            assert.ok(Math.abs(v - X64[j]) <= 1e-5 * big, `spd_solve ${i} [${j}]: ${v} vs ${X64[j]}`),
          );
        });
      } finally {
        await page.close();
      }
    },
  );
}
