// How the memory lab trains: in a worker (full-batch steps off the main thread), or, where a page cannot start one
// (a CSP without worker-src 'self', no Worker), on the main thread in slices of about SLICE_MS, each a task.
import { CAPACITY_SIZES, CAPACITY_STEPS, CapacityRun, modelOptions } from './session.js';

/** A main-thread slice's time budget (ms; at least one step a slice). */
export const SLICE_MS = 12;
/** How long a worker may take to load the kernels and build its model before the main thread trains instead. */
export const WORKER_START_MS = 20000;
/**
 * Before the first run without a worker: the model's scratch written in slices of `sliceMs`, then `steps` steps of a
 * model of `facts` of the lab's facts (a kernel's first calls run as the engine's baseline code), a task each.
 */
export const WARM = { sliceMs: 8, facts: 64, steps: 40 };

/**
 * Run cb in a task of its own, soon: a MessageChannel message, so that the page renders and takes input between two
 * slices without waiting for the next frame (a slice paced by requestAnimationFrame that runs past a frame's 16.7 ms,
 * as a step of the default lab does, would wait for the frame after: 33 ms a step).
 */
function nextTask(cb) {
  if (typeof MessageChannel !== 'function') return void setTimeout(cb, 0);
  const ch = new MessageChannel();
  ch.port1.onmessage = () => {
    ch.port1.close();
    cb();
  };
  ch.port2.postMessage(0);
}

/**
 * Both drivers take hooks: progress() after steps, stopped() once a run ends (the session then holds the weights),
 * point(p) for each capacity size measured, measured() at the end of the measurement, failed(err).
 * train({ until, stopWhenStored }), step(), pause(), reset(seed), capacity(), stopCapacity(), dispose().
 */
export class FrameDriver {
  constructor(ffn, session, hooks) {
    Object.assign(this, { ffn, session, hooks, kind: 'frames', active: null, warming: true });
    this._warm();
  }

  /**
   * The warm-up (WARM), a task a slice, until the first run or dispose(): the lab's first step in Node took 58-85 ms
   * cold, about 48 ms after the kernels' warm-up alone, 21 ms after both, as every later step.
   */
  _warm() {
    const o = modelOptions(this.session.idx, this.session.sizes);
    const facts = o.facts.slice(0, 3 * Math.min(WARM.facts, this.session.nFacts));
    let m = null;
    let n = 0;
    const tick = () => {
      try {
        if (this.warming && !this.session.model.warmUp(WARM.sliceMs)) return void nextTask(tick);
        if (this.warming && n++ < WARM.steps) {
          if (m) m.train(1);
          else m = this.ffn.createMemoryModel({ ...o, facts });
          return void nextTask(tick);
        }
      } catch {
        // only a head start: a real failure shows in the run itself
      }
      m?.dispose();
    };
    nextTask(tick);
  }

  /** A run of slices, each a task of its own, until the run's end (done), or until another run or pause() (dropped). */
  _loop(slice, done, dropped = null) {
    const token = {};
    this.active = token;
    this.warming = false;
    const tick = () => {
      if (this.active !== token) return void dropped?.();
      if (slice()) nextTask(tick);
      else {
        this.active = null;
        done();
      }
    };
    nextTask(tick);
  }

  train(opts) {
    this._loop(
      () => {
        const r = this.session.train(SLICE_MS, opts);
        this.hooks.progress();
        return !r.stop;
      },
      () => this.hooks.stopped(),
    );
  }

  /**
   * Edit fact f to newObject by method (session.editSteps), a task a step; resolves to its outcome in a task of its
   * own (the element then reads and draws the edited weights), not in the last step's; to null if another run or
   * pause() ends it first.
   */
  edit(method, f, newObject) {
    const steps = this.session.editSteps(method, f, newObject);
    let r;
    return new Promise((ok) =>
      this._loop(
        () => !(r = steps.next()).done,
        () => nextTask(() => ok(r.value)),
        () => {
          steps.return(); // its finally blocks run (a wasm layer of the key covariance is disposed)
          ok(null);
        },
      ),
    );
  }

  step() {
    this.warming = false;
    this.session.train(0, { maxSteps: 1, until: Infinity });
    this.hooks.progress();
    this.hooks.stopped();
  }

  pause() {
    if (!this.active) return;
    this.active = null;
    this.hooks.stopped();
  }

