// The calls compared across JavaScript engines (tests/kernels/engines.test.js): every public function on fixed inputs,
// results as plain JSON.

import { rng } from '../helpers/rng.js';

/** Deterministic floats in [-r, r) (the tests' seeded generator), so every engine sees the same inputs. */
function floats(n, seed, r = 1) {
  const next = rng(seed);
  return Float32Array.from({ length: n }, () => (next() - 0.5) * 2 * r);
}

const t = (data, shape) => ({ data, shape });

/** Float32 values as JSON: NaN, ±Infinity and -0 as strings (JSON has none of them). */
function enc(x) {
  const d = x && x.data !== undefined ? x.data : x;
  return Array.from(d, (v) =>
    Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Inf' : v === -Infinity ? '-Inf' : Object.is(v, -0) ? '-0' : v,
  );
}

/** What a bad call throws: { name, message }, or 'no error'. */
function refused(call) {
  let e = null;
  try { call(); } catch (err) { e = { name: err.name, message: err.message }; }
  return e ?? 'no error';
}

/** The activation grid: GRID random floats in [-8, 8), then these edge values. */
export const GRID = 997;
export const EDGES = [-1e4, 1e4, -88.5, 88.5, 0, -0, NaN, Infinity, -Infinity, 1e-40, -1e-40, -0.752, 3.4e38, -3.4e38];

export function battery(ffn) {
  const out = {};
  const heap0 = ffn.heapStats().heapInUse;
  // activations and their derivatives on a grid with the edge values (±1e4, ±0, NaN, ±Inf, subnormals)
  const grid = new Float32Array([...floats(GRID, 1, 8), ...EDGES]);
  for (const name of ['relu', 'relu2', 'sigmoid', 'silu', 'gelu', 'geluTanh', 'geluSigmoid'])
    out[name] = enc(ffn[name](grid));
  for (const name of ['relu', 'relu2', 'sigmoid', 'silu', 'gelu', 'gelu_tanh', 'gelu_sigmoid'])
    out[`grad_${name}`] = enc(ffn.activationGrad(name, grid));
  // matmul: the small-loop path and the packed GEMM path (>= 4 rows and 2^18 multiply-adds), with tails
  out.matmulSmall = enc(ffn.matmul(t(floats(3 * 7, 2), [3, 7]), t(floats(7 * 5, 3), [7, 5])));
  out.matmulGemm = enc(ffn.matmul(t(floats(37 * 131, 4), [37, 131]), t(floats(131 * 77, 5), [131, 77])));
  // FFNs: classic with each activation, the gated family, SwiGLU backward
  const d = 24, dff = 72, T = 5;
  const X = t(floats(T * d, 6), [T, d]), W1 = t(floats(d * dff, 7, 0.3), [d, dff]), b1 = t(floats(dff, 8, 0.1), [dff]);
  const W2 = t(floats(dff * d, 9, 0.3), [dff, d]), b2 = t(floats(d, 10, 0.1), [d]);
  const Wu = t(floats(d * dff, 11, 0.3), [d, dff]);
  for (const act of ['relu', 'gelu', 'gelu_tanh', 'silu'])
    out[`ffn_${act}`] = enc(ffn.ffn(X, W1, b1, W2, b2, { activation: act }));
  for (const act of ['sigmoid', 'identity', 'relu', 'gelu', 'silu'])
    out[`gated_${act}`] = enc(ffn.gatedFfn(X, W1, Wu, W2, { activation: act }));
  out.swiglu = enc(ffn.swigluFfn(X, W1, Wu, W2));
  const g = ffn.swigluBackward(t(floats(T * d, 12), [T, d]), X, W1, Wu, W2);
  for (const k of ['dX', 'dWGate', 'dWUp', 'dWDown']) out[`backward_${k}`] = enc(g[k]);
  const m = ffn.ffnMemories(t(floats(d, 13), [d]), W1, b1, W2, 4);
  out.memories = { coef: enc(m.coef), top: Array.from(m.top), partial: enc(m.partial) };
  // resident layers: 40 rows (10 row strips, so the GEMM reads the next panel group ahead), 3 column groups
  const Xl = t(floats(40 * 48, 14), [40, 48]);
  const lin = ffn.createLinear({
    W: t(floats(48 * 136, 15, 0.2), [48, 136]),
    b: t(floats(136, 16), [136]),
    activation: 'gelu',
  });
  const f = ffn.createFfn({
    W1: t(floats(48 * 136, 17, 0.2), [48, 136]),
    b1: t(floats(136, 18), [136]),
    W2: t(floats(136 * 48, 19, 0.2), [136, 48]),
    b2: t(floats(48, 20), [48]),
    activation: 'gelu_tanh',
  });
  const gf = ffn.createGatedFfn({
    Wg: t(floats(48 * 136, 21, 0.2), [48, 136]),
    Wu: t(floats(48 * 136, 22, 0.2), [48, 136]),
    Wd: t(floats(136 * 48, 23, 0.2), [136, 48]),
    activation: 'silu',
  });
  try {
    out.linear = enc(lin.forward(Xl));
    out.ffnLayer = enc(f.forward(Xl));
    out.gatedLayer = enc(gf.forward(Xl));
    const into = new Float32Array(40 * 136);
    lin.forward(Xl, { out: into });
    out.linearOut = enc(into);
  } finally {
    lin.dispose(); f.dispose(); gf.dispose();
  }
  out.counts = [
    ffn.ffnParamCount(768, 3072),
    ffn.ffnParamCount(4096, 11008, { bias: false, gated: true }),
    ffn.llamaHiddenDim(4096),
    ffn.ffnFlops(768, 3072),
  ];
  // bad input: the same error in every engine, and the module still computes after it
  out.errors = [
    refused(() => ffn.matmul(t(new Float32Array(6), [2, 3]), t(new Float32Array(8), [4, 2]))),
    refused(() => ffn.gelu('x')),
    refused(() => ffn.ffnMemories(t(floats(d, 13), [d]), W1, b1, W2, 999)),
    refused(() => ffn.createLinear({ W: t(new Float32Array(5), [2, 3]) })),
  ];
  out.afterErrors = enc(ffn.matmul(t(floats(4, 24), [2, 2]), t(floats(4, 25), [2, 2])));
  out.heapFlat = ffn.heapStats().heapInUse === heap0;
  return out;
}
