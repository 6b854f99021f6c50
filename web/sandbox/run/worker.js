// The learner-code worker: locks itself down, compiles the learner's source, calls it on the page's inputs and posts
// back bounded plain outputs (never a verdict).
import * as toolkit from './toolkit.js';

/*
 * Protocol (one run per worker; the page spawns a fresh worker each time). In browsers the worker is
 * made by the sandbox frame (frame.html) from blob: URLs, and the frame hands it a MessagePort whose
 * other end only the page holds; everything below goes over that port. In Node it goes over
 * worker_threads' parentPort.
 *   worker -> page  { type: 'ready' }
 *   page -> worker  { type: 'run', nonce, source, exports: [names], calls: [{ fn, args }], limits }
 *                   (limits: maxNumbers, maxDepth, maxKeys of one result; maxRunNumbers of all results together)
 *   worker -> page  { type: 'progress', nonce, index }              before each call
 *   worker -> page  { type: 'result', nonce, index, result }         after each call
 *   worker -> page  { type: 'done', nonce, compileError, logs }
 * The page ignores any message without the run's nonce. This worker never sees expected outputs.
 */

const FILE = 'ffn-exercise-learner.js';
const IS_NODE =
  typeof WorkerGlobalScope === 'undefined' &&
  typeof process === 'object' &&
  !!(process.versions && process.versions.node);

// Everything the worker itself needs, captured before learner code can touch the globals.
const evaluate = globalThis.eval;
const RealFunction = globalThis.Function; // parse-only checks (findImport); learner code gets a blocked one
const realSetTimeout = globalThis.setTimeout;
const ObjectKeys = Object.keys;
const isView = ArrayBuffer.isView;
const isArray = Array.isArray;
const getProto = Object.getPrototypeOf;
const StringCtor = String;
const ErrorCtor = Error;
const TypeErrorCtor = TypeError;
// Node built-ins are loaded through a variable specifier so browser bundlers leave them alone.
const nodeBuiltin = (specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);

let post;
let onFirstMessage;
let vm = null;
let syntaxProbe = null; // set while re-throwing a SyntaxError to learn its position (browsers)

if (IS_NODE) {
  const wt = await nodeBuiltin('node:worker_threads');
  vm = await nodeBuiltin('node:vm');
  const port = wt.parentPort;
  post = port.postMessage.bind(port);
  onFirstMessage = (fn) => port.once('message', fn);
} else {
  const addListener = self.addEventListener.bind(self);
  const removeListener = self.removeEventListener.bind(self);
  // Once listening, ask the frame for the port to the page; its one answer is the only message ever
  // read from `self`. (The frame starts this module from a classic bootstrap with import(), so a message
  // sent before this listener existed would be lost: hence the handshake.)
  const port = await new Promise((resolve) => {
    const handler = (ev) => {
      if (!ev.ports || ev.ports.length !== 1) return;
      removeListener('message', handler);
      resolve(ev.ports[0]);
    };
    addListener('message', handler);
    self.postMessage({ type: 'waiting' });
  });
  post = port.postMessage.bind(port);
  onFirstMessage = (fn) => {
    port.onmessage = (ev) => {
      port.onmessage = null;
      fn(ev.data);
    };
  };
  addListener('error', (ev) => {
    if (!syntaxProbe) return;
    ev.preventDefault();
    const probe = syntaxProbe;
    syntaxProbe = null;
    probe({ line: ev.lineno, column: ev.colno });
  });
}

/* ---------------- lockdown ---------------- */

// The globals learner code must not reach, in the order they are removed: 'stub' for functions learners might
// reasonably call (a stub that says why it fails is pinned in their place), 'hide' for the rest (they simply
// disappear).
const LOCKED_GLOBALS = {
  // the network
  fetch: 'stub',
  XMLHttpRequest: 'stub',
  WebSocket: 'stub',
  WebSocketStream: 'stub',
  EventSource: 'stub',
  WebTransport: 'stub',
  // more code, other threads and channels
  importScripts: 'stub',
  Worker: 'stub',
  SharedWorker: 'stub',
  BroadcastChannel: 'stub',
  // storage, the device, other peers
  indexedDB: 'hide',
  caches: 'hide',
  cookieStore: 'hide',
  navigator: 'hide',
  RTCPeerConnection: 'hide',
  RTCDataChannel: 'hide',
  Notification: 'hide',
  FileSystemHandle: 'hide',
  // the worker's own port to the frame
  close: 'stub',
  postMessage: 'stub',
  // fonts: a FontFace with a url() source is fetched, even from a worker
  FontFace: 'stub',
  fonts: 'hide',
  FontFaceSet: 'hide',
  // Node, Deno and Bun
  process: 'hide',
  require: 'hide',
  module: 'hide',
  Deno: 'hide',
  Bun: 'hide',
  // the worker's own message handler
  onmessage: 'hide',
};
const BLOCKED_GLOBALS = ObjectKeys(LOCKED_GLOBALS);
const STUBBED = new Set(BLOCKED_GLOBALS.filter((name) => LOCKED_GLOBALS[name] === 'stub'));

