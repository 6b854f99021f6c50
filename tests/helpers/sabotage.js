// Test helper: learner source overriding every built-in the sandbox worker could call after learner code runs.
import assert from 'node:assert/strict';
import { assertPassed } from './report.js';

/*
 * Learner code overrides every built-in the worker could call after learner code runs, right before
 * each of its functions returns (and undoes it when the next call starts, so its own computing works):
 * methods of Array, String, RegExp, Object, JSON, Reflect, Promise (whose overrides call any callback
 * they are handed), Set, typed-array constructors, setters on Object.prototype and Array.prototype for
 * the names the worker uses, and Error.prepareStackTrace. The worker must still send the true results;
 * none of its callbacks (the error handler that posts `done` with the nonce) may reach learner code;
 * and no text it sends may be learner text presented as its own. With functionMethods, Function.prototype's
 * call, apply and bind are overridden too. The direct runs of hardening/bounds.test.js, which keep the
 * worker alive after done, leave them alone: Node's own event code calls them, so overriding them breaks
 * the Node worker's runtime itself once the run is over (the grader ends the worker at done).
 */
export const sabotage = ({ functionMethods }) => String.raw`
const __saved = [];
const __dp = Object.defineProperty;
const __gopd = Object.getOwnPropertyDescriptor;
const __apply = Reflect.apply;
let __grabbed = 0; // callbacks and values the overrides were handed (index loops only: iterators are overridden too)
let __first = 'none';
function __grab(v) {
  __grabbed += 1;
  if (__grabbed === 1) __first = typeof v;
}
function __restore() {
  for (let i = __saved.length - 1; i >= 0; i--) {
    const e = __saved[i];
    if (e[2]) __dp(e[0], e[1], { __proto__: null, ...e[2] }); else delete e[0][e[1]];
  }
  __saved.length = 0;
}
function __sabotage() {
  const boom = (what) => function () { throw new Error('PWNED ' + what); };
  const put = (o, k, d) => {
    __saved[__saved.length] = [o, k, __gopd(o, k)];
    __dp(o, k, { __proto__: null, configurable: true, ...d });
  };
  const replace = (o, names, tag) => {
    for (let i = 0; i < names.length; i++) {
      const name = typeof names[i] === 'symbol' ? names[i].description : names[i];
      put(o, names[i], { value: boom(tag + '.' + name), writable: true });
    }
  };
  // (literal lists only from here: spreading one would call the Array iterator just overridden)
  replace(Array.prototype, [
    'push', 'slice', 'map', 'join', 'concat', 'indexOf', 'includes', 'forEach', 'filter', 'fill', 'splice',
    Symbol.iterator,
  ], 'Array.prototype');
  replace(Array, ['isArray', 'from'], 'Array');
  replace(String.prototype, [
    'slice', 'split', 'indexOf', 'replace', 'startsWith', 'padStart', 'charCodeAt', Symbol.split, Symbol.replace,
  ], 'String.prototype');
  replace(RegExp.prototype, ['exec', 'test', Symbol.match, Symbol.replace], 'RegExp.prototype');
  replace(JSON, ['stringify', 'parse'], 'JSON');
  replace(Object, [
    'keys', 'defineProperty', 'getPrototypeOf', 'getOwnPropertyDescriptor', 'freeze', 'entries', 'assign',
  ], 'Object');
  replace(Reflect, ['apply'], 'Reflect');
  ${functionMethods ? "replace(Function.prototype, ['call', 'apply', 'bind'], 'Function.prototype');" : ''}
  replace(Set.prototype, ['has', 'add', 'delete'], 'Set.prototype');
  replace(ArrayBuffer, ['isView'], 'ArrayBuffer');
  replace(globalThis, ['Number', 'String', 'Float64Array', 'Float32Array', 'RegExp'], 'globalThis');
  const methods = ['then', 'catch', 'finally'];
  for (let i = 0; i < methods.length; i++) {
    const real = Promise.prototype[methods[i]];
    const grabbing = function (...fs) {
      for (let j = 0; j < fs.length; j++) {
        if (typeof fs[j] !== 'function') continue;
        __grab(fs[j]);
        try { fs[j](new Error('PWNED handler')); } catch {}
      }
      return __apply(real, this, fs);
    };
    put(Promise.prototype, methods[i], { writable: true, value: grabbing });
  }
  put(Promise.prototype, 'constructor', { get() { __grab('constructor'); throw new Error('PWNED constructor'); } });
  const names = [
    'k', 'v', 'items', 'entries', 'ok', 'value', 'error', 'refused', 'missing', 'type', 'nonce', 'index',
    'result', 'logs', 'compileError', 'get', 'set', 'wire', 'refusal', 'message', 'name', 'up',
  ];
  const trap = (key) => ({
    get() { __grab('get ' + key); throw new Error('PWNED get ' + key); },
    set(v) { __grab(v); throw new Error('PWNED set ' + key); },
  });
  for (let i = 0; i < names.length; i++) put(Object.prototype, names[i], trap(names[i]));
  for (let k = 0; k < 3; k++) put(Array.prototype, k, trap('[' + k + ']'));
  const prepare = (e, frames) => {
    for (let i = 0; i < frames.length; i++) __grab(frames[i].getFunction());
    throw new Error('PWNED prepareStackTrace');
  };
  put(Error, 'prepareStackTrace', { writable: true, value: prepare });
}
`;

/** The gelu exercise solved correctly, with the overrides in place whenever the worker reads a result. */
export function sabotagedGelu({ functionMethods }) {
  return `${sabotage({ functionMethods })}
function gelu(x) {
  __restore();
  const y = map(x, (z) => 0.5 * z * (1 + erf(z / Math.SQRT2)));
  __sabotage();
  return y;
}
function geluTanh(x) {
  __restore();
  const y = map(x, (z) => 0.5 * z * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (z + 0.044715 * z ** 3))));
  console.log('grabbed', __grabbed, __first);
  __sabotage();
  return y;
}`;
}

/** Check the report of sabotagedGelu: passed, no PWNED anywhere, and its log says no override was handed anything. */
export function checkSabotagedGeluReport(r) {
  assertPassed(r);
  assert.ok(!JSON.stringify(r).includes('PWNED'), JSON.stringify(r).slice(0, 2000));
  assert.ok(r.logs.length > 0 && r.logs.every((l) => l.text === 'grabbed 0 none'), JSON.stringify(r.logs));
}
