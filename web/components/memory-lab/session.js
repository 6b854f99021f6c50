// The memory lab's session: one trainer (createMemoryModel) over the facts, trained in time slices, read and edited
// through model.js; the capacity measurement. No DOM.
import {
  readModel,
  readModelSteps,
  inspectFact,
  promotes,
  triggers,
  memoryUse,
  firingStats,
  applyRankOne,
  fineTune,
  editOutcome,
  covarianceSolverSteps,
  targetValueSteps,
  finish,
} from './model.js';

/** Training stops by itself once every fact is stored, or after MAX_STEPS steps (Train goes on from there). */
export const MAX_STEPS = 400;
/** Steps of each size in the capacity measurement, and the sizes measured. */
export const CAPACITY_STEPS = 80;
export const CAPACITY_SIZES = Object.freeze([32, 64, 128, 256, 512]);
/** Fine-tuning: plain SGD at this rate on the one fact, until it flips (at most FT_MAX_STEPS). */
export const FT_LR = 0.1;
export const FT_MAX_STEPS = 100;

const now = () => (typeof performance === 'object' ? performance.now() : Date.now());

/** The trainer's options for the facts (indexFacts' result), d, d_ff, a seed and an activation (ReLU), Adam. */
export function modelOptions(idx, { d, dff, seed, activation = 'relu' }) {
  return {
    facts: idx.triples,
    nSubjects: idx.subjects.length,
    nRelations: idx.relations.length,
    nObjects: idx.objects.length,
    d,
    dff,
    seed,
    activation,
  };
}

export class LabSession {
  /** ffn: ffn-lab (its trainer, layers, edit kernels); idx: indexFacts' result; sizes { d, dff, seed, activation? }. */
  constructor(ffn, idx, sizes) {
    this.ffn = ffn;
    this.idx = idx;
    this.sizes = { ...sizes };
    this.model = ffn.createMemoryModel(modelOptions(idx, this.sizes));
    this._fresh();
  }

  _fresh() {
    this.history = [];
    this.last = null; // the last step's { step, loss, accuracy, correct, finite }
    this.trained = null; // editBase's: the state edits start from (taken at the first edit)
    this.edits = { rankOne: null, fineTune: null };
    this.edited = null; // the method whose edit the weights hold now
    this._reading = null;
  }

  get nFacts() {
    return this.idx.facts.length;
  }

  /** Every fact stored by the last step. */
  get allStored() {
    return !!this.last && this.last.correct === this.nFacts;
  }

  /**
   * Train: steps of full-batch Adam, each recorded, for about budgetMs (at least one step, at most maxSteps), until
   * step `until`, a non-finite loss, or (stopWhenStored) every fact stored. Edits are dropped first. Returns the
   * last step's result and whether training should stop there (`stop`).
   */
  train(budgetMs = 0, { maxSteps = Infinity, until = MAX_STEPS, stopWhenStored = true } = {}) {
    this.dropEdits();
    const t0 = now();
    let n = 0;
    let stop;
    do {
      const r = this.record(this.model.train(1));
      n++;
      stop = !r.finite || r.step >= until || (stopWhenStored && this.allStored);
    } while (n < maxSteps && now() - t0 < budgetMs && !stop);
    return { ...this.last, stop };
  }

  /** Record a step's result (from this model or a worker's): the curve and the last figures. */
  record(r) {
    this.last = { step: r.step, loss: r.loss, accuracy: r.accuracy, correct: r.correct, finite: r.finite };
    this.history.push({ step: r.step, loss: r.loss, accuracy: r.accuracy });
    this._reading = null;
    return this.last;
  }

  /**
   * The weights a worker trained, taken by this model (then read and edited here); keys: the worker's keys() of
   * those weights (N, dff), so that the reading costs this thread only copies.
   */
  adopt(w, keys = null) {
    this.model.setWeights(w);
    this._reading = keys && readModel(this.model, this.idx.triples, keys);
  }

  /** Back to fresh weights, from `seed` (the session's own by default). */
  reset(seed = this.sizes.seed) {
    this.sizes.seed = seed;
    this.model.reset(seed);
    this._fresh();
  }

  /** The model read once per state of its weights (model.js's readModel). */
  reading() {
    this._reading ??= readModel(this.model, this.idx.triples);
    return this._reading;
  }

  // every change of the reading (new weights) counted, so that a reading in steps knows when it is stale
  get _reading() {
    return this._read;
  }
  set _reading(v) {
    this._read = v;
    this._readings = (this._readings ?? 0) + 1;
  }

  /**
   * reading() in steps (the first drawing's tasks): returns a step computing the keys of KEY_ROWS facts, which
   * returns the next, or null once read (or once the weights changed meanwhile: reading() reads them whole).
   */
  readingSteps() {
    if (this._reading) return null;
    const n = this._readings;
    const step = readModelSteps(this.model, this.idx.triples);
    const next = () => {
      if (this._readings !== n) return null;
      const lab = step();
      if (typeof lab === 'function') return next;
      this._reading = lab;
      return null;
    };
    return next;
  }