function blocked(name) {
  const words = name === 'the Function constructor' ? ['functionCtor', {}] : ['blocked', { name }];
  return function () {
    throw toolkit.workerError(ErrorCtor, words[0], words[1]);
  };
}

function hideGlobal(name) {
  // Remove it from the global object and from every prototype on its chain; if it existed, pin a stub that explains.
  let existed = false;
  let obj = globalThis;
  while (obj && obj !== Object.prototype) {
    try {
      const desc = Object.getOwnPropertyDescriptor(obj, name);
      if (desc) {
        existed = true;
        if (!delete obj[name]) Object.defineProperty(obj, name, { value: undefined, writable: false });
      }
    } catch {
      // a non-configurable property we cannot remove; overwritten below where possible
    }
    obj = getProto(obj);
  }
  if (!existed) return;
  try {
    const value = STUBBED.has(name) ? blocked(name) : undefined;
    Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
  } catch {
    // ignore: best effort on exotic globals
  }
}

function lockdown() {
  for (const name of BLOCKED_GLOBALS) hideGlobal(name);
  // MessagePort.postMessage: learner code could otherwise open a channel (Node: reach the parent port).
  try {
    if (typeof MessagePort === 'function') {
      Object.defineProperty(MessagePort.prototype, 'postMessage', {
        value: blocked('postMessage'),
        writable: false,
        configurable: false,
      });
    }
  } catch {
    // ignore
  }
  // No code from strings after this point: eval, the Function constructors, string timers.
  const fnProtos = [
    Function.prototype,
    getProto(async function () {}),
    getProto(function* () {}),
    getProto(async function* () {}),
  ];
  for (const proto of fnProtos) {
    const fake = blocked('the Function constructor');
    fake.prototype = proto;
    Object.defineProperty(proto, 'constructor', { value: fake, writable: false, configurable: false });
  }
  const FakeFunction = blocked('the Function constructor');
  FakeFunction.prototype = Function.prototype;
  Object.defineProperty(globalThis, 'Function', { value: FakeFunction, writable: false, configurable: false });
  Object.defineProperty(globalThis, 'eval', { value: blocked('eval'), writable: false, configurable: false });
  for (const name of ['setTimeout', 'setInterval']) {
    const real = globalThis[name];
    if (typeof real !== 'function') continue;
    const safe = function (cb, ...rest) {
      if (typeof cb !== 'function') throw toolkit.workerError(TypeErrorCtor, 'stringTimer', { name });
      return real.call(globalThis, cb, ...rest);
    };
    Object.defineProperty(globalThis, name, { value: safe, writable: false, configurable: false });
  }
}

/* ---------------- primordials ---------------- */

/*
 * Learner code owns every global and prototype of this worker once it has run: it can replace
 * Array.prototype.push, String.prototype.slice, JSON.stringify, Float64Array, Promise.prototype.then,
 * or put setters on Object.prototype and Array.prototype. Everything the worker does after learner code
 * has started (reading results, describing errors, recording logs, posting messages) therefore goes
 * through the functions captured here, called with Reflect.apply, never through a method looked up on a
 * value; properties are defined with null-prototype descriptors, never assigned; and no promise is
 * chained after learner code has run. So what the worker posts is built by the worker alone, and no
 * learner override is ever handed one of the worker's functions.
 */
