// <ffn-memory-lab>: an FFN trained on real facts in the page, whose memories can be read and edited (the element:
// lifecycle, attributes, input; numbers from session.js and model.js, drawing in view.js).
import * as ffn from '../../index.js'; // the wasm bytes inlined: nothing for a bundler or server to place
import { FfnElement, define, htmlEl as h } from '../../element-base.js';
import { NEAR } from '../../element-queue.js';
import { localizedError } from '../../i18n/index.js';
import { componentCss, rafThrottle, setProblem, trailingThrottle } from '../styles.js';
import { countryFacts, formatFacts, indexFacts, parseFacts } from './facts.js';
import { parseAttribute, D, DEFAULT_DFF, SEED_MAX } from './attributes.js';
import { LabSession, CAPACITY_SIZES, CAPACITY_STEPS, MAX_STEPS } from './session.js';
import { FrameDriver, WorkerDriver } from './driver.js';
import * as view from './view.js';
import { wireTraining, wireInspect, wireEdit } from './controls.js';

export class FfnMemoryLab extends FfnElement {
  static get observedAttributes() {
    return ['facts', 'seed', 'd-ff', 'fact', 'memory', 'theme', 'lang'];
  }

  static get textPrefix() {
    return 'lab.';
  }

  constructor() {
    super();
    this._idx = indexFacts(countryFacts());
    this._sizes = { d: D, dff: DEFAULT_DFF, seed: 1 };
    this._fact = this._idx.facts.findIndex((f) => f.subject === 'Japan' && f.relation === 'capital');
    if (this._fact < 0) this._fact = 0;
    this._memory = null;
    this._query = '';
    this._running = false;
    this._problems = new Map();
    this._root = this._attachStyledShadow(componentCss(view.css));
    this._announce = trailingThrottle(() => this._status(true), 1000);
    this._capacityResults = [];
    this._waiters = [];
    this._drawSoon = rafThrottle(() => this._updateTraining());
  }

  connectedCallback() {
    super.connectedCallback();
    this._retranslate();
    for (const name of ['facts', 'seed', 'd-ff', 'fact', 'memory']) this._readAttribute(name);
    if (this._ready) return;
    this._load(() => ffn.ready(), {
      loading: () => this._t('loading'),
      ready: () => this._firstSteps(),
      failed: (err) => this._problem('load', err),
    });
  }

  /**
   * The first drawing in steps, each a task of its own (drawSoon): the model, the view, the fact list in chunks
   * (each laid out in its step), then the reading. Returns the next step; the last returns nothing (ready).
   */
  _firstSteps() {
    try {
      this._newSession();
    } catch (err) {
      this._problem('load', err);
      return false; // no session: no ffn-ready
    }
    return () => {
      this._build();
      const { _idx: idx, _parts: parts } = this;
      let fill = view.fillListSteps(this._tt, this._tr, parts.inspect, idx, this._query, this._fact);
      const more = () => {
        // new facts, a new view or a list drawn meanwhile (an attribute, a language): drawn whole, now
        if (this._idx !== idx || this._parts !== parts || this._filledFor) {
          if (!this._parts) this._build();
          return this._update();
        }
        fill = fill?.();
        if (fill) return more;
        this._filledFor = idx;
        // the model's keys of every fact (inspect's), in steps
        let read = this._session.readingSteps();
        const reading = () => {
          if ((read = read?.())) return reading;
          this._update();
          this._startDriverSoon();
        };
        return reading;
      };
      return more;
    };
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._near?.disconnect();
    this.pause();
    this.stopMeasure();
  }

  /** A session over the facts and sizes (the previous one and its driver disposed). */
  _newSession() {
    this._driver?.dispose();
    this._session?.dispose();
    this._driver = null;
    this._starting = null;
    this._running = false;
    this._measuring = false;
    this._capacityResults = [];
    this._session = new LabSession(ffn, this._idx, this._sizes);
  }