  reset(seed) {
    this.active = null;
    this.session.reset(seed);
  }

  capacity() {
    const cap = new CapacityRun(this.ffn, this.session.idx, this.session.sizes);
    this._cap = cap;
    this._loop(
      () => {
        const p = cap.next(SLICE_MS);
        if (p) this.hooks.point(p);
        return !cap.finished;
      },
      () => this.hooks.measured(),
    );
  }

  stopCapacity() {
    this.active = null;
    this._cap?.dispose();
  }

  dispose() {
    this.warming = false;
    this.stopCapacity();
  }
}

/** Training in a worker (train-worker.js); the session's main-thread model takes the weights when a run ends. */
export class WorkerDriver {
  /** Start the worker and its model; rejects (the worker ended) if it cannot start within WORKER_START_MS. */
  static start(session, hooks) {
    let worker;
    try {
      worker = new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
    } catch (err) {
      return Promise.reject(err); // no Worker, or one refused at once: the main thread trains
    }
    return new Promise((resolve, reject) => {
      const fail = (why) => {
        clearTimeout(timer);
        worker.terminate();
        reject(why instanceof Error ? why : new Error(String(why)));
      };
      const timer = setTimeout(() => fail('the training worker did not start'), WORKER_START_MS);
      worker.onerror = (e) => fail(e.message || 'the training worker failed to load');
      worker.onmessage = ({ data }) => {
        if (data?.type === 'error') fail(data.message);
        if (data?.type !== 'ready') return;
        clearTimeout(timer);
        resolve(new WorkerDriver(worker, session, hooks));
      };
      worker.postMessage({ type: 'init', opts: modelOptions(session.idx, session.sizes) });
    });
  }

  constructor(worker, session, hooks) {
    Object.assign(this, { worker, session, hooks, kind: 'worker', gen: 0, edits: 0, running: false });
    worker.onerror = (e) => hooks.failed(new Error(e.message || 'the training worker failed'));
    worker.onmessage = ({ data }) => this._message(data);
  }

  _message(m) {
    if (m.type === 'error') {
      this._settleEdit(null);
      return this.hooks.failed(new Error(m.message));
    }
    if (m.type === 'point') return this.hooks.point(m.point);
    if (m.type === 'measured') return this.hooks.measured();
    if (m.gen !== this.gen) return; // a step or end of a run from before a reset
    if (m.type === 'step') {
      this.session.record(m.r);
      this.hooks.progress();
    } else if (m.type === 'stopped') {
      this.running = false;
      this.session.adopt(m.w, m.keys);
      this.hooks.stopped();
    } else if (m.type === 'edited') {
      const outcome = this.session.adoptEdit(m.method, m.f, m.newObject, m);
      if (m.no === this.edits) this._settleEdit(outcome); // else a later edit is on its way
    }
  }

  /** Edit fact f to newObject by method in the worker (its train-worker.js edit); resolves to the outcome. */
  edit(method, f, newObject) {
    this._settleEdit(null);
    return new Promise((ok) => {
      this._pending = ok;
      this.worker.postMessage({ type: 'edit', gen: this.gen, no: ++this.edits, method, f, newObject });
    });
  }

  _settleEdit(outcome) {
    const ok = this._pending;
    this._pending = null;
    ok?.(outcome);
  }

  train({ until = Infinity, stopWhenStored = true, maxSteps = 1e9 } = {}) {
    this.session.dropEdits();
    this.running = true;
    this.worker.postMessage({ type: 'train', gen: this.gen, until, stopWhenStored, maxSteps });
  }

  step() {
    this.train({ maxSteps: 1, stopWhenStored: false });
  }

  pause() {
    this.worker.postMessage({ type: 'pause' });
  }

  reset(seed) {
    this.gen++;
    this.running = false;
    this._settleEdit(null);
    this.worker.postMessage({ type: 'reset', seed });
    this.session.reset(seed);
  }

  capacity() {
    const opts = modelOptions(this.session.idx, this.session.sizes);
    this.worker.postMessage({ type: 'capacity', opts, sizes: CAPACITY_SIZES, steps: CAPACITY_STEPS });
  }

  stopCapacity() {
    this.worker.postMessage({ type: 'pause' });
  }

  dispose() {
    this.worker.terminate();
  }
}