const apply = Reflect.apply;
const defineProperty = Object.defineProperty;
const NumberCtor = Number;
const isSafeInteger = Number.isSafeInteger;
const jsonStringify = JSON.stringify;
const stringSlice = String.prototype.slice;
const stringIndexOf = String.prototype.indexOf;
const regexpExec = RegExp.prototype.exec;
const Float64 = Float64Array;
const SYNTAX_ERROR = SyntaxError.prototype;
const TYPED_ARRAY = getProto(Uint8Array.prototype);
const typedArrayTag = Object.getOwnPropertyDescriptor(TYPED_ARRAY, Symbol.toStringTag).get;
const typedArrayLength = Object.getOwnPropertyDescriptor(TYPED_ARRAY, 'length').get;
const realClearTimeout = globalThis.clearTimeout;

const slice = (s, from, to) => apply(stringSlice, s, [from, to]);
const indexOf = (s, what, from) => apply(stringIndexOf, s, [what, from]);
const exec = (re, s) => apply(regexpExec, re, [s]);
/** Append to an array without [[Set]] (which would reach a setter learner code put on Array.prototype). */
const append = (list, value) => defineProperty(list, list.length, data(value));
/** A null-prototype data descriptor: an inherited `get` or `value` (learner setters) cannot change what it says. */
function data(value) {
  return { __proto__: null, value, writable: true, enumerable: true, configurable: true };
}
/** Cut a string to `max` characters plus an ellipsis. */
const cut = (s, max) => (s.length > max ? slice(s, 0, max) + '…' : s);

/** Number of lines (1 + newlines), without split (whose separator lookup learner code can hook). */
function countLines(text) {
  let n = 1;
  for (let i = indexOf(text, '\n', 0); i !== -1; i = indexOf(text, '\n', i + 1)) n += 1;
  return n;
}

/** The 1-based line `k` of `text` (empty when there is none). */
function lineOf(text, k) {
  let start = 0;
  for (let i = 1; i < k; i++) {
    const nl = indexOf(text, '\n', start);
    if (nl === -1) return '';
    start = nl + 1;
  }
  const end = indexOf(text, '\n', start);
  return slice(text, start, end === -1 ? text.length : end);
}

/* ---------------- learner console ---------------- */

const logs = [];
let logChars = 0;
const MAX_LOG_LINES = 200;
const MAX_LOG_CHARS = 20000;

// What console.log shows of a value. It may run learner code (getters, proxies, overridden methods):
// that is the learner's own output, and whatever it returns, record() keeps only a bounded string.
function show(v, depth = 0) {
  try {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean' || v == null || typeof v === 'bigint') return StringCtor(v);
    if (typeof v === 'function') return `[function ${v.name || 'anonymous'}]`;
    if (typeof v === 'symbol') return v.toString();
    if (depth > 3) return '…';
    if (isView(v))
      return `${v.constructor.name}(${v.length}) [${Array.prototype.slice
        .call(v, 0, 20)
        .join(', ')}${v.length > 20 ? ', …' : ''}]`;
    if (isArray(v))
      return `[${v
        .slice(0, 20)
        .map((x) => show(x, depth + 1))
        .join(', ')}${v.length > 20 ? ', …' : ''}]`;
    if (v instanceof Error) return `${v.name}: ${v.message}`;
    const keys = ObjectKeys(v).slice(0, 20);
    return `{ ${keys.map((k) => `${k}: ${show(v[k], depth + 1)}`).join(', ')} }`;
  } catch {
    return '[unprintable]';
  }
}