  /**
   * Start the driver once the lab is drawn and near the viewport (NEAR), in idle time (or within 2 s): the
   * worker loads the kernels and builds its model before the first Train, whose click then only posts a message (no
   * worker start in the click's frames). A lab the reader never scrolls to starts none (Train would).
   */
  _startDriverSoon() {
    const session = this._session;
    const start = () => this.isConnected && this._session === session && !this._driver && this._withDriver(() => {});
    const idle = () =>
      typeof requestIdleCallback === 'function'
        ? requestIdleCallback(start, { timeout: 2000 })
        : setTimeout(start, 200);
    this._near?.disconnect();
    if (typeof IntersectionObserver !== 'function') return void idle();
    this._near = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        this._near.disconnect();
        idle();
      },
      { rootMargin: NEAR },
    );
    this._near.observe(this);
  }

  /**
   * Run fn(driver) once the session's driver is there (started at idle after the first drawing, or on first use),
   * a worker where the page can start one, else the main thread in slices.
   */
  _withDriver(fn) {
    if (this._driver) return fn(this._driver);
    const session = this._session;
    const hooks = this._hooks(session);
    this._starting ??= WorkerDriver.start(session, hooks).catch(() => new FrameDriver(ffn, session, hooks));
    this._starting.then((driver) => {
      if (this._session !== session) return driver.dispose(); // a newer session meanwhile
      this._driver = driver;
      fn(driver);
    });
  }

  /** What the driver of `session` tells the element. */
  _hooks(session) {
    const mine =
      (fn) =>
      (...a) =>
        this._session === session && fn(...a);
    return {
      progress: mine(() => this._drawSoon()),
      stopped: mine(() => {
        this._running = false;
        this._updateTraining();
        setTimeout(() => {
          // the reading of the new weights in a task of its own
          this._update();
          this._settle();
        });
      }),
      point: mine((p) => {
        this._capacityResults.push(p);
        this._updateCapacity();
      }),
      measured: mine(() => {
        this._measuring = false;
        this._updateCapacity();
        this._emit();
        this._settle();
      }),
      failed: mine((err) => {
        this._running = false;
        this._problem('train', err);
        this._settle();
      }),
    };
  }

  /** Resolve the promises of train(), step() and measure() waiting for the run to end. */
  _settle() {
    if (this._running || this._measuring) return;
    for (const ok of this._waiters.splice(0)) ok(this.state);
  }

  _whenSettled() {
    return new Promise((ok) => {
      this._waiters.push(ok);
      this._settle();
    });
  }

  _relocalize() {
    this._retranslate();
    this._problem(null, null);
    // built (also between the first drawing's steps): built and drawn anew
    if (this._parts && this._session) {
      this._build();
      this._update();
    } else this._relocalizeLoading();
  }

  attributeChangedCallback(name) {
    if (this._reflecting) return;
    if (name === 'lang') {
      if (this.isConnected) this._relocalize();
      return;
    }
    if (name === 'theme') return;
    try {
      if (this._readAttribute(name) && this._session) this._applyAttribute(name);
    } catch (err) {
      this._problem(name, err); // never let an attribute throw into the page
    }
  }

  /** Read one attribute through the parser; a refused value keeps what the element had and is shown. */
  _readAttribute(name) {
    const v = this.getAttribute(name);
    if (v === null && name === 'memory') this._memory = null; // removed: the memory's panel closes
    if (v === null) return name === 'memory';
    try {
      this._take(name, parseAttribute(name, v));
      this._problem(name, null);
      return true;
    } catch (err) {
      this._problem(name, err);
      return false;
    }
  }

  /** Take an attribute's parsed value (a fact or memory must exist: a RangeError names it otherwise). */
  _take(name, val) {
    if (name === 'facts') {
      this._idx = indexFacts(val);
      this._fact = 0;
      this._memory = null;
    } else if (name === 'seed') this._sizes.seed = val;
    else if (name === 'd-ff') {
      this._sizes.dff = val;
      if (this._memory !== null && this._memory >= val) this._memory = null;
    } else if (name === 'fact') {
      const [s, r] = val;
      const f = this._idx.facts.findIndex((x) => x.subject === s && x.relation === r);
      if (f < 0) throw localizedError(RangeError, 'lab.err.noFact', { subject: s, relation: r });
      this._fact = f;
    } else {
      if (val >= this._sizes.dff) {
        throw localizedError(RangeError, 'lab.err.memory', { dff: String(this._sizes.dff), got: String(val) });
      }
      this._memory = val;
    }
  }

  /** An attribute changed once the session runs: a new model for new facts or d_ff, a reset for a seed. */
  _applyAttribute(name) {
    if (name === 'facts' || name === 'd-ff') this._rebuildSession();
    else if (name === 'seed') this._reset();
    else this._update();
  }

  async _rebuildSession() {
    this.pause();
    this.stopMeasure();
    this._parts = null;
    await this._newSession();
    if (!this._ready) return;
    this._build();
    this._update();
  }
  // ---- the public interface ----------------------------------------------------------------------------------

  /** The facts in use, [{ subject, relation, object }]; set text ("Japan | capital | Tokyo" lines) or an array. */
  get facts() {
    return this._idx.facts.map((f) => ({ ...f }));
  }
  set facts(v) {
    this.setAttribute('facts', formatFacts(parseFacts(v))); // a refused list throws and changes nothing
  }
  get seed() {
    return this._sizes.seed;
  }
  set seed(v) {
    this._setText('seed', v);
  }
  get dff() {
    return this._sizes.dff;
  }
  set dff(v) {
    this._setText('d-ff', v);
  }
  /** The fact inspected, "Japan · capital" (set "subject · relation" or "subject | relation"). */
  get fact() {
    const f = this._idx.facts[this._fact];
    return `${f.subject} · ${f.relation}`;
  }
  set fact(v) {
    this._setText('fact', v);
  }
  /** The memory shown, a number below d_ff, or null (set null to close it). */
  get memory() {
    return this._memory;
  }
  set memory(v) {
    if (v === null || v === undefined) this.removeAttribute('memory');
    else this._setText('memory', v);
  }

  /**
   * A property set: a number or text goes to its attribute (and its parser); anything else (a Symbol, an object,
   * a BigInt) is refused and said like a refused attribute, the element keeping what it had.
   */
  _setText(name, v) {
    if (typeof v === 'string' || typeof v === 'number') this.setAttribute(name, String(v));
    else this._problem(name, localizedError(TypeError, 'errors.mustBeString', { name, type: typeof v }));
  }
  /** The trainer (ffn.createMemoryModel's object) the lab runs, or null before the kernels are loaded. */
  get trainer() {
    return this._session?.model ?? null;
  }
  /** True while training runs (in the worker, or in main-thread slices). */
  get training() {
    return this._running;
  }
  /** The state ffn-change carries: training figures, the fact and memory inspected, the last edit. */
  get state() {
    const s = this._session;
    if (!s || !this._parts) return null; // not ready yet
    const last = s.last ?? { step: 0, loss: NaN, accuracy: 0, correct: 0, finite: true };
    const f = this._idx.facts[this._fact];
    return {
      step: last.step,
      loss: last.loss,
      accuracy: last.accuracy,
      stored: last.correct,
      nFacts: s.nFacts,
      dff: this._sizes.dff,
      seed: this._sizes.seed,
      training: this._running,
      measuring: !!this._measuring,
      driver: this._driver?.kind ?? null,
      fact: { index: this._fact, ...f },
      memory: this._memory,
      edited: s.edited,
      edits: { rankOne: s.edits.rankOne, fineTune: s.edits.fineTune },
      capacity: this._capacityResults.slice(),
    };
  }

  /**
   * Train until every fact is stored (or MAX_STEPS; once they are, 100 steps more), or pause(). In a worker where
   * the page allows one, else in slices of the main thread. Resolves to the state once training stops.
   */
  train() {
    if (!this._session || this._running) return this._whenSettled();
    this.stopMeasure();
    this._running = true;
    this._updateTraining();
    this._withDriver((d) => {
      const s = this._session;
      if (this._running)
        d.train(s.allStored ? { until: s.last.step + 100, stopWhenStored: false } : { until: MAX_STEPS });
    });
    return this._whenSettled();
  }

  pause() {
    if (!this._running) return;
    if (this._driver) this._driver.pause();
    else {
      this._running = false; // the driver is still starting: it will not run
      this._updateTraining();
      this._settle();
    }
  }

  /** One training step; resolves to the state after it. */
  step() {
    if (!this._session || this._running) return this._whenSettled();
    this.stopMeasure();
    this._running = true;
    this._withDriver((d) => this._running && d.step());
    return this._whenSettled();
  }

  /** Fresh weights from the seed. */
  reset() {
    this._reset();
  }

  _reset() {
    if (!this._session) return;
    this._running = false;
    if (this._driver) this._driver.reset(this._sizes.seed);
    else this._session.reset(this._sizes.seed);
    this._settle();
    this._update();
  }

  /** Measure the capacity (each size of CAPACITY_SIZES trained CAPACITY_STEPS steps); resolves when done. */
  measure() {
    if (!this._session) return this._whenSettled();
    if (!this._measuring) {
      this.pause();
      this._capacityResults = [];
      this._measuring = true;
      this._withDriver((d) => this._measuring && d.capacity());
      this._updateCapacity();
    }
    return this._whenSettled();
  }

  stopMeasure() {
    if (!this._measuring) return;
    this._driver?.stopCapacity();
    this._measuring = false;
    this._updateCapacity();
    this._settle();
  }

  // ---- inspecting, editing, capacity ---------------------------------------------------------------------------

  /** Filter the fact list by a search text (at most 200 characters are used). */
  _filter(text) {
    this._query = String(text).slice(0, 200);
    view.fillList(this._tt, this._tr, this._parts.inspect, this._idx, this._query, this._fact);
  }

  /** Inspect fact f (from the list or the search box). */
  _pick(f) {
    if (!Number.isInteger(f) || f < 0 || f >= this._idx.facts.length || f === this._fact) return;
    this._fact = f;
    this._update();
  }

  /**
   * Edit the inspected fact to the chosen new object (the edit section's list) by 'rankOne' or 'fineTune', from the
   * trained weights (training pauses first). Resolves to the edit's outcome (state.edits), or null.
   */
  async edit(method) {
    if (!this._session || (method !== 'rankOne' && method !== 'fineTune')) return null;
    this.pause();
    this.stopMeasure();
    await this._whenSettled();
    const s = this._session;
    const ed = this._parts?.edit;
    if (!ed) return null;
    if (!s.last) {
      ed.status.textContent = this._t('editFirst');
      return null;
    }
    const newObject = Number(ed.object.value);
    const f = this._fact;
    // in the worker where there is one (train-worker.js), else here
    const r = await new Promise((ok) => this._withDriver((driver) => driver.edit(method, f, newObject).then(ok)));
    if (!r || this._session !== s) return null;
    const fact = view.factLabel(this._tt, this._idx, f, newObject);
    ed.status.textContent = this._t('edited', { method: this._t(method), fact });
    this._update();
    return r;
  }

  /** Undo the edit: the trained weights back, every bit. */
  undo() {
    if (!this._session?.undo()) return false;
    this._parts.edit.status.textContent = this._t('undone');
    this._update();
    return true;
  }

  // ---- drawing ------------------------------------------------------------------------------------------------

  /** Build the view anew (first time, and in a new language). */
  _build() {
    for (const n of [...this._root.childNodes]) {
      if (n.nodeName !== 'STYLE' && !n.classList?.contains('error')) n.remove();
    }
    this._tt = (key, params) => this._t(key, params);
    const t = this._tt;
    const p = {
      train: view.trainSection(t, this._tr, this._sizes),
      inspect: view.inspectSection(t),
      capacity: view.capacitySection(t),
      edit: view.editSection(t),
    };
    this._parts = p;
    this._live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
    const error = this._root.querySelector('.error');
    const title = h('p', { class: 'title', text: t('title', { n: this._tr.int(this._idx.facts.length) }) });
    const nodes = [title, p.train.el, p.inspect.el, p.capacity.el, p.edit.el, this._live];
    if (error) error.before(...nodes);
    else this._root.append(...nodes);
    p.inspect.search.value = this._query;
    p.inspect.search.setAttribute('maxlength', '200');
    wireTraining(this, p.train);
    wireInspect(this, p.inspect);
    wireEdit(this, p.capacity, p.edit);
    this._filledFor = null;
  }

  /** Draw everything from the session's state, reflect it into attributes and fire ffn-change. */
  _update() {
    if (!this._parts) return;
    this._updateTraining();
    this._updateInspect();
    this._updateCapacity();
    this._updateEdit();
  }

  /** The training part only (each frame while training): buttons, status line, curve; ffn-change. */
  _updateTraining() {
    const p = this._parts.train;
    const s = this._session;
    p.train.textContent = this._t(this._running ? 'pause' : 'train');
    p.train.setAttribute('aria-pressed', String(this._running));
    p.seed.value = String(this._sizes.seed);
    p.dff.value = String(this._sizes.dff);
    p.status.textContent = this._statusText();
    view.drawCurve(p.curve, s.history);
    this._announce();
    this._reflect();
    this._emit();
  }

  _statusText() {
    const s = this._session;
    const tr = this._tr;
    const r = s.last;
    if (!r) return this._t('statusIdle', { n: tr.int(s.nFacts), dff: tr.int(this._sizes.dff) });
    if (!r.finite) return this._t('notFinite');
    const pct = tr.fixed(100 * r.accuracy, 1);
    return this._t('status', {
      step: tr.int(r.step),
      loss: tr.fixed(r.loss, 3),
      stored: tr.int(r.correct),
      n: tr.int(s.nFacts),
      pct,
    });
  }

  /** Say the status line to a screen reader (throttled: at most once a second). */
  _status() {
    if (this._live && this._parts) this._live.textContent = this._parts.train.status.textContent;
  }

  /** The fact list, the reading of the fact inspected and of the memory chosen (not redrawn while training). */
  _updateInspect() {
    const p = this._parts.inspect;
    const t = this._tt;
    if (this._filledFor !== this._idx) {
      view.fillList(t, this._tr, p, this._idx, this._query, this._fact);
      this._filledFor = this._idx;
    } else if (p.list.value !== String(this._fact)) p.list.value = String(this._fact);
    if (this._running) return;
    const s = this._session;
    const r = s.inspect(this._fact);
    view.drawReading(t, this._tr, p.reading, this._idx, r, this._sizes.dff);
    if (this._memory === null) {
      p.memory.replaceChildren();
      return;
    }
    view.drawMemory(t, this._tr, p.memory, this._idx, this._memory, s.memory(this._memory), s.stats());
  }

  _updateCapacity() {
    if (!this._parts) return;
    const p = this._parts.capacity;
    p.measure.textContent = this._t(this._measuring ? 'stopMeasure' : 'measure');
    p.measure.setAttribute('aria-pressed', String(!!this._measuring));
    view.drawCapacity(this._tt, this._tr, p, this._capacityResults, CAPACITY_SIZES, CAPACITY_STEPS);
  }

  /** The edit section: the fact, the objects of its relation to choose from, the outcomes side by side. */
  _updateEdit() {
    const p = this._parts.edit;
    const idx = this._idx;
    const f = this._fact;
    p.fact.textContent = view.factLabel(this._tt, idx, f);
    if (this._objectsFor !== `${f}|${this._tr.lang}` || !p.object.options.length) {
      const choices = objectChoices(idx, f);
      p.object.replaceChildren(...choices.map((o) => h('option', { value: String(o), text: idx.objects[o] })));
      p.object.value = String(defaultObject(idx, f, choices));
      this._objectsFor = `${f}|${this._tr.lang}`;
    }
    p.undo.disabled = !this._session.edited;
    view.drawEdits(this._tt, this._tr, p.results, idx, this._session.edits);
  }

  /** Write the state into the attributes (without reading them back). */
  _reflect() {
    const f = this._idx.facts[this._fact];
    const want = {
      seed: String(this._sizes.seed),
      'd-ff': String(this._sizes.dff),
      fact: `${f.subject} · ${f.relation}`,
      memory: this._memory === null ? null : String(this._memory),
    };
    this._reflecting = true;
    try {
      for (const [k, v] of Object.entries(want)) {
        if (this._problems.has(k)) continue; // a refused value stays as written, and said, until it is changed
        if (v === null) this.removeAttribute(k);
        else if (this.getAttribute(k) !== v) this.setAttribute(k, v);
      }
    } finally {
      this._reflecting = false;
    }
  }

  _emit() {
    const detail = this.state;
    if (detail) this.dispatchEvent(new CustomEvent('ffn-change', { detail }));
  }

  /** Record (or with err null, clear) the problem of one source and show them all. */
  _problem(source, err) {
    setProblem(this._root, 'ffn-memory-lab', this._problems, source, err, this._tr);
  }
}

/** The objects fact f may be edited to: those of its relation (all objects if it has only one), sorted by name. */
export function objectChoices(idx, f) {
  const rel = idx.triples[3 * f + 1];
  const set = new Set();
  for (let g = 0; g < idx.facts.length; g++) if (idx.triples[3 * g + 1] === rel) set.add(idx.triples[3 * g + 2]);
  const list = set.size > 1 ? [...set] : idx.objects.map((_, o) => o);
  return list.sort((a, b) => (idx.objects[a] < idx.objects[b] ? -1 : idx.objects[a] > idx.objects[b] ? 1 : a - b));
}

/** The new object offered first: Paris when it is a choice (the course's example), else the first other one. */
function defaultObject(idx, f, choices) {
  const own = idx.triples[3 * f + 2];
  const paris = choices.find((o) => idx.objects[o] === 'Paris' && o !== own);
  return paris ?? choices.find((o) => o !== own) ?? own;
}

define('ffn-memory-lab', FfnMemoryLab);
