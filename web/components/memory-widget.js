// <ffn-memory-widget>: move a query through a hand-built key-value FFN and watch its memories fire. The element keeps
// the state and its attributes; memory-view.js draws, memory-controls.js turns input into state, memory-model.js
// does the math.
import * as ffn from '../index.js'; // the wasm bytes inlined: nothing for a bundler or server to place
import { FfnElement, define, parsedBy, chainSteps } from '../element-base.js';
import { componentCss, rafThrottle, trailingThrottle, fmt, setProblem } from './styles.js';
import {
  DEFAULT_FACTS,
  DEFAULT_DISTRACTORS,
  HASH_READ_MAX,
  parseAttribute,
  parseFacts,
  formatFacts,
  parseDistractors,
  parseThreshold,
  parseActivation,
  parseK,
  readHashFrom,
  formatHashState,
  clampQuery,
  defaultThreshold,
  buildMemory,
  compute,
} from './memory-model.js';
import { MemoryView, memoryCss } from './memory-view.js';
import { MemoryControls } from './memory-controls.js';
import { localizedError } from '../i18n/index.js';

// Every string the widget shows is in the locale tables (web/i18n/en.js, namespace `memory`).

/** A table entry (FfnElement.properties) whose attribute the model's parser reads. */
const parsed = parsedBy(parseAttribute);
/** A property's value as text through f; null or undefined removes the attribute. */
const orNull = (f) => (v, el) => (v === null || v === undefined ? null : f(v, el));

/** The query given to the property, [x, y], as the attribute's text; anything else is a TypeError. */
function queryText(v) {
  const x = Number(v?.[0]),
    y = Number(v?.[1]);
  if (!Number.isFinite(x) || !Number.isFinite(y)) {
    throw new TypeError(`query must be two finite numbers, got (${x}, ${y})`);
  }
  return `${x},${y}`;
}

export class FfnMemoryWidget extends FfnElement {
  /** The widget's keys in the locale table are memory.* (see _t). */
  static get textPrefix() {
    return 'memory.';
  }

  /**
   * Attributes and properties (see FfnElement.properties). `query` and `token` set the same state, the query's
   * position: the one written last wins (a token attribute stays while the query is on that token).
   */
  static get properties() {
    return {
      ...super.properties,
      facts: parsed('facts', { toText: orNull((v) => formatFacts(parseFacts(v))), get: (el) => el._copyFacts() }),
      distractors: parsed('distractors', {
        toText: orNull((v) => parseDistractors(v).join(', ')),
        get: (el) => [...el._distractors],
      }),
      threshold: parsed('threshold', {
        toText: orNull((v) => String(parseThreshold(v))),
        get: (el) => el._effectiveThreshold(), // the default for the facts unless one was set
      }),
      k: parsed('k', { toText: orNull((v) => String(parseK(v))), get: (el) => el._effectiveK() }),
      activation: parsed('activation', {
        toText: orNull((v) => parseActivation(String(v))),
        get: (el) => el._state.activation,
      }),
      query: parsed('query', { toText: queryText, get: (el) => [el._state.x, el._state.y] }),
      token: parsed('token', {
        toText: orNull((v, el) => el._knownToken(String(v))),
        get: (el) => el._state.token ?? el._pendingToken ?? null,
      }),
      syncHash: parsed('sync-hash', { get: (el) => el._hashKey }),
    };
  }

  constructor() {
    super();
    // threshold and k: null means the default (defaultThreshold of the facts; every memory). token: the token the
    // query was put on (by the attribute, the property or a button), null once it moves elsewhere.
    this._state = { x: 0, y: 1, k: null, threshold: null, activation: 'relu', token: null };
    this._placed = false;
    this._pendingToken = null; // a token attribute written before the memory was built
    this._facts = DEFAULT_FACTS.map((f) => ({ ...f }));
    this._distractors = [...DEFAULT_DISTRACTORS];
    this._hashKey = null;
    this._problems = new Map();
    this._mem = null;
    this._result = null;
    this._root = this._attachStyledShadow(componentCss(memoryCss));
    this._view = new MemoryView(this, this._root);
    this._controls = new MemoryControls(this);
    this._scheduleRender = rafThrottle(() => this._render());
    this._announce = trailingThrottle((text) => {
      if (this._view.live) this._view.live.textContent = text;
    }, 700);
  }

  connectedCallback() {
    super.connectedCallback();
    this._useLanguage();
    this._readHash();
    if (this._ready) {
      this._followWidth();
      return;
    }
    this._load(() => ffn.ready(), {
      loading: () => this._t('loading'),
      // the widget's DOM in one task, its planes (label placement) and state in the next
      ready: () => this._rebuild(true, { planesLater: true }),
      failed: (err) => this._problem('load', err),
    });
  }

  /** Take the language of the element or the page (and the default facts of that language). */
  _useLanguage() {
    this._retranslate();
    if (this.getAttribute('facts') === null) this._facts = this._defaultFacts();
    if (this.getAttribute('distractors') === null) this._distractors = this._defaultDistractors();
  }