function installConsole() {
  const record =
    (level) =>
    (...args) => {
      if (logs.length >= MAX_LOG_LINES || logChars >= MAX_LOG_CHARS) return;
      let text = '';
      for (let i = 0; i < args.length && text.length <= 2000; i++) {
        const s = show(args[i]);
        text += (i ? ' ' : '') + (typeof s === 'string' ? s : '[unprintable]');
      }
      text = cut(text, 2000);
      logChars += text.length;
      append(logs, { level, text });
    };
  const fake = {
    log: record('log'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    debug: record('debug'),
  };
  Object.defineProperty(globalThis, 'console', { value: Object.freeze(fake), writable: false, configurable: false });
}

/* ---------------- compile ---------------- */

const HEADER_LINES = 1;

function wrap(source, names, tk) {
  const destructure = `const { ${tk.join(', ')} } = __ffnToolkit;`;
  const exportsList = names.map((n) => `${n}: typeof ${n} === "function" ? ${n} : undefined`).join(', ');
  // Line 1 is the header, so learner line L is line L + 1 of the compiled text.
  return (
    `(function (__ffnToolkit) { "use strict"; ${destructure} return function () {\n` +
    `${source}\n` +
    `;return { ${exportsList} }; }; })\n` +
    `//# sourceURL=${FILE}`
  );
}

const MAX_STACK_CHARS = 20000; // a learner-made stack can be any length; frames worth reading come first

function locate(stack, source) {
  // "ffn-exercise-learner.js:LINE:COL", the learner's frames (V8: "at f (...)", others: "f@..."). A literal
  // is a new RegExp at each evaluation, made without the global RegExp (which learner code can replace).
  const re = /ffn-exercise-learner\.js:(\d+):(\d+)/g;
  const max = countLines(source);
  const text = cut(stack, MAX_STACK_CHARS);
  let m;
  while ((m = exec(re, text)) !== null) {
    const line = NumberCtor(m[1]) - HEADER_LINES;
    if (line >= 1 && line <= max) return { line, column: NumberCtor(m[2]) };
  }
  return null;
}

/**
 * What the worker says (toolkit.js workerText), as the wire carries every text: one message { key, params, text },
 * a key of report.worker with params (plain strings and whole numbers) and its English. The page (protocol.js)
 * checks all three and says the key only while its English is still the text.
 */
const words = toolkit.workerText;

/** A text that has no key (learner code's own error message, the engine's SyntaxError), as a message: report.raw. */
const raw = (text) => ({ key: 'raw', params: { text }, text });

function describeError(err, source) {
  let name = 'Error';
  let message = '';
  let stack = '';
  let what = null; // the worker's own words, when learner code threw no error object
  try {
    if (err !== null && (typeof err === 'object' || typeof err === 'function')) {
      name = StringCtor(err.name ?? 'Error');
      message = StringCtor(err.message ?? '');
      try {
        stack = StringCtor(err.stack ?? ''); // may run Error.prepareStackTrace, which learner code can set
      } catch {
        stack = '';
      }
    } else {
      name = 'thrown value';
      const value = typeof err === 'string' ? jsonStringify(cut(err, 1000)) : StringCtor(err);
      what = words('threwValue', { value });
    }
  } catch {
    what = words('threwUnreadable');
  }
  if (name.length > 100) name = slice(name, 0, 100);
  const where = locate(stack, source);
  if (what !== null) what.text = cut(what.text, 1000); // its own field: no setter runs
  // An object literal: its fields are defined, not assigned, so no setter learner code put on Object.prototype runs.
  const told = what ?? errorMessage(err, cut(message, 1000));
  return { name, message: told, line: where ? where.line : null, column: where ? where.column : null };
}

/**
 * An error object's message as a message of the wire: the toolkit's key and texts when the toolkit threw it (the
 * page says it in the reader's language while `text` is still its English: learner code may change an error it
 * caught, and long texts are cut), else the text as it is (report.raw).
 */
function errorMessage(err, text) {
  const tk = toolkit.toolkitMessage(err);
  if (!tk) return raw(text);
  const params = {};
  const names = ObjectKeys(tk.params);
  for (let i = 0; i < names.length; i++) defineProperty(params, names[i], data(cut(tk.params[names[i]], 200)));
  return { key: tk.key, params, text };
}

/** Whether `err` is a SyntaxError (by prototype, read once; no instanceof, which learner code can hook). */
function isSyntaxError(err) {
  try {
    return err !== null && typeof err === 'object' && getProto(err) === SYNTAX_ERROR;
  } catch {
    return false;
  }
}

/** Calls back with the learner line and column of the SyntaxError in `wrapped` (a callback, not a promise). */
function syntaxLocation(wrapped, source, then) {
  const clamp = (loc) => {
    if (!loc || !(loc.line > 0)) return { line: null, column: null };
    const line = loc.line - HEADER_LINES;
    const max = countLines(source);
    if (line < 1) return { line: 1, column: 1 };
    if (line > max) return { line: max, column: lineOf(source, max).length + 1 };
    return { line, column: loc.column || 1 };
  };
  if (IS_NODE) {
    let loc = null;
    try {
      new vm.Script(wrapped, { filename: FILE });
    } catch (e) {
      // Node prefixes the stack with "file:LINE\n<source line>\n<spaces>^^^".
      const stack = cut(StringCtor(e.stack), MAX_STACK_CHARS);
      const m = exec(/:(\d+)$/, lineOf(stack, 1));
      const caret = indexOf(lineOf(stack, 3), '^', 0);
      if (m) loc = { line: NumberCtor(m[1]), column: caret >= 0 ? caret + 1 : 1 };
    }
    then(clamp(loc));
    return;
  }
  // Browsers report an uncaught SyntaxError's position in the error event: re-throw it uncaught once.
  const timer = realSetTimeout(() => {
    syntaxProbe = null;
    then(clamp(null));
  }, 200);
  syntaxProbe = (loc) => {
    realClearTimeout(timer);
    then(clamp(loc));
  };
  realSetTimeout(() => evaluate(wrapped), 0);
}

/* ---------------- static refusal of import() ---------------- */

// import() is syntax and cannot be switched off at run time, so it is refused before anything runs.
// The word is ignored only inside // and /* */ comments and '...' / "..." strings; everywhere else
// (code, template literals, regular expressions) it is refused, and so is an identifier spelling it
// with \u escapes. The scanner's view is then checked by the engine itself (see findImport).
const ID_CHAR = /[\p{ID_Continue}$\u200c\u200d]/u;
const REGEX_AFTER_WORD = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);
const LINE_END = /[\n\r\u2028\u2029]/;
const isId = (ch) => ch !== undefined && ID_CHAR.test(ch);

