// Independent float64 reference of the ffn-lab API (no wasm, no code shared with web/), for tests across the project.
//
// Tensors: functions take { data, shape } (data any numeric array), a nested number array, or a flat array (1-D),
// and return { data: Float64Array, shape }. Scalar helpers (erf, gelu, ...) take and return plain numbers.

/* ------------------------------------------------------------------ */
/* special functions                                                   */
/* ------------------------------------------------------------------ */

const TWO_OVER_SQRT_PI = 1.1283791670955126; // 2/sqrt(pi)
const INV_SQRT_PI = 0.5641895835477563; // 1/sqrt(pi)
const SQRT1_2 = Math.SQRT1_2;
const INV_SQRT_2PI = 0.3989422804014327; // 1/sqrt(2 pi)
const SQRT_2_OVER_PI = 0.7978845608028654; // sqrt(2/pi)

/**
 * erf(x) for |x| < 2.5 by the everywhere-convergent series with positive terms (no cancellation):
 * erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)).
 */
function erfSeries(x) {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (2 * x2) / (2 * n + 1);
    sum += term;
    if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

/**
 * erfc(x) for x >= 2.5 by the continued fraction (modified Lentz):
 * erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))).
 */
function erfcContinuedFraction(x) {
  const tiny = 1e-300;
  let f = x;
  let C = x;
  let D = 0;
  for (let n = 1; n < 5000; n++) {
    const a = n / 2;
    D = x + a * D;
    if (D === 0) D = tiny;
    C = x + a / C;
    if (C === 0) C = tiny;
    D = 1 / D;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return (Math.exp(-x * x) * INV_SQRT_PI) / f;
}

/** Complementary error function, accurate relative to its value in both tails. */
export function erfc(x) {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 0;
  if (x === -Infinity) return 2;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2.5) return 1 - erfSeries(x);
  if (x > 27.3) return 0; // below the smallest double
  return erfcContinuedFraction(x);
}

/** Error function. */
export function erf(x) {
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity) return 1;
  if (x === -Infinity) return -1;
  const a = Math.abs(x);
  if (a < 2.5) return erfSeries(x);
  const v = 1 - erfc(a);
  return x < 0 ? -v : v;
}

/** Standard normal CDF Phi(x) = erfc(-x / sqrt 2) / 2 (relative accuracy kept for x very negative). */
export function normCdf(x) {
  return 0.5 * erfc(-x * SQRT1_2);
}

/** Standard normal density. */
export function normPdf(x) {
  return INV_SQRT_2PI * Math.exp(-0.5 * x * x);
}

/** Logistic sigmoid in the stable form (exp of a non-positive number only). */
export function sigmoidScalar(x) {
  if (Number.isNaN(x)) return NaN;
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/* ------------------------------------------------------------------ */
/* activations and their derivatives (scalar)                          */
/* ------------------------------------------------------------------ */

// At x = -Infinity the smooth activations return their limit 0 (computing x * 0 would give NaN).
const scalar = {
  identity: (x) => x,
  relu: (x) => (Number.isNaN(x) ? NaN : x > 0 ? x : 0),
  relu2: (x) => (Number.isNaN(x) ? NaN : x > 0 ? x * x : 0),
  sigmoid: sigmoidScalar,
  silu: (x) => (x === -Infinity ? 0 : x === Infinity ? Infinity : x * sigmoidScalar(x)),
  gelu: (x) => (x === -Infinity ? 0 : x === Infinity ? Infinity : x * normCdf(x)),
  gelu_tanh: (x) => {
    if (x === -Infinity) return 0;
    if (x === Infinity) return Infinity;
    // 0.5 x (1 + tanh(u)) = x * sigmoid(2u): no cancellation in the negative tail.
    const u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x);
    return x * sigmoidScalar(2 * u);
  },
  gelu_sigmoid: (x) => (x === -Infinity ? 0 : x === Infinity ? Infinity : x * sigmoidScalar(1.702 * x)),
};

