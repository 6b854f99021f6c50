// The memory lab's resident trainer (createMemoryModel): weights, gradients, Adam moments and step scratch in wasm
// memory, each step one call of src/memory.c's memory_train_step.
import { wasm } from './runtime.js';
import { heapAlloc, statusError, withHeap } from './heap.js';
import { describe, actCode, parseTensor, matrix, vector, fmtShape } from './args.js';
import { STATUS } from './codes.js';
import { makeRng } from './rng.js';

/** Largest sizes createMemoryModel accepts: facts N, d, d_ff, and each of nSubjects, nRelations, nObjects. */
export const MEMORY_LIMITS = Object.freeze({ facts: 4096, d: 512, dff: 4096, ids: 4096 });

const FN = 'createMemoryModel';
const OPTIMIZER_DEFAULTS = Object.freeze({ lr: 0.03, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 });
const ALIGN = 16; // floats: every block starts on a 64-byte line

function plainObject(fn, name, v, optional) {
  if (v === undefined && optional) return {};
  if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) {
    throw new TypeError(`${fn}: ${name} must be an object; got ${describe(v)}`);
  }
  return v;
}

/** An integer in [lo, hi] (v undefined: dflt); TypeError for a non-number, RangeError naming the bounds. */
function intIn(fn, name, v, lo, hi, dflt) {
  if (v === undefined && dflt !== undefined) return dflt;
  const want = `an integer from ${lo} to ${hi}`;
  if (typeof v !== 'number') throw new TypeError(`${fn}: ${name} must be ${want}; got ${describe(v)}`);
  if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${fn}: ${name} must be ${want}; got ${v}`);
  return v;
}

/** A finite number with lo < v (or lo <= v when closed) and v < hi; TypeError/RangeError naming it. */
function realIn(fn, name, v, lo, hi, closed, dflt) {
  if (v === undefined) return dflt;
  const want = `a finite number ${closed ? '>=' : '>'} ${lo}${hi < Infinity ? ` and < ${hi}` : ''}`;
  if (typeof v !== 'number') throw new TypeError(`${fn}: ${name} must be ${want}; got ${describe(v)}`);
  if (!(Number.isFinite(v) && (closed ? v >= lo : v > lo) && v < hi)) {
    throw new RangeError(`${fn}: ${name} must be ${want}; got ${v}`);
  }
  return v;
}

function parseOptimizer(fn, v) {
  const o = plainObject(fn, 'optimizer', v, true);
  const d = OPTIMIZER_DEFAULTS;
  return Object.freeze({
    lr: realIn(fn, 'optimizer.lr', o.lr, 0, Infinity, false, d.lr),
    beta1: realIn(fn, 'optimizer.beta1', o.beta1, 0, 1, true, d.beta1),
    beta2: realIn(fn, 'optimizer.beta2', o.beta2, 0, 1, true, d.beta2),
    eps: realIn(fn, 'optimizer.eps', o.eps, 0, Infinity, true, d.eps),
    weightDecay: realIn(fn, 'optimizer.weightDecay', o.weightDecay, 0, Infinity, true, d.weightDecay),
  });
}

/** An array or typed array (what: what its entries are, for the message). */
function arrayOf(fn, name, v, what = 'integer ids') {
  if (!(Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)))) {
    throw new TypeError(`${fn}: ${name} must be an array or typed array of ${what}; got ${describe(v)}`);
  }
  return v;
}

/** opts.facts (flat triples or { subjects, relations, objects }) -> three arrays of ids, as given. */
function factColumns(fn, facts) {
  if (facts !== null && typeof facts === 'object' && !Array.isArray(facts) && !ArrayBuffer.isView(facts)) {
    const cols = ['subjects', 'relations', 'objects'].map((k) => arrayOf(fn, `facts.${k}`, facts[k]));
    if (cols[1].length !== cols[0].length || cols[2].length !== cols[0].length) {
      throw new RangeError(
        `${fn}: facts.subjects, facts.relations and facts.objects must have one length; got ` +
          `${cols[0].length}, ${cols[1].length} and ${cols[2].length}`,
      );
    }
    return { cols, at: (c, i) => `facts.${['subjects', 'relations', 'objects'][c]}[${i}]`, step: 1 };
  }
  const flat = arrayOf(fn, 'facts', facts);
  if (flat.length % 3) {
    throw new RangeError(`${fn}: facts must hold (subject, relation, object) triples; got ${flat.length} ids`);
  }
  const n = flat.length / 3;
  const col = (c) => ({ length: n, get: (i) => flat[3 * i + c] });
  return { cols: [0, 1, 2].map(col), at: (c, i) => `facts[${3 * i + c}]`, step: 3 };
}

/** The facts as Int32Arrays { s, r, o } with their vocabulary sizes, every id checked. */
function parseFacts(fn, o) {
  const { cols, at } = factColumns(fn, o.facts);
  const N = cols[0].length;
  if (N < 1 || N > MEMORY_LIMITS.facts) {
    throw new RangeError(`${fn}: facts must hold from 1 to ${MEMORY_LIMITS.facts} facts; got ${N}`);
  }
  const names = ['nSubjects', 'nRelations', 'nObjects'];
  const what = ['subject', 'relation', 'object'];
  const out = [];
  const sizes = [];
  for (let c = 0; c < 3; c++) {
    const get = cols[c].get ? cols[c].get : (i) => cols[c][i];
    const ids = new Int32Array(N);
    let max = -1;
    for (let i = 0; i < N; i++) {
      const v = get(i);
      if (typeof v !== 'number') throw new TypeError(`${fn}: ${at(c, i)} must be an integer id; got ${describe(v)}`);
      if (!Number.isInteger(v) || v < 0) {
        throw new RangeError(`${fn}: ${at(c, i)} (the ${what[c]} of fact ${i}) must be an integer id >= 0; got ${v}`);
      }
      ids[i] = v > 2 ** 31 - 1 ? 2 ** 31 - 1 : v;
      if (v > max) max = v;
    }
    const n = intIn(fn, names[c], o[names[c]], 1, MEMORY_LIMITS.ids, Math.min(max + 1, MEMORY_LIMITS.ids + 1));
    if (n > MEMORY_LIMITS.ids)
      throw new RangeError(`${fn}: ${names[c]} must be at most ${MEMORY_LIMITS.ids}; got ${n}`);
    const bad = ids.findIndex((v) => v >= n);
    if (bad >= 0) {
      throw new RangeError(
        `${fn}: ${at(c, bad)} (the ${what[c]} of fact ${bad}) is ${ids[bad]} but must be below ${names[c]} = ${n}`,
      );
    }
    out.push(ids);
    sizes.push(n);
  }
  return { N, s: out[0], r: out[1], o: out[2], nS: sizes[0], nR: sizes[1], nO: sizes[2] };
}

/** Every option of createMemoryModel checked, before anything is allocated. */
function parseSpec(opts) {
  const o = plainObject(FN, 'opts', opts, false);
  const facts = parseFacts(FN, o);
  const d = intIn(FN, 'd', o.d, 1, MEMORY_LIMITS.d, 128);
  const dff = intIn(FN, 'dff', o.dff, 1, MEMORY_LIMITS.dff, 512);
  const activation = o.activation === undefined ? 'relu' : o.activation;
  const act = actCode(FN, activation);
  const seed = intIn(FN, 'seed', o.seed, 0, 2 ** 32 - 1, 1);
  return { ...facts, d, dff, activation, act, seed, optimizer: parseOptimizer(FN, o.optimizer) };
}

/** Offsets (in floats from an aligned base) of every resident block; total floats. */
function layoutOf(ex, { N, d, dff, nS, nR, nO }) {
  const nP = 2 * d * dff + dff;
  const sizes = {
    P: nP,
    G: nP,
    M: nP,
    V: nP,
    X: N * d,
    Es: nS * d,
    Er: nR * d,
    U: nO * d,
    Utp: ex.gemm_packed_size(d, nO),
    Up: ex.gemm_packed_size(nO, d),
    targets: N,
    tgt: N, // a step's targets when opts.targets replaces some
    rows: N,
    pred: N,
    stats: 4,
    px: d,
    pA: dff,
    pL: nO,
    work: ex.memory_work_size(N, d, dff, nO),
  };
  const at = {};
  let off = 0;
  for (const [k, n] of Object.entries(sizes)) {
    at[k] = off;
    off += Math.ceil(n / ALIGN) * ALIGN;
  }
  return { at, sizes, total: off, nP };
}

/** A unit vector of n floats per row, rows x n, from rng (uniform entries, then scaled to norm 1). */
function unitRows(rng, dst, rows, n) {
  rng.fill(dst.subarray(0, rows * n), -1, 1);
  for (let i = 0; i < rows * n; i += n) {
    let ss = 0;
    for (let j = i; j < i + n; j++) ss += dst[j] * dst[j];
    const inv = 1 / Math.sqrt(ss);
    for (let j = i; j < i + n; j++) dst[j] *= inv;
  }
}

/**
 * A resident model of the memory lab: x = e_s + e_r (fixed random unit embeddings), h = x + act(x W1 + b1) W2,
 * logits = h U^T (U fixed random unit object embeddings), softmax cross-entropy; W1, b1, W2 learn by AdamW.
 * opts: { facts, nSubjects?, nRelations?, nObjects?, d = 128, dff = 512, activation = 'relu', seed = 1,
 * optimizer: { lr = 0.03, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0 } }. See web/README.md.
 */
export function createMemoryModel(opts) {
  const r = wasm(FN);
  const spec = parseSpec(opts);
  const ex = r.exports;
  const lay = layoutOf(ex, spec);
  const what = () => `${spec.N} facts, d ${spec.d}, dff ${spec.dff}, ${spec.nO} objects`;
  const raw = heapAlloc(r, FN, what, lay.total * 4 + 64);
  const base = ((raw + 63) & -64) >>> 0;
  const ptr = (k) => base + lay.at[k] * 4;
  const f32 = (k, n = lay.sizes[k]) => new Float32Array(r.memory.buffer, ptr(k), n);
  const i32 = (k, n = lay.sizes[k]) => new Int32Array(r.memory.buffer, ptr(k), n);
  const state = { t: 0, seed: spec.seed, disposed: false, tokens: new WeakSet(), warmed: 0 };
  try {
    i32('targets').set(spec.o);
    initialize(ex, spec, f32, ptr, spec.seed);
  } catch (e) {
    ex.free(raw);
    throw e;
  }
  return modelApi({ r, ex, spec, lay, raw, ptr, f32, i32, state });
}

/** Embeddings, the inputs X, the packed U, and the weights from seed; moments zero. */
function initialize(ex, spec, f32, ptr, seed) {
  const { N, d, dff, nS, nR, nO } = spec;
  const rng = makeRng(seed);
  unitRows(rng, f32('Es'), nS, d);
  unitRows(rng, f32('Er'), nR, d);
  unitRows(rng, f32('U'), nO, d);
  const P = f32('P');
  rng.fill(P.subarray(0, d * dff), -1 / Math.sqrt(d), 1 / Math.sqrt(d));
  P.subarray(d * dff, d * dff + dff).fill(0);
  rng.fill(P.subarray(d * dff + dff), -1 / Math.sqrt(dff), 1 / Math.sqrt(dff));
  for (const k of ['G', 'M', 'V']) f32(k).fill(0);
  const X = f32('X');
  const Es = f32('Es');
  const Er = f32('Er');
  for (let i = 0; i < N; i++) {
    const s = spec.s[i] * d;
    const q = spec.r[i] * d;
    for (let j = 0; j < d; j++) X[i * d + j] = Es[s + j] + Er[q + j];
  }
  // U^T (d, nO) goes through the scratch block (free until the first step) to be packed
  const U = f32('U');
  const Ut = f32('work', d * nO);
  for (let j = 0; j < nO; j++) for (let k = 0; k < d; k++) Ut[k * nO + j] = U[j * d + k];
  ex.gemm_pack(ptr('Utp'), ptr('work'), d, nO);
  ex.gemm_pack(ptr('Up'), ptr('U'), nO, d);
}

/** Steps, a batch of fact indices (copied into rows), targets and a learning rate, checked for method fn. */
function stepArgs(fn, steps, o, spec) {
  const N = spec.N;
  const n = intIn(fn, 'steps', steps, 1, 1e6, 1);
  const opts = plainObject(fn, 'opts', o, true);
  let batch = null;
  if (opts.batch !== undefined) {
    batch = arrayOf(fn, 'opts.batch', opts.batch);
    if (batch.length < 1 || batch.length > N) {
      throw new RangeError(`${fn}: opts.batch must hold from 1 to ${N} fact indices; got ${batch.length}`);
    }
    for (let i = 0; i < batch.length; i++) intIn(fn, `opts.batch[${i}]`, batch[i], 0, N - 1);
  }
  const targets = opts.targets === undefined ? null : stepTargets(fn, opts.targets, batch, spec);
  return { n, batch, targets, lr: opts.lr };
}

/**
 * opts.targets: the object taught to each fact of the step (batch[k], or fact k without a batch), in place of the
 * data's; one fact given twice with two objects is refused. -> Int32Array(N): the data's objects, these in place.
 */
function stepTargets(fn, v, batch, { N, nO, o }) {
  const B = batch ? batch.length : N;
  const t = arrayOf(fn, 'opts.targets', v, 'object ids');
  if (t.length !== B) {
    const per = batch ? 'fact of opts.batch' : 'fact (no opts.batch: every fact)';
    throw new RangeError(`${fn}: opts.targets must hold one object id per ${per}, ${B}; got ${t.length}`);
  }
  const out = Int32Array.from(o);
  const by = new Int32Array(N).fill(-1); // the k that set fact i's target
  for (let k = 0; k < B; k++) {
    const obj = intIn(fn, `opts.targets[${k}]`, t[k], 0, nO - 1);
    const i = batch ? batch[k] : k;
    const j = by[i];
    if (j >= 0 && out[i] !== obj) {
      throw new RangeError(
        `${fn}: opts.targets[${k}] is ${obj} but opts.targets[${j}] is ${out[i]}, for the same fact ${i} of opts.batch`,
      );
    }
    by[i] = k;
    out[i] = obj;
  }
  return out;
}

/** The model's shared context: m plus live(method) (its name; throws once disposed) and fail(fn, status). */
function context(m) {
  const { r, spec, state } = m;
  const live = (meth) => {
    const fn = `memoryModel.${meth}`;
    if (state.disposed) throw new Error(`${fn}: this model was disposed; create a new one with ${FN}()`);
    return fn;
  };
  const what = () => `${spec.N} facts, d ${spec.d}, dff ${spec.dff}`;
  const fail = (fn, st) => statusError(fn, st, what, r.memory.buffer.byteLength);
  const factIndex = (fn, i) => intIn(fn, 'factIndex', i, 0, spec.N - 1);
  return { ...m, live, fail, factIndex };
}

/** train and trainSgd: n steps of memory_train_step, stopping at a non-finite loss (no update from that step). */
function trainMethods(c) {
  const { ex, spec, ptr, f32, i32, state } = c;
  const { N, d, dff, nO, act, optimizer: opt } = spec;
  function run(fn, steps, o, sgd) {
    const { n, batch, targets, lr } = stepArgs(fn, steps, o, spec);
    const rate = sgd ? realIn(fn, 'opts.lr', lr, 0, Infinity, false, opt.lr) : opt.lr;
    const B = batch ? batch.length : N;
    if (batch) i32('rows', B).set(batch);
    const rows = batch ? ptr('rows') : 0;
    if (targets) i32('tgt').set(targets);
    const [pS, pP, pG, pM, pV, pX, pT] = ['stats', 'P', 'G', 'M', 'V', 'X', targets ? 'tgt' : 'targets'].map(ptr);
    const [pUt, pU, pW] = ['Utp', 'Up', 'work'].map(ptr);
    let loss = NaN;
    let correct = 0;
    for (let k = 0; k < n; k++) {
      const t = state.t + 1;
      const args = [N, B, d, dff, nO, act, sgd ? 1 : 0, rate, opt.beta1, opt.beta2, opt.eps, opt.weightDecay, t, pW];
      const st = ex.memory_train_step(pS, pP, pG, pM, pV, pX, pT, rows, pUt, pU, ...args);
      if (st !== 0) throw c.fail(fn, st);
      [loss, correct] = f32('stats', 2);
      if (!Number.isFinite(loss)) break;
      state.t = t;
    }
    return { step: state.t, loss, accuracy: correct / B, correct, finite: Number.isFinite(loss) };
  }
  return {
    train: (steps, o) => run(c.live('train'), steps, o, false),
    trainSgd: (steps, o) => run(c.live('trainSgd'), steps, o, true),
  };
}

/** evaluate, hidden, logitsOf, inputOf, keys: the forward read out (copies). */
function readMethods(c) {
  const { ex, spec, ptr, f32, i32 } = c;
  const { N, d, dff, nO, act } = spec;
  /** memory_forward of fact i, or of the vector x: A and logits into the probe blocks. */
  function probe(fn, i, x) {
    let X = ptr('X');
    let rows = ptr('rows');
    if (x !== undefined) {
      f32('px').set(x);
      [X, rows] = [ptr('px'), 0];
    } else i32('rows', 1)[0] = i;
    const st = ex.memory_forward(ptr('pA'), ptr('pL'), ptr('P'), X, rows, ptr('Utp'), 1, d, dff, nO, act, ptr('work'));
    if (st !== 0) throw c.fail(fn, st);
  }
  return {
    evaluate() {
      const fn = c.live('evaluate');
      const [pP, pX, pT, pUt, pW] = ['P', 'X', 'targets', 'Utp', 'work'].map(ptr);
      const st = ex.memory_evaluate(ptr('pred'), ptr('stats'), pP, pX, pT, pUt, N, d, dff, nO, act, pW);
      if (st !== 0) throw c.fail(fn, st);
      const [loss, correct] = f32('stats', 2);
      return { loss, accuracy: correct / N, correct, predictions: i32('pred').slice() };
    },
    hidden(v) {
      const fn = c.live('hidden');
      if (typeof v === 'number') probe(fn, c.factIndex(fn, v));
      else probe(fn, 0, vectorArg(fn, v, d));
      return f32('pA').slice();
    },
    logitsOf(i) {
      const fn = c.live('logitsOf');
      probe(fn, c.factIndex(fn, i));
      return f32('pL').slice();
    },
    inputOf(i) {
      const fn = c.live('inputOf');
      const k = c.factIndex(fn, i);
      return f32('X').slice(k * d, k * d + d);
    },
    keys(from = 0, to = spec.N) {
      const fn = c.live('keys');
      const a = intIn(fn, 'from', from, 0, spec.N);
      return keysOf(c, fn, a, intIn(fn, 'to', to, a, spec.N));
    },
  };
}

/** x: d finite numbers, as a Float32Array. */
function vectorArg(fn, v, d) {
  const x = arrayOf(fn, 'x', v, 'numbers');
  if (x.length !== d) throw new RangeError(`${fn}: x must hold d = ${d} numbers; got ${x.length}`);
  const out = Float32Array.from(x);
  const bad = out.findIndex((q) => !Number.isFinite(q));
  if (bad >= 0) throw new RangeError(`${fn}: x[${bad}] must be finite; got ${out[bad]}`);
  return out;
}

/** The resident blocks as views of wasm memory (valid until the next ffn-lab call that may grow memory). */
function views({ spec, f32 }) {
  const { d, dff } = spec;
  const P = f32('P');
  return {
    W1: P.subarray(0, d * dff),
    b1: P.subarray(d * dff, d * dff + dff),
    W2: P.subarray(d * dff + dff),
    E_subject: f32('Es'),
    E_relation: f32('Er'),
    U: f32('U'),
  };
}

const WARM_CHUNK = 1 << 16; // floats of scratch touched between two looks at the clock (256 KB)

/**
 * The step's scratch (the largest block, never touched before the first step) written in chunks for about budgetMs
 * (all of it by default): the first step then does not pay for the memory's first touch. True once all is written.
 */
function warmUp(c, budgetMs) {
  const fn = c.live('warmUp');
  const ms = realIn(fn, 'budgetMs', budgetMs, 0, Infinity, true, Infinity);
  const { f32, state } = c;
  const w = f32('work');
  const t0 = performance.now();
  while (state.warmed < w.length) {
    const end = Math.min(w.length, state.warmed + WARM_CHUNK);
    w.fill(0, state.warmed, end);
    state.warmed = end;
    if (performance.now() - t0 >= ms) break;
  }
  return state.warmed >= w.length;
}

/** weights, copyWeights, setWeights, snapshot, restore, reset, dispose. */
function stateMethods(c) {
  const { ex, spec, ptr, f32, state } = c;
  return {
    weights: () => (c.live('weights'), views(c)),
    copyWeights: () => (
      c.live('copyWeights'),
      Object.fromEntries(Object.entries(views(c)).map(([k, v]) => [k, v.slice()]))
    ),
    setWeights: (w) => setWeights(c, c.live('setWeights'), w),
    snapshot() {
      c.live('snapshot');
      const token = Object.freeze({ t: state.t, P: f32('P').slice(), M: f32('M').slice(), V: f32('V').slice() });
      state.tokens.add(token);
      return token;
    },
    restore(token) {
      const fn = c.live('restore');
      if (!state.tokens.has(token)) {
        throw new TypeError(`${fn}: token must be a snapshot() of this model; got ${describe(token)}`);
      }
      for (const k of ['P', 'M', 'V']) f32(k).set(token[k]);
      state.t = token.t;
    },
    warmUp: (budgetMs) => warmUp(c, budgetMs),
    reset(seed) {
      const fn = c.live('reset');
      state.seed = intIn(fn, 'seed', seed, 0, 2 ** 32 - 1, state.seed);
      initialize(ex, spec, f32, ptr, state.seed);
      state.t = 0;
    },
    dispose() {
      if (state.disposed) return;
      state.disposed = true;
      ex.free(c.raw);
    },
  };
}

function modelApi(m) {
  const c = context(m);
  const { spec, state } = c;
  const api = { ...trainMethods(c), ...readMethods(c), ...stateMethods(c) };
  const info = { nFacts: spec.N, d: spec.d, dff: spec.dff, nSubjects: spec.nS, nRelations: spec.nR, nObjects: spec.nO };
  for (const [k, v] of Object.entries(info)) Object.defineProperty(api, k, { value: v, enumerable: true });
  const getters = {
    step: () => state.t,
    seed: () => state.seed,
    disposed: () => state.disposed,
    activation: () => spec.activation,
    optimizer: () => spec.optimizer,
  };
  for (const [k, get] of Object.entries(getters)) Object.defineProperty(api, k, { get, enumerable: true });
  return Object.freeze(api);
}

/**
 * The hidden activations act(x W1 + b1) of facts from..to-1 (all by default) as one (to - from, dff) Float32Array,
 * row for row the bits of the whole call (a per-call heap block).
 */
function keysOf({ r, ex, spec, ptr, fail }, fn, from, to) {
  const { d, dff, nO, act } = spec;
  const n = to - from;
  if (n === 0) return new Float32Array(0);
  const p = heapAlloc(r, fn, () => `the keys of ${n} facts (${n} x ${dff})`, n * dff * 4);
  try {
    const X = ptr('X') + from * d * 4;
    const st = ex.memory_forward(p, 0, ptr('P'), X, 0, ptr('Utp'), n, d, dff, nO, act, ptr('work'));
    if (st !== 0) throw fail(fn, st);
    return new Float32Array(r.memory.buffer, p, n * dff).slice();
  } finally {
    ex.free(p);
  }
}

/** Replaces any of W1, b1, W2 (Float32Array or number array of the right length; finite) in place. */
function setWeights({ spec, f32 }, fn, w) {
  const { d, dff } = spec;
  const o = plainObject(fn, 'weights', w, false);
  const parts = { W1: [0, d * dff], b1: [d * dff, dff], W2: [d * dff + dff, dff * d] };
  const given = [];
  for (const [k, [off, n]] of Object.entries(parts)) {
    if (o[k] === undefined) continue;
    const v = arrayOf(fn, `weights.${k}`, o[k], 'numbers');
    if (v.length !== n) throw new RangeError(`${fn}: weights.${k} must hold ${n} numbers; got ${v.length}`);
    const data = Float32Array.from(v);
    const bad = data.findIndex((q) => !Number.isFinite(q));
    if (bad >= 0) throw new RangeError(`${fn}: weights.${k}[${bad}] must be finite; got ${data[bad]}`);
    given.push([off, data]);
  }
  const P = f32('P');
  for (const [off, data] of given) P.set(data, off);
}

/* ---- the memory edit's linear algebra (src/train.c's rank_one_update, spd_factor, spd_solve) ---- */

/** W (M, N) + alpha u (M) v (N)^T as a fresh tensor (Meng et al.'s rank-one edit of W2). */
export function rankOneUpdate(W, u, v, alpha = 1) {
  const fn = 'rankOneUpdate';
  wasm(fn);
  const w = parseTensor(fn, 'W', W);
  matrix(fn, 'W', w, null, null, () => 'expected 2 dimensions [M,N]');
  const [M, N] = w.shape;
  const ut = parseTensor(fn, 'u', u);
  vector(fn, 'u', ut, M, "M, W's first dimension");
  const vt = parseTensor(fn, 'v', v);
  vector(fn, 'v', vt, N, "N, W's second dimension");
  if (typeof alpha !== 'number') throw new TypeError(`${fn}: alpha must be a finite number; got ${describe(alpha)}`);
  if (!Number.isFinite(alpha)) throw new RangeError(`${fn}: alpha must be a finite number; got ${alpha}`);
  const bufs = [
    { len: M * N, data: w.data, out: true },
    { len: M, data: ut.data },
    { len: N, data: vt.data },
  ];
  const what = () => `W ${fmtShape(w.shape)}`;
  const [out] = withHeap(fn, what, bufs, ([pW, pu, pv], ex) => ex.rank_one_update(pW, pu, pv, M, N, alpha));
  return { data: out, shape: [M, N] };
}

/**
 * X with A X = B for A (n, n) symmetric positive definite (its lower triangle is read) and B (n) or (n, k): Cholesky
 * factor and two triangular solves, sums in double. A RangeError if A is not positive definite.
 */
export function spdSolve(A, B) {
  const fn = 'spdSolve';
  wasm(fn);
  const a = parseTensor(fn, 'A', A);
  const n = a.shape[0];
  matrix(fn, 'A', a, n, n, () => 'expected a square matrix [n,n]');
  const b = parseTensor(fn, 'B', B);
  if (!(b.shape[0] === n && (b.shape.length === 1 || b.shape.length === 2))) {
    throw new RangeError(`${fn}: B has shape ${fmtShape(b.shape)} but expected [${n}] or [${n},k] (n from A)`);
  }
  const k = b.shape.length === 2 ? b.shape[1] : 1;
  const bufs = [
    { len: n * n, data: a.data },
    { len: n * k, data: b.data, out: true },
  ];
  const what = () => `A ${fmtShape(a.shape)}, B ${fmtShape(b.shape)}`;
  const [X] = withHeap(fn, what, bufs, ([pA, pB], ex) => {
    const st = ex.spd_factor(pA, pA, n);
    if (st === STATUS.ENOTPD) {
      throw new RangeError(`${fn}: A ${fmtShape(a.shape)} is not positive definite (a Cholesky pivot is <= 0 or NaN)`);
    }
    return st || ex.spd_solve(pB, pA, pB, n, k);
  });
  return { data: X, shape: b.shape.slice() };
}