function wordsIn(source, from, to, into) {
  for (let j = source.indexOf('import', from); j !== -1 && j + 6 <= to; j = source.indexOf('import', j + 1)) {
    if (!isId(source[j - 1]) && !isId(source[j + 6])) into.push(j);
  }
}

/** Offsets of the word `import`: `code` (refused) and `quiet` (inside a comment or a '/" string). */
function scanImports(src) {
  // prev: the last significant token, '' (start), a punctuator, or 'w:' + word; templates: the brace depth at each
  // open `${`
  const s = { src, n: src.length, i: 0, depth: 0, prev: '', inTemplate: false, templates: [], code: [], quiet: [] };
  while (s.i < s.n) {
    if (s.inTemplate) templateStep(s);
    else if (!quietStep(s) && !braceStep(s)) codeStep(s);
  }
  return { code: s.code, quiet: s.quiet };
}

/** One step inside a template literal's text: an escape, its end, a `${`, or a character (`import` is code). */
function templateStep(s) {
  const { src, i } = s;
  const c = src[i];
  if (c === '\\') {
    s.i += 2;
  } else if (c === '`') {
    s.inTemplate = false;
    s.prev = 'w:`';
    s.i += 1;
  } else if (c === '$' && src[i + 1] === '{') {
    s.templates.push(s.depth);
    s.inTemplate = false;
    s.prev = '{';
    s.i += 2;
  } else {
    if (src.startsWith('import', i) && !isId(src[i - 1]) && !isId(src[i + 6])) s.code.push(i);
    s.i += 1;
  }
}

/** A comment or a '/" string (its words quiet) or a template's start at s.i, stepped over: whether there was one. */
function quietStep(s) {
  const { src, n, i } = s;
  const c = src[i];
  let j;
  if (c === '/' && src[i + 1] === '/') {
    j = i + 2;
    while (j < n && !LINE_END.test(src[j])) j += 1;
  } else if (c === '/' && src[i + 1] === '*') {
    const e = src.indexOf('*/', i + 2);
    j = e === -1 ? n : e + 2;
  } else if (c === '"' || c === "'") {
    j = i + 1;
    while (j < n && src[j] !== c && !LINE_END.test(src[j])) j += src[j] === '\\' ? 2 : 1;
    j = Math.min(n, j + 1);
    s.prev = 'w:str';
  } else if (c === '`') {
    s.inTemplate = true;
    s.i += 1;
    return true;
  } else return false;
  wordsIn(src, i, j, s.quiet);
  s.i = j;
  return true;
}

/** A brace at s.i (a `}` may close a template's `${`), stepped over: whether there was one. */
function braceStep(s) {
  const c = s.src[s.i];
  if (c === '{') {
    s.depth += 1;
    s.prev = '{';
  } else if (c === '}') {
    if (s.templates.length && s.templates[s.templates.length - 1] === s.depth) {
      s.templates.pop();
      s.inTemplate = true;
    } else {
      s.depth -= 1;
      s.prev = '}';
    }
  } else return false;
  s.i += 1;
  return true;
}

/** One step of code: a regex literal (its words are code) or a slash, a word (`import` is code), or a character. */
function codeStep(s) {
  const c = s.src[s.i];
  if (c === '/') regexStep(s);
  else if (isId(c) || c === '\\') wordStep(s);
  else {
    if (!/\s/.test(c)) s.prev = c;
    s.i += 1;
  }
}

