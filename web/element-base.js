// The foundation of the four elements: one base class (styles, language, the kernels' loading), define, DOM helpers.
import { watchLanguage, langOf, loadStrings, stringsLoaded, translator } from './i18n/index.js';
import { drawSoon } from './element-queue.js';

// ---- styles -------------------------------------------------------------------------------------------------

// Public theming variables (set them on the element or any ancestor):
//   --ffn-font, --ffn-mono, --ffn-fg, --ffn-muted, --ffn-bg, --ffn-surface, --ffn-border, --ffn-grid,
//   --ffn-accent, --ffn-fire, --ffn-leak, --ffn-focus, --ffn-radius.
// Each internal --_x reads the public one and falls back to a default that passes WCAG contrast
// (4.5:1 for text, 3:1 for marks) against the default background in both schemes.
// Dark-scheme defaults, used both for a dark preference and for theme="dark".
const darkDefaults = `
  --_fg: var(--ffn-fg, #ececf1);
  --_muted: var(--ffn-muted, #b4b4bf);
  --_bg: var(--ffn-bg, #17181c);
  --_surface: var(--ffn-surface, #23242a);
  --_border: var(--ffn-border, #6e6e7a);
  --_grid: var(--ffn-grid, #3a3b44);
  --_accent: var(--ffn-accent, #7db3ff);
  --_fire: var(--ffn-fire, #ffa05c);
  --_leak: var(--ffn-leak, #c9a2ff);
  --_focus: var(--ffn-focus, #9cc5ff);
`;

// Light-scheme defaults (the shared variables themselves).
const lightDefaults = `
  --_font: var(--ffn-font, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif);
  --_mono: var(--ffn-mono, ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace);
  --_fg: var(--ffn-fg, #1b1b1f);
  --_muted: var(--ffn-muted, #52525b);
  --_bg: var(--ffn-bg, #ffffff);
  --_surface: var(--ffn-surface, #f4f4f6);
  --_border: var(--ffn-border, #8a8a94);
  --_grid: var(--ffn-grid, #d4d4da);
  --_accent: var(--ffn-accent, #1d5fc4);
  --_fire: var(--ffn-fire, #b33f00);
  --_leak: var(--ffn-leak, #7a3db8);
  --_focus: var(--ffn-focus, #1d5fc4);
  --_radius: var(--ffn-radius, 8px);`;

/**
 * The theme every element's stylesheet opens with: the --_x variables from the public --ffn-* ones, light and dark
 * defaults, and theme="light|dark" over prefers-color-scheme.
 */
export const themeCss = `
:host {${lightDefaults}
}
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) {${darkDefaults}}
}
:host([theme="dark"]) {${darkDefaults}}
:host([ffn-strings-loading]) { visibility: hidden; }
`;

const made = new WeakMap(); // a window's CSSStyleSheet constructor -> Map(css text -> sheet)
const ours = new WeakSet(); // the sheets made here

/**
 * Style root (a shadow root) with css for the document its host is in now. Where the browser has
 * constructable stylesheets, one sheet per window and css text is shared by every root (a host page's
 * CSP then needs no 'unsafe-inline' in style-src); elsewhere a <style> element carries the css.
 * A sheet can only be adopted in the document whose window made it, and a host moved to another
 * document (an iframe's, a popup's) loses it: FfnElement's adoptedCallback styles it again.
 */
export function styleShadow(root, css) {
  for (const c of root.children) {
    if (c.localName === 'style' && c.hasAttribute('data-ffn-style')) return; // moves with the root
  }
  const doc = root.ownerDocument;
  const Sheet = doc.defaultView?.CSSStyleSheet;
  if (typeof Sheet === 'function' && 'adoptedStyleSheets' in root && 'replaceSync' in Sheet.prototype) {
    try {
      let byCss = made.get(Sheet);
      if (!byCss) made.set(Sheet, (byCss = new Map()));
      let sheet = byCss.get(css);
      if (!sheet) {
        sheet = new Sheet();
        sheet.replaceSync(css);
        ours.add(sheet);
        byCss.set(css, sheet);
      }
      root.adoptedStyleSheets = [...root.adoptedStyleSheets.filter((s) => !ours.has(s)), sheet];
      return;
    } catch {
      /* fall through to <style> */
    }
  }
  const style = doc.createElement('style');
  style.setAttribute('data-ffn-style', '');
  style.textContent = css;
  root.prepend(style);
}