const scalarGrad = {
  identity: (x) => (Number.isNaN(x) ? NaN : 1),
  // PyTorch convention: relu'(0) = 0.
  relu: (x) => (Number.isNaN(x) ? NaN : x > 0 ? 1 : 0),
  relu2: (x) => (Number.isNaN(x) ? NaN : x > 0 ? 2 * x : 0),
  sigmoid: (x) => {
    const s = sigmoidScalar(x);
    return s * (1 - s);
  },
  silu: (x) => {
    if (Number.isNaN(x)) return NaN;
    if (x === Infinity) return 1;
    if (x === -Infinity) return 0;
    const s = sigmoidScalar(x);
    return s * (1 + x * (1 - s));
  },
  gelu: (x) => {
    if (Number.isNaN(x)) return NaN;
    if (x === Infinity) return 1;
    if (x === -Infinity) return 0;
    return normCdf(x) + x * normPdf(x);
  },
  gelu_tanh: (x) => {
    if (Number.isNaN(x)) return NaN;
    if (x === Infinity) return 1;
    if (x === -Infinity) return 0;
    const u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x);
    const du = SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x);
    // d/dx [x * sigmoid(2u)] = sigmoid(2u) + x * 2u' * sigmoid(2u)(1 - sigmoid(2u))
    const s = sigmoidScalar(2 * u);
    const sc = sigmoidScalar(-2 * u); // 1 - s without cancellation
    const tail = s * sc === 0 ? 0 : x * 2 * du * s * sc;
    return s + tail;
  },
  gelu_sigmoid: (x) => {
    if (Number.isNaN(x)) return NaN;
    if (x === Infinity) return 1;
    if (x === -Infinity) return 0;
    const s = sigmoidScalar(1.702 * x);
    const sc = sigmoidScalar(-1.702 * x);
    return s + 1.702 * x * s * sc;
  },
};

/** Names accepted by activation(), activationGrad(), ffn() and gatedFfn(). */
export const activationNames = Object.freeze(Object.keys(scalar));

/** Scalar activation by name (float64). */
export function act(name, x) {
  const f = scalar[name];
  if (!f) throw new RangeError(`ref: unknown activation ${name}`);
  return f(x);
}

/** Scalar activation derivative by name (float64). */
export function actGrad(name, x) {
  const f = scalarGrad[name];
  if (!f) throw new RangeError(`ref: unknown activation ${name}`);
  return f(x);
}

/* ------------------------------------------------------------------ */
/* tensors                                                             */
/* ------------------------------------------------------------------ */

/** Normalise any accepted array argument to { data: Float64Array, shape }. */
export function asTensor(x) {
  if (x && !Array.isArray(x) && !ArrayBuffer.isView(x) && 'data' in x && 'shape' in x) {
    const t = asTensor(x.data);
    return { data: t.data, shape: x.shape.slice() };
  }
  if (ArrayBuffer.isView(x)) return { data: Float64Array.from(x), shape: [x.length] };
  if (Array.isArray(x)) {
    const shape = [];
    let cur = x;
    while (Array.isArray(cur) || (shape.length && ArrayBuffer.isView(cur))) {
      shape.push(cur.length);
      cur = cur[0];
    }
    const flat = x.flat(Infinity).flatMap((v) => (ArrayBuffer.isView(v) ? Array.from(v) : [v]));
    return { data: Float64Array.from(flat), shape };
  }
  throw new TypeError('ref: not a tensor');
}

function map(x, f) {
  const t = asTensor(x);
  return { data: t.data.map(f), shape: t.shape };
}

export const identity = (x) => map(x, scalar.identity);
export const relu = (x) => map(x, scalar.relu);
export const relu2 = (x) => map(x, scalar.relu2);
export const sigmoid = (x) => map(x, scalar.sigmoid);
export const silu = (x) => map(x, scalar.silu);
export const gelu = (x) => map(x, scalar.gelu);
export const geluTanh = (x) => map(x, scalar.gelu_tanh);
export const geluSigmoid = (x) => map(x, scalar.gelu_sigmoid);

/** Elementwise activation by name on a tensor. */
export function activation(name, x) {
  if (!scalar[name]) throw new RangeError(`ref: unknown activation ${name}`);
  return map(x, scalar[name]);
}

/** Elementwise derivative by name on a tensor. */
export function activationGrad(name, x) {
  if (!scalarGrad[name]) throw new RangeError(`ref: unknown activation ${name}`);
  return map(x, scalarGrad[name]);
}

/** A (..., k) @ B (k, n) -> (..., n), float64 accumulation. */
export function matmul(A, B) {
  const a = asTensor(A);
  const b = asTensor(B);
  const K = a.shape[a.shape.length - 1];
  const N = b.shape[1];
  if (b.shape[0] !== K) throw new RangeError('ref.matmul: shapes');
  const M = a.shape.slice(0, -1).reduce((p, s) => p * s, 1); // from the shape: K = 0 still has rows
  const out = new Float64Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let p = 0; p < K; p++) {
      const av = a.data[i * K + p];
      for (let j = 0; j < N; j++) out[i * N + j] += av * b.data[p * N + j];
    }
  }
  return { data: out, shape: [...a.shape.slice(0, -1), N] };
}

/** t (..., n) + bias (n) broadcast over the rows; bias null/undefined: t itself. */
export function addBias(t, bias) {
  if (bias == null) return t;
  const b = asTensor(bias).data;
  const n = b.length;
  const out = t.data.slice();
  for (let i = 0; i < out.length; i++) out[i] += b[i % n];
  return { data: out, shape: t.shape };
}