function regexStep(s) {
  const { src, n, i, prev } = s;
  const regex =
    prev === '' ||
    (!prev.startsWith('w:') && prev !== ')' && prev !== ']' && prev !== '}') ||
    REGEX_AFTER_WORD.has(prev.slice(2));
  if (!regex) {
    s.prev = '/';
    s.i += 1;
    return;
  }
  let j = i + 1;
  let cls = false;
  while (j < n && !LINE_END.test(src[j])) {
    const ch = src[j];
    if (ch === '\\') {
      j += 2;
      continue;
    }
    j += 1;
    if (ch === '[') cls = true;
    else if (ch === ']') cls = false;
    else if (ch === '/' && !cls) break;
  }
  while (j < n && isId(src[j])) j += 1;
  wordsIn(src, i, j, s.code); // not a comment or a string: refused
  s.prev = 'w:regex';
  s.i = j;
}

function wordStep(s) {
  const { src, n, i } = s;
  let j = i;
  while (j < n) {
    if (isId(src[j])) j += 1;
    else if (src[j] === '\\' && src[j + 1] === 'u') {
      if (src[j + 2] === '{') {
        const e = src.indexOf('}', j);
        j = e === -1 ? n : e + 1;
      } else j += 6;
    } else break;
  }
  if (j === i) {
    s.prev = src[i];
    s.i += 1;
    return;
  }
  const word = src.slice(i, Math.min(j, n)).replace(/\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})/g, (m, a, b) => {
    const cp = parseInt(a || b, 16);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
  });
  if (word === 'import') s.code.push(i);
  s.prev = 'w:' + word;
  s.i = j;
}