  /** The default facts in the widget's language (the built-in English ones if a page's table gives bad ones). */
  _defaultFacts() {
    try {
      return parseFacts(this._t('defaultFacts'));
    } catch {
      return DEFAULT_FACTS.map((f) => ({ ...f }));
    }
  }

  _defaultDistractors() {
    try {
      return parseDistractors(this._t('defaultDistractors'));
    } catch {
      return [...DEFAULT_DISTRACTORS];
    }
  }

  /** The language or its table changed: everything is drawn again in it. */
  _relocalize() {
    this._useLanguage();
    this._problem(null, null);
    if (this._ready) this._rebuild();
    else this._relocalizeLoading();
  }

  /** The last evaluation (kernel outputs and the status line), or null before the wasm is ready. */
  get result() {
    return this._result;
  }

  /** Move the query onto a token by name (the reader's token buttons do this). */
  selectToken(name, { animate = true } = {}) {
    const t = this._mem?.tokens.find((tok) => tok.name === name);
    if (!t) throw new RangeError(`selectToken: no token named ${JSON.stringify(String(name).slice(0, 80))}`);
    this._controls.glideTo(t.pos[0], t.pos[1], animate, () => {
      this._state.token = t.name;
      this._reflect();
    });
  }

  // ---- attributes and state ---------------------------------------------------------------------
  /** An attribute was written (see FfnElement.properties): take its value, and draw once the kernels are here. */
  _apply(name, v) {
    const s = this._state;
    if (name === 'facts') this._facts = v ?? this._defaultFacts();
    else if (name === 'distractors') this._distractors = v ?? this._defaultDistractors();
    else if (name === 'threshold' || name === 'k') s[name] = v;
    else if (name === 'activation') s.activation = v ?? 'relu';
    else if (name === 'query') {
      if (v) this._putQuery(v);
      return;
    } else if (name === 'token') {
      if (v !== null) this._goToToken(v);
      else s.token = this._pendingToken = null; // removed: the query stays, on no token named by the attribute
      return;
    } else if (name === 'syncHash') {
      this._hashKey = v;
      this._readHash(); // the state a link carries; the hash is written on the next change
      if (this._ready) this._rebuild(false);
      return;
    }
    if (name === 'facts' || name === 'distractors') {
      if (this._ready) this._rebuild();
    } else this._changed(name === 'threshold');
  }

  /**
   * The query attribute was written: the query goes there (the attribute then says where, as the widget writes it),
   * and a token attribute no longer says where it is.
   */
  _putQuery([x, y]) {
    Object.assign(this._state, { x, y, token: null });
    this._placed = true;
    this._pendingToken = null;
    this._reflectAttributes({ query: this._queryText(), token: null });
    this._problem('token', null);
    this._changed();
  }

  /** The token attribute was written: the query goes onto that token (once the memory is built). */
  _goToToken(name) {
    this._controls.stop();
    this._pendingToken = name;
    if (!this._mem) return;
    this._applyPendingToken();
    this._changed();
  }

  /** Put the query on the token asked for by the attribute, and write its position into the query attribute. */
  _applyPendingToken() {
    const name = this._pendingToken;
    if (!name) return;
    this._pendingToken = null;
    const t = this._mem.tokens.find((tok) => tok.name === name);
    if (!t) {
      this._problem('token', localizedError(RangeError, 'errors.noToken', { name: JSON.stringify(name) }));
      return;
    }
    Object.assign(this._state, { x: t.pos[0], y: t.pos[1], token: name });
    this._placed = true;
    this._reflectAttributes({ query: this._queryText() });
  }

  /** A token name given to the property: refused (a RangeError) when the memory has no such token. */
  _knownToken(name) {
    if (this._mem && !this._mem.tokens.some((t) => t.name === name)) {
      throw localizedError(RangeError, 'errors.noToken', { name: JSON.stringify(name.slice(0, 80)) });
    }
    return name;
  }

  /** The state changed: draw it once the kernels are here (the memory built again when rebuild), mirror the hash. */
  _changed(rebuild = false) {
    if (!this._ready) return;
    if (rebuild) this._rebuild(false);
    else this._scheduleRender();
    this._writeHash();
  }

  /** Record (or with err null, clear) the problem of one source and show them all. */
  _problem(source, err) {
    setProblem(this._root, 'ffn-memory-widget', this._problems, source, err, this._tr);
  }

  _copyFacts() {
    return this._facts.map((f) => ({ ...f }));
  }

  _effectiveK() {
    const N = this._facts.length;
    const k = this._state.k;
    return k === null ? N : Math.max(0, Math.min(N, k));
  }

  _effectiveThreshold() {
    return this._state.threshold ?? defaultThreshold(this._facts.length);
  }

  /** The reader changed k, the threshold or the activation (memory-controls.js). */
  _set(patch, rebuild = false) {
    Object.assign(this._state, patch);
    this._reflect();
    if (!this._ready) return;
    if (rebuild) this._rebuild(false);
    else this._scheduleRender();
  }