  inspect(f) {
    return inspectFact(this.model, this.reading(), f);
  }

  memory(i, k = 5) {
    const lab = this.reading();
    return { promotes: promotes(lab, i, k), triggers: triggers(lab, i, k), use: memoryUse(lab, i) };
  }

  stats() {
    return firingStats(this.reading());
  }

  /** Edit fact f to newObject by `method` ('rankOne' or 'fineTune'), from the trained weights; measured. */
  edit(method, f, newObject) {
    return finish(this.editSteps(method, f, newObject));
  }

  /** The edit in steps (editSteps), its outcome recorded at the end. */
  *editSteps(method, f, newObject) {
    return this._edited(method, f, newObject, yield* editSteps(this, method, f, newObject));
  }

  /**
   * The same edit made by a worker from the same trained weights (driver.js): r = { before, after, steps, w, keys },
   * its predictions before and after, its weights after and their keys, taken here (copies, no forward pass).
   */
  adoptEdit(method, f, newObject, r) {
    this.trained ??= { snap: this.model.snapshot(), before: r.before, lab: this.reading() };
    this.model.setWeights(r.w);
    const out = this._edited(method, f, newObject, r);
    this._reading = readModel(this.model, this.idx.triples, r.keys);
    return out;
  }

  _edited(method, f, newObject, { after, steps }) {
    const outcome = editOutcome(this.idx.triples, f, newObject, this.trained.before, after);
    this.edits[method] = { method, fact: f, newObject, ...outcome, steps };
    this.edited = method;
    this._reading = null;
    return this.edits[method];
  }

  /** Undo: the trained weights back, every bit (the edits' measurements stay shown). */
  undo() {
    if (!this.trained) return false;
    this.model.restore(this.trained.snap);
    this.edited = null;
    this._reading = this.trained.lab;
    return true;
  }

  /** Training again after an edit starts from the trained weights, and forgets the edits. */
  dropEdits() {
    if (!this.trained) return;
    this.model.restore(this.trained.snap);
    this.trained = null;
    this.edits = { rankOne: null, fineTune: null };
    this.edited = null;
  }

  dispose() {
    this.model.dispose();
  }
}

/**
 * An edit of fact f to newObject by method ('rankOne' or 'fineTune'), in steps: a generator that yields between
 * them (the first edit's evaluation and reading, the key covariance, the target value, the edit), so that a caller
 * may let the page in between.
 * s: { ffn, model, trained, reading() } (a LabSession, or the worker's): s.trained, the state edits start from (a
 * snapshot, the predictions, the reading) is taken at the first edit and restored at the next. Returns the
 * predictions after and the steps taken.
 */
export function* editSteps(s, method, f, newObject) {
  if (s.trained) s.model.restore(s.trained.snap);
  else {
    const t = { snap: s.model.snapshot(), before: s.model.evaluate().predictions, lab: null, solve: null };
    yield;
    t.lab = s.reading();
    yield;
    s.trained = t; // whole: an edit given up before here leaves no half-taken state behind
  }
  const t = s.trained;
  let extra;
  if (method === 'rankOne') {
    if (!t.solve) {
      t.solve = yield* covarianceSolverSteps(t.lab, s.ffn);
      yield;
    }
    const kStar = t.lab.A.subarray(f * t.lab.dff, (f + 1) * t.lab.dff);
    const target = yield* targetValueSteps(t.lab, s.model.inputOf(f), kStar, newObject);
    yield;
    extra = applyRankOne(s.model, t.lab, f, newObject, { solve: t.solve, ffn: s.ffn, target });
  } else extra = fineTune(s.model, f, newObject, { lr: FT_LR, maxSteps: FT_MAX_STEPS });
  yield;
  return { after: s.model.evaluate().predictions, steps: extra.steps ?? 1 };
}

export { finish };

/**
 * The capacity measurement, one size at a time: for each d_ff of CAPACITY_SIZES, a fresh model of the same facts
 * and seed trained CAPACITY_STEPS steps. next(budgetMs) trains the current size for about budgetMs and returns
 * { dff, stored, done } when a size is finished, else null; `results` holds the sizes done.
 */
export class CapacityRun {
  constructor(ffn, idx, { d, seed }) {
    Object.assign(this, { ffn, idx, d, seed, results: [], at: 0, model: null });
  }

  get finished() {
    return this.at >= CAPACITY_SIZES.length;
  }

  next(budgetMs) {
    if (this.finished) return null;
    const dff = CAPACITY_SIZES[this.at];
    this.model ??= this.ffn.createMemoryModel(modelOptions(this.idx, { d: this.d, dff, seed: this.seed }));
    const t0 = now();
    let r;
    do r = this.model.train(1);
    while (r.step < CAPACITY_STEPS && r.finite && now() - t0 < budgetMs);
    if (r.step < CAPACITY_STEPS && r.finite) return null;
    const point = { dff, stored: r.finite ? this.model.evaluate().correct : 0, n: this.idx.facts.length };
    this.results.push(point);
    this.dispose();
    this.at++;
    return point;
  }

  dispose() {
    this.model?.dispose();
    this.model = null;
  }
}