function lineColumn(source, at) {
  const before = source.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/** Whether `body` parses as a strict function body (parse only: the Function constructor never runs it). */
function parses(body) {
  try {
    RealFunction('"use strict";\n' + body);
    return true;
  } catch (e) {
    if (e instanceof SyntaxError) return false;
    throw e;
  }
}

/**
 * Returns { refuse: { line, column } } or { source } (the text to run).
 * Every `import` the scanner calls quiet is blanked to `#@@@@#`, which is a syntax error in code but
 * harmless in a comment, string, template text or regular expression. If the blanked text parses,
 * no blanked word was code. If only the blanked text fails, the scanner was wrong: refuse. If the
 * learner text fails too (a syntax error of their own), the blanked text runs, so that its error is
 * reported where it is, and no `import` word is left anywhere in what is compiled.
 */
function findImport(source) {
  const { code, quiet } = scanImports(source);
  if (code.length) return { refuse: lineColumn(source, Math.min(...code)) };
  if (!quiet.length) return { source };
  const blank = (offsets) => {
    let out = source;
    for (const at of offsets) out = out.slice(0, at) + '#@@@@#' + out.slice(at + 6);
    return out;
  };
  const blanked = blank(quiet);
  if (parses(blanked)) return { source };
  if (!parses(source)) return { source: blanked };
  const wrong = quiet.find((at) => !parses(blank([at]))) ?? quiet[0];
  return { refuse: lineColumn(source, wrong) };
}

/* ---------------- bounded serialisation of results ---------------- */

/** A value that is no result: what it is, a message of report.worker.bad. */
const bad = (key, params) => ({ k: 'bad', what: words('bad.' + key, params) });

/** A value that is not an object (undefined, null, a string, a function...) as a value that is no result, else null. */
function notAnObject(v) {
  if (v === undefined) return bad('undefined');
  if (v === null) return bad('null');
  if (typeof v === 'string') return bad('string', { text: jsonStringify(cut(v, 40)) });
  if (typeof v === 'boolean') return bad('boolean', { v: v ? 'true' : 'false' });
  if (typeof v === 'bigint') return bad('bigint');
  if (typeof v === 'symbol') return bad('symbol');
  if (typeof v === 'function') return bad('function');
  return null;
}

/**
 * A typed array (or DataView) `v` in the wire format: its numbers copied into a Float64Array of exactly their
 * count, counted by take(n) (which refuses past the limit) before they are read.
 */
function readTyped(v, take) {
  // The brand (an internal slot, not Symbol.toStringTag or instanceof, which learner code can forge).
  const kind = apply(typedArrayTag, v, []);
  if (kind === undefined) return bad('dataView');
  const n = apply(typedArrayLength, v, []);
  take(n);
  if (kind === 'BigInt64Array' || kind === 'BigUint64Array') return bad('bigIntArray', { type: kind });
  const copy = new Float64(n); // the captured constructor: a buffer of exactly n numbers
  for (let i = 0; i < n; i++) copy[i] = v[i];
  return { k: 'typed', type: kind, data: copy };
}

// Thrown (by identity) to refuse a result; never passes through learner code, so learner code never holds it.
const REFUSED = Object.freeze({});

/**
 * The learner's value -> the wire format (plain objects, dense arrays, exact-size Float64Arrays), and its count of
 * numbers. Learner code may run here (getters, proxy traps) but never gets hold of what is built: every part
 * is made by this function with captured built-ins, so its sizes are the sizes it declares. `left`: the numbers the
 * run's earlier results left of limits.maxRunNumbers; past it (or past maxNumbers) the result is refused.
 */
function serialize(value, { maxNumbers: perResult, maxDepth, maxKeys, maxRunNumbers }, left) {
  const maxNumbers = left < perResult ? left : perResult;
  let numbers = 0;
  let refusal = null;
  // why the result is refused, as a message (see words)
  const refuse = (key, params) => {
    refusal = words(key, params);
    throw REFUSED;
  };
  const tooMany = () =>
    maxNumbers < perResult ? refuse('runNumbers', { max: maxRunNumbers }) : refuse('numbers', { max: maxNumbers });
  // n more numbers (a typed array's): refused past maxNumbers
  const take = (n) => {
    if (n > maxNumbers - numbers) tooMany();
    numbers += n;
  };
  // `up` is the chain of enclosing objects ({ v, up }): a cycle is a value that is its own ancestor.
  const visit = (v, depth, path, up) => {
    if (depth > maxDepth) refuse('deep', { max: maxDepth, path });
    if (typeof v === 'number') {
      numbers += 1;
      if (numbers > maxNumbers) tooMany();
      return { k: 'number', v };
    }
    const scalar = notAnObject(v);
    if (scalar !== null) return scalar;
    for (let a = up; a; a = a.up) if (a.v === v) refuse('cycle', { path });
    if (typeof v.then === 'function') return bad('promise');
    if (isView(v)) return readTyped(v, take);
    const here = { v, up };
    if (isArray(v)) {
      const n = v.length;
      if (typeof n !== 'number' || !(n <= perResult)) {
        // made a string once: a proxy's length may be an object whose toString is learner code
        refuse('array', { n: isSafeInteger(n) ? n : StringCtor(n), max: perResult });
      }
      const items = [];
      for (let i = 0; i < n; i++) append(items, visit(v[i], depth + 1, `${path}[${i}]`, here));
      return { k: 'array', items };
    }
    const keys = ObjectKeys(v);
    if (keys.length > maxKeys) refuse('keys', { n: keys.length, max: maxKeys });
    const entries = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key.length > 64) refuse('longKey', { max: 64 });
      const value = visit(v[key], depth + 1, `${path}.${key}`, here);
      defineProperty(entries, key, data(value));
    }
    return { k: 'object', entries };
  };
  // Both keys always own, so reading them never reaches a getter learner code put on Object.prototype.
  try {
    return { wire: visit(value, 0, 'result', null), numbers, refusal: null }; // numbers: read after the walk
  } catch (err) {
    if (err === REFUSED) return { wire: null, numbers: 0, refusal };
    throw err;
  }
}

/* ---------------- run ---------------- */

/** One call, its result in the wire format; `budget.left`: what the run's results may still hold (numbers). */
function callOne(fns, call, source, limits, budget) {
  let f;
  try {
    f = fns[call.fn];
  } catch {
    f = undefined;
  }
  if (typeof f !== 'function') {
    return {
      ok: false,
      missing: true,
      error: {
        name: 'ReferenceError',
        message: raw(`${call.fn} is not defined: write function ${call.fn}(...) { ... }`), // said by the page
        line: null,
        column: null,
      },
    };
  }
  let out;
  try {
    out = apply(f, undefined, call.args); // not f(...args): spreading calls Array.prototype[Symbol.iterator]
  } catch (err) {
    return { ok: false, error: describeError(err, source) };
  }
  let read;
  try {
    read = serialize(out, limits, budget.left);
  } catch (err) {
    const e = describeError(err, source);
    const message = words('readingThrew', { message: e.message.text });
    return { ok: false, error: { name: e.name, message, line: e.line, column: e.column } };
  }
  if (read.refusal !== null) {
    return { ok: false, refused: true, error: { name: 'Refused', message: read.refusal, line: null, column: null } };
  }
  budget.left -= read.numbers;
  return { ok: true, value: read.wire };
}