  /** The reader moves the query (memory-controls.js): clamped, drawn on the next frame; _reflect() when done. */
  _setQuery(x, y) {
    Object.assign(this._state, { x: clampQuery(x), y: clampQuery(y), token: null });
    this._placed = true;
    this._scheduleRender();
  }

  _queryText() {
    return `${fmt(this._state.x, 3)},${fmt(this._state.y, 3)}`;
  }

  /** Write the state back into the attributes and the URL hash (after the reader changed it). */
  _reflect() {
    const s = this._state;
    this._reflectAttributes({
      query: this._queryText(),
      k: s.k === null ? null : String(this._effectiveK()),
      threshold: s.threshold === null ? null : String(s.threshold),
      activation: s.activation,
      token: s.token,
    });
    for (const name of ['query', 'token', 'k', 'threshold', 'activation']) this._problem(name, null);
    this._writeHash();
  }

  /** The widget's part of the URL hash, read within bounds: never throws, shows what it ignored. */
  _readHash() {
    const key = this._hashKey;
    if (!key || typeof location === 'undefined') return;
    try {
      const read = readHashFrom(location.hash, key); // throws (shown below) for a hash beyond its bound
      if (!read) {
        this._problem('sync-hash', null);
        return;
      }
      const { state, ignored } = read;
      if (state.query) {
        [this._state.x, this._state.y] = state.query;
        this._placed = true;
        this._pendingToken = null;
        this._state.token = null;
      }
      if (state.k !== undefined) this._state.k = state.k;
      if (state.threshold !== undefined) this._state.threshold = state.threshold;
      if (state.activation !== undefined) this._state.activation = state.activation;
      const problem = ignored.length ? localizedError(TypeError, 'errors.hashIgnored', { parts: ignored }) : null;
      this._problem('sync-hash', problem);
    } catch (err) {
      this._problem('sync-hash', err);
    }
  }

  _writeHash() {
    const key = this._hashKey;
    if (!key || typeof location === 'undefined' || typeof history === 'undefined') return;
    if (location.hash.length > HASH_READ_MAX) return;
    const params = new URLSearchParams(location.hash.slice(1));
    params.set(
      key,
      formatHashState({
        query: [this._state.x, this._state.y],
        k: this._effectiveK(),
        threshold: this._effectiveThreshold(),
        activation: this._state.activation,
      }),
    );
    clearTimeout(this._hashTimer);
    this._hashTimer = setTimeout(() => history.replaceState(null, '', '#' + params.toString()), 200);
  }

  // ---- the view -----------------------------------------------------------------------------------
  /**
   * Build the memory anew and draw it: its DOM too unless dom is false (a new threshold). With planesLater, the
   * planes, controls and state are left to the functions it returns in turn (the first drawing's next steps).
   */
  _rebuild(dom = true, { planesLater = false } = {}) {
    try {
      this._mem = buildMemory(this._facts, this._distractors, this._effectiveThreshold());
    } catch (err) {
      this._problem('facts', err);
      return;
    }
    this._applyPendingToken();
    if (!this._placed) {
      [this._state.x, this._state.y] = this._mem.keyTokens[0].pos;
      this._placed = true;
    }
    if (!dom && this._view.rows) {
      this._view.mem = this._mem;
      this._scheduleRender();
      return;
    }
    this._view.build(this._mem, { planes: !planesLater });
    if (planesLater) return chainSteps([...this._view.layoutSteps(), () => this._finishBuild()]);
    this._finishBuild();
  }

  /** After the DOM is built and the planes are drawn: the controls wired, the state drawn. */
  _finishBuild() {
    this._controls.wire(this._view);
    if (this.isConnected) this._followWidth(); // a new box: the size observer moves to it
    this._render();
  }

  /** Lay the planes out again whenever their width changes (labels keep their real size). */
  _followWidth() {
    const view = this._view;
    this._observeSize(
      view.planesBox,
      rafThrottle(() => {
        const w = view.inFig?.clientWidth;
        if (w && w !== view.laidW) {
          view.layout();
          this._render();
        }
      }),
    );
  }

  /** Evaluate the state with the kernels, draw it, announce it and fire ffn-change. */
  _render() {
    const view = this._view;
    if (!this._mem || !view.rows || !view.inPlane || !view.outPlane) return; // the planes are drawn (see _rebuild)
    const s = this._state;
    const k = this._effectiveK();
    let r;
    try {
      r = compute(ffn, this._mem, { x: s.x, y: s.y, k, activation: s.activation });
    } catch (err) {
      this._problem('compute', err);
      return;
    }
    r.status = view.describe(r);
    this._result = r;
    view.draw(s, k, this._effectiveThreshold(), r);
    this._announce(r.status);
    this.dispatchEvent(new CustomEvent('ffn-change', { detail: r }));
  }
}

define('ffn-memory-widget', FfnMemoryWidget);