// ---- DOM helpers ---------------------------------------------------------------------------------------------

/**
 * Create an HTML element in doc. props: 'class', 'text' (textContent), 'hidden' (the property), 'on<event>' with a
 * function (a listener); anything else an attribute. kids (nodes or strings, or arrays of them) are appended.
 */
export function createEl(doc, tag, props = {}, ...kids) {
  const el = doc.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'hidden') el.hidden = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  el.append(...kids.flat());
  return el;
}

/** createEl in the page's document. */
export function htmlEl(tag, props = {}, ...kids) {
  return createEl(document, tag, props, ...kids);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Create an SVG element with attributes, appended to parent if given. */
export function svgEl(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

// ---- attributes and properties, declared once -----------------------------------------------------------------

const tables = new WeakMap(); // an element class -> Map(attribute name -> { name, attribute, ...spec })

/**
 * The attribute table of an element class, made once from its static `properties` (see FfnElement.properties); the
 * accessors of each property are defined on the class's prototype then.
 */
function attributeTable(cls) {
  let table = tables.get(cls);
  if (table) return table;
  table = new Map();
  for (const [name, spec] of Object.entries(cls.properties)) {
    const attribute = spec.attribute ?? name;
    table.set(attribute, { ...spec, name, attribute });
    Object.defineProperty(cls.prototype, name, {
      configurable: true,
      get() {
        return spec.get ? spec.get(this) : this.getAttribute(attribute);
      },
      set(v) {
        this._setProperty(attribute, v);
      },
    });
  }
  tables.set(cls, table);
  return table;
}

/**
 * The table entries (FfnElement.properties) of a model's attributes: entry(attribute, spec) reads the attribute with
 * parseAttribute(attribute, text), the model's parser.
 */
export function parsedBy(parseAttribute) {
  return (attribute, spec) => ({ attribute, parse: (v) => parseAttribute(attribute, v), ...spec });
}

/** A value given to a property as its attribute's text: null (or undefined) removes the attribute. */
const asText = (v) => (v === null || v === undefined ? null : String(v));

// ---- the elements' base class and registration ----------------------------------------------------------------

/**
 * The base of the four elements (the HTMLElement class, or a stand-in so that modules can be imported in Node for
 * their models). It keeps the shadow root styled, follows the page's language, and runs the kernels' loading:
 * state null, then 'loading', then 'ready' (ffn-ready fires, once per element) or 'error'.
 */
export class FfnElement extends (globalThis.HTMLElement ?? class {}) {
  constructor() {
    super();
    this._tr = translator('en'); // the element's language's translator, from the first connection on (see _t)
  }

  /**
   * The element's attributes and their properties, declared once (as lit's `static properties`): property name ->
   * { attribute (its name, default the property's), parse(text) (the attribute's text -> the value the element uses;
   * throws a TypeError/RangeError naming the attribute), toText(value, el) (a value given to the property -> the
   * attribute's text, null to remove it, undefined when refused; default String), get(el) (what the property reads;
   * default the attribute's text) }. A property set writes the attribute (after parse has accepted its text, so that
   * a bad value throws and changes nothing); every write of an attribute with a parser, the markup's included, in
   * the order they come, reaches _apply(name, value, text) (null when removed), a refused one _problem(attribute,
   * error). The element writes its state back into attributes with _reflectAttributes, which reaches nothing.
   */
  static get properties() {
    return { theme: {} }; // theme="light|dark": read by the stylesheet only
  }

  static get observedAttributes() {
    return [...attributeTable(this).keys(), 'lang'];
  }

  attributeChangedCallback(attribute, old, value) {
    if (this._reflecting) return;
    if (attribute === 'lang') {
      if (this.isConnected) this._relocalize();
      return;
    }
    const spec = attributeTable(this.constructor).get(attribute);
    if (!spec?.parse) return;
    try {
      const v = value === null ? null : spec.parse(value);
      this._problem(attribute, null);
      this._apply(spec.name, v, value);
    } catch (err) {
      this._problem(attribute, err); // never let an attribute throw into the page
    }
  }

  /** Read every attribute of the table the element has now, in the order of names (default: the table's). */
  _readAttributes(names = [...attributeTable(this.constructor).keys()]) {
    for (const name of names) {
      if (this.hasAttribute(name)) this.attributeChangedCallback(name, null, this.getAttribute(name));
    }
  }

  /** A property set (see properties): its value checked and written into its attribute. */
  _setProperty(attribute, v) {
    const spec = attributeTable(this.constructor).get(attribute);
    const text = (spec.toText ?? asText)(v, this);
    if (text === undefined) return;
    if (text === null) {
      this.removeAttribute(attribute);
      return;
    }
    spec.parse?.(text);
    this.setAttribute(attribute, text);
  }

  /** Write the element's state into its attributes ({ attribute: text, or null to remove it }) without reading it. */
  _reflectAttributes(entries) {
    const was = this._reflecting;
    this._reflecting = true;
    try {
      for (const [name, text] of Object.entries(entries)) {
        if (text === null) this.removeAttribute(name);
        else if (this.getAttribute(name) !== text) this.setAttribute(name, text);
      }
    } finally {
      this._reflecting = was;
    }
  }

  /** An attribute of the table was written: (property name, its parser's value, its text; both null if removed). */
  _apply() {}

  /** Record (or with err null, clear) the problem of one source (an attribute) and show them. */
  _problem() {}

  /** The prefix of the element's keys in the locale table ('plot.' for plot.*); '' where keys are given whole. */
  static get textPrefix() {
    return '';
  }

  /** Take the translator of the element's language now (langOf). */
  _retranslate() {
    this._tr = translator(langOf(this));
  }

  /** Text of a key (under the class's textPrefix) of the locale table, in the element's language (this._tr). */
  _t(key, params) {
    return this._tr.t(this.constructor.textPrefix + key, params);
  }

  /** Attach the open shadow root, styled with css (styled again after a move to another document). */
  _attachStyledShadow(css) {
    const root = this.attachShadow({ mode: 'open' });
    this._css = css;
    styleShadow(root, css);
    return root;
  }

  /** Style the shadow root again: after a move to another document, or once its children were replaced. */
  _restyle() {
    if (this._css && this.shadowRoot) styleShadow(this.shadowRoot, this._css);
  }

  /** Moved to another document: its window must make the stylesheet anew. */
  adoptedCallback() {
    this._restyle();
  }

  /** Follow the language of the element and the page (lang attributes, defineStrings): see _relocalize. */
  connectedCallback() {
    this._stopLang ??= watchLanguage(this, () => this._relocalize());
    this._upgradeProperties();
    this._strings();
  }

  /** A property a page set on the element before its class was defined: set again, through the accessor. */
  _upgradeProperties() {
    for (const { name, attribute } of attributeTable(this.constructor).values()) {
      if (!Object.hasOwn(this, name)) continue;
      const v = this[name];
      delete this[name];
      try {
        this[name] = v;
      } catch (err) {
        this._problem(attribute, err);
      }
    }
  }

  /**
   * The built-in strings of the element's language (loaded on first use: web/i18n/index.js's loadStrings). Until
   * they are here the element is drawn in English and hidden (attribute ffn-strings-loading), so that a reader of
   * another language never sees English flash; it is drawn again in its language when they arrive (or stays in
   * English, shown, if they cannot be loaded).
   */
  _strings() {
    const lang = langOf(this);
    if (stringsLoaded(lang)) return Promise.resolve();
    this.setAttribute('ffn-strings-loading', '');
    const shown = () => this.removeAttribute('ffn-strings-loading');
    return loadStrings(lang).then(shown, shown);
  }

  disconnectedCallback() {
    this._stopLang?.();
    this._stopLang = null;
    this._sizeObserver?.disconnect();
    this._sizeObserver = null;
    this._sizeTarget = null;
  }

  /**
   * Call cb (a ResizeObserver callback) whenever target's size changes, until the element is disconnected. One
   * observer an element: a call for the target it observes, without ResizeObserver, or without a target does nothing;
   * a call for another target (the element drew itself anew) moves the observer to it.
   */
  _observeSize(target, cb) {
    if (typeof ResizeObserver !== 'function' || !target || this._sizeTarget === target) return;
    this._sizeObserver?.disconnect();
    this._sizeObserver = new ResizeObserver(cb);
    this._sizeObserver.observe(target);
    this._sizeTarget = target;
  }

  /** The language or its table changed: an element draws everything again in it. */
  _relocalize() {}

  /** True once the kernels are loaded. */
  get _ready() {
    return this._loadState === 'ready';
  }

  /**
   * Load the kernels (kernels(): a promise of them), once at a time: a call while loading or once ready does
   * nothing, a call after an error tries again. While loading, `loading()` (a text), if given, is shown as a
   * paragraph .loading (see _relocalizeLoading). Once the kernels and the language's strings are here, `ready()` runs
   * in a task of its own (drawSoon: soon near the viewport, else in idle time) and ffn-ready fires (once per element;
   * not when ready() returns false), or `failed(err)` runs. A ready() that returns a function leaves the rest of the
   * first drawing to it, in a later task (_readySteps): the element is ready after the last step.
   */
  _load(kernels, { loading = null, ready = () => {}, failed = () => {} } = {}) {
    if (this._loadState === 'loading' || this._loadState === 'ready') return;
    this._loadState = 'loading';
    this._loadingText = loading;
    if (loading) this.shadowRoot.append(createEl(this.ownerDocument, 'p', { class: 'muted loading', text: loading() }));
    Promise.all([new Promise((resolve) => resolve(kernels())), this._strings()]).then(
      () => drawSoon(this, () => this._readySteps(ready)),
      (err) => {
        this._loadState = 'error';
        failed(err);
      },
    );
  }

  /**
   * One step of the first drawing (drawSoon's job): a step that returns a function leaves the rest to it, in a task
   * of its own; after the last, the element is ready (and ffn-ready fires unless the last step returned false).
   */
  _readySteps(step) {
    const rest = step();
    if (typeof rest === 'function') return () => this._readySteps(rest);
    this._loadState = 'ready';
    if (rest !== false) this._fireReady();
  }

  /** Show the loading paragraph's text again (in a new language). */
  _relocalizeLoading() {
    if (this._loadingText) this.shadowRoot?.querySelector('.loading')?.replaceChildren(this._loadingText());
  }

  /** Fire ffn-ready, once per element. */
  _fireReady() {
    if (this._readyFired) return;
    this._readyFired = true;
    this.dispatchEvent(new CustomEvent('ffn-ready', { bubbles: true }));
  }
}

/**
 * Steps (functions) as a chain for a first drawing (FfnElement._readySteps): the function returned runs the first
 * step and returns the next, each in a task of its own, while alive() holds; undefined when there is no step.
 */
export function chainSteps(steps, alive = () => true) {
  const at = (i) => () => {
    if (!alive()) return undefined;
    steps[i]();
    return i + 1 < steps.length ? at(i + 1) : undefined;
  };
  return steps.length ? at(0) : undefined;
}

/** Register a custom element once: safe to call again; false (and nothing done) where there are none, as in Node. */
export function define(name, cls) {
  const registry = globalThis.customElements;
  if (!registry) return false;
  if (!registry.get(name)) registry.define(name, cls);
  return true;
}