/** `export function f` is a habit from modules; blank the keyword out (same length, so positions are unchanged). */
function stripExports(source) {
  return source.replace(
    /^([ \t]*)export([ \t]+)(?=(async[ \t]+)?function\b|const\b|let\b|var\b|class\b)/gm,
    (m, a, b) => a + '      ' + b,
  );
}

// What the page is told when the worker's own code fails: fixed text, never an error's message, which
// learner code may have written (by replacing a built-in the failing code called).
const SANDBOX_FAILED = words('failed'); // made when the worker loads, before learner code
const sandboxFailed = () => ({
  name: 'InternalError',
  message: SANDBOX_FAILED,
  line: null,
  column: null,
});

/**
 * The source did not compile: a SyntaxError, located in the learner's code (syntaxLocation calls back; no learner
 * code ran), or another error thrown while compiling, told by done(compileError).
 */
function compileFailed(err, wrapped, source, done) {
  if (!isSyntaxError(err)) {
    done(describeError(err, source));
    return;
  }
  let message; // the engine's words (no key), or the worker's when the engine's cannot be read
  try {
    message = raw(cut(StringCtor(err.message), 1000));
  } catch {
    message = words('noParse');
  }
  syntaxLocation(wrapped, source, (loc) => {
    try {
      done({ name: 'SyntaxError', message, line: loc.line, column: loc.column });
    } catch {
      done(sandboxFailed());
    }
  });
}

/**
 * One run. Synchronous from the moment learner code may run to the last message: nothing is awaited
 * and no promise is chained, so no override of Promise.prototype can be handed a callback of the worker.
 * The one asynchronous path, locating a SyntaxError, is taken only when the source did not compile
 * (no learner code ran) and it calls back rather than resolving a promise.
 */
function run(msg) {
  const { nonce, exports: names, calls } = msg;
  const { maxNumbers, maxDepth, maxKeys, maxRunNumbers: run } = msg.limits;
  const maxRunNumbers = isSafeInteger(run) && run >= 0 ? run : Infinity; // a page without it: no bound of the run's
  const limits = { maxNumbers, maxDepth, maxKeys, maxRunNumbers };
  const budget = { __proto__: null, left: maxRunNumbers }; // numbers the run's results may still hold
  const stripped = stripExports(String(msg.source));
  const done = (compileError) => post({ type: 'done', nonce, compileError, logs });

  const imp = findImport(stripped);
  if (imp.refuse) {
    done({ name: 'Refused', message: words('importRefused'), line: imp.refuse.line, column: imp.refuse.column });
    return;
  }
  const source = imp.source;

  const tkNames = toolkit.toolkitNames;
  const tk = Object.freeze(Object.fromEntries(tkNames.map((n) => [n, toolkit[n]])));
  const wrapped = wrap(source, names, tkNames);

  // Lock down before compiling: a source that closes the wrapper early runs its code at compile time.
  lockdown();
  installConsole();

  let factory;
  try {
    factory = evaluate(wrapped);
  } catch (err) {
    compileFailed(err, wrapped, source, done);
    return;
  }

  let fns;
  try {
    fns = factory(tk)();
  } catch (err) {
    const e = describeError(err, source);
    done({ name: e.name, message: e.message, line: e.line, column: e.column, phase: 'top-level' });
    return;
  }
  if (fns === null || typeof fns !== 'object') {
    done({ name: 'Refused', message: words('closesEarly'), line: null, column: null });
    return;
  }

  for (let i = 0; i < calls.length; i++) {
    post({ type: 'progress', nonce, index: i });
    post({ type: 'result', nonce, index: i, result: callOne(fns, calls[i], source, limits, budget) });
  }
  done(null);
}

onFirstMessage((msg) => {
  if (!msg || msg.type !== 'run') return;
  const nonce = msg.nonce;
  try {
    run(msg);
  } catch {
    try {
      post({ type: 'done', nonce, compileError: sandboxFailed(), logs: [] });
    } catch {
      // nothing else to do; the page times out
    }
  }
});

post({ type: 'ready' });