/** phi(X W1 + b1) W2 + b2; b1, b2 may be null. */
export function ffn(X, W1, b1, W2, b2, { activation: name = 'gelu_tanh' } = {}) {
  const h = addBias(matmul(X, W1), b1);
  return addBias(matmul(activation(name, h), W2), b2);
}

/** (phi(X Wg) * (X Wu)) Wd. */
export function gatedFfn(X, Wg, Wu, Wd, { activation: name = 'silu' } = {}) {
  const g = activation(name, matmul(X, Wg));
  const u = matmul(X, Wu);
  const h = { data: g.data.map((v, i) => v * u.data[i]), shape: g.shape };
  return matmul(h, Wd);
}

export function swigluFfn(X, Wg, Wu, Wd) {
  return gatedFfn(X, Wg, Wu, Wd, { activation: 'silu' });
}

function transpose2(t) {
  const [r, c] = t.shape;
  const out = new Float64Array(r * c);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out[j * r + i] = t.data[i * c + j];
  return { data: out, shape: [c, r] };
}

function flatRows(t) {
  const d = t.shape[t.shape.length - 1];
  return { data: t.data, shape: [t.shape.slice(0, -1).reduce((p, s) => p * s, 1), d] };
}

/** Analytic SwiGLU gradients (chain rule in float64): { dX, dWGate, dWUp, dWDown }. */
export function swigluBackward(dY, X, Wg, Wu, Wd) {
  const x = asTensor(X);
  const x2 = flatRows(x);
  const dy = flatRows(asTensor(dY));
  const G = matmul(x2, Wg);
  const U = matmul(x2, Wu);
  const A = silu(G);
  const H = { data: A.data.map((v, i) => v * U.data[i]), shape: A.shape };
  const wd = asTensor(Wd);
  const dWDown = matmul(transpose2(H), dy);
  const dH = matmul(dy, transpose2(wd));
  const dU = { data: dH.data.map((v, i) => v * A.data[i]), shape: dH.shape };
  const dG = { data: dH.data.map((v, i) => v * U.data[i] * scalarGrad.silu(G.data[i])), shape: dH.shape };
  const xT = transpose2(x2);
  const dWUp = matmul(xT, dU);
  const dWGate = matmul(xT, dG);
  const a = matmul(dG, transpose2(asTensor(Wg)));
  const b = matmul(dU, transpose2(asTensor(Wu)));
  const dX = { data: a.data.map((v, i) => v + b.data[i]), shape: x.shape };
  return { dX, dWGate, dWUp, dWDown };
}

/** Key-value memories of a ReLU FFN for one token: { coef, top (Int32Array), partial }. */
export function ffnMemories(x, W1, b1, W2, k) {
  const xt = asTensor(x);
  const d = xt.shape[xt.shape.length - 1];
  const coef = relu(addBias(matmul({ data: xt.data, shape: [1, d] }, W1), b1));
  const dff = coef.data.length;
  const order = Array.from({ length: dff }, (_, i) => i).sort((i, j) => coef.data[j] - coef.data[i] || i - j);
  const top = Int32Array.from(order.slice(0, k));
  const w2 = asTensor(W2).data;
  const partial = new Float64Array(d);
  for (const i of top) for (let j = 0; j < d; j++) partial[j] += coef.data[i] * w2[i * d + j];
  return { coef: { data: coef.data, shape: [dff] }, top, partial: { data: partial, shape: [d] } };
}

/* ------------------------------------------------------------------ */
/* counts                                                              */
/* ------------------------------------------------------------------ */

export function ffnParamCount(d, dFF, { bias = true, gated = false } = {}) {
  const weights = (gated ? 3 : 2) * d * dFF;
  const biases = bias ? (gated ? 2 : 1) * dFF + d : 0;
  return weights + biases;
}

/** As LLaMA's code: int(2*(4d)/3), then int(multiplier * h) if given, rounded up to a multiple of multipleOf. */
export function llamaHiddenDim(d, { multipleOf = 256, ffnDimMultiplier = null } = {}) {
  let h = Math.trunc((2 * (4 * d)) / 3);
  if (ffnDimMultiplier != null) h = Math.trunc(ffnDimMultiplier * h);
  return multipleOf * Math.ceil(h / multipleOf);
}

export function ffnFlops(d, dFF, { gated = false } = {}) {
  return 2 * (gated ? 3 : 2) * d * dFF;
}

/** Attention projections' parameters: four d x d matrices with biases. */
export function attentionParamCount(d) {
  return 4 * d * d + 4 * d;
}
