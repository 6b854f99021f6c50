// The LMS's SCORM API for a SCO page: found by the standard discovery walk, called through one guarded wrapper that
// turns a throw, a "false" or an error code into one problem report, so that no LMS fault reaches the learner's page.

/** How many parent windows the walk goes up, from this window and then from its opener (the ADL samples use 7). */
export const API_WALK_LIMIT = 10;

/** Each version's object name and method names (SCORM 1.2 RTE 3.3, SCORM 2004 4th edition RTE 3.1). */
export const VERSIONS = Object.freeze({
  1.2: Object.freeze({
    object: 'API',
    initialize: 'LMSInitialize',
    terminate: 'LMSFinish',
    get: 'LMSGetValue',
    set: 'LMSSetValue',
    commit: 'LMSCommit',
    lastError: 'LMSGetLastError',
    errorString: 'LMSGetErrorString',
  }),
  2004: Object.freeze({
    object: 'API_1484_11',
    initialize: 'Initialize',
    terminate: 'Terminate',
    get: 'GetValue',
    set: 'SetValue',
    commit: 'Commit',
    lastError: 'GetLastError',
    errorString: 'GetErrorString',
  }),
});

/** Error codes a GetValue may give without the LMS being at fault: an element not yet set (2004: 403). */
const QUIET_GET_ERRORS = new Set(['0', '403']);
const SET_OK = new Set(['0']);

/** win[name] if reachable and an object (a cross-origin window throws on access: then null). */
function peek(win, name) {
  try {
    const v = win && win[name];
    return v && (typeof v === 'object' || typeof v === 'function') ? v : null;
  } catch {
    return null;
  }
}

/** From `win` up its parents, at most API_WALK_LIMIT steps: the first window holding `name`, else null. */
function walk(win, name) {
  for (let w = win, i = 0; w && i <= API_WALK_LIMIT; i++) {
    const api = peek(w, name);
    if (api) return api;
    const parent = peek(w, 'parent');
    if (!parent || parent === w) break;
    w = parent;
  }
  return null;
}

/**
 * The LMS API for a SCO in `win`: { api, version } or null. version '2004' or '1.2' looks for that one only; 'auto'
 * (the default) looks for API_1484_11 and then API, each in this window's parents and then its opener's.
 */
export function findScormApi(win = globalThis, version = 'auto') {
  const order = version === 'auto' ? ['2004', '1.2'] : [String(version)];
  for (const v of order) {
    const spec = VERSIONS[v];
    if (!spec) throw new RangeError(`findScormApi: version must be '1.2', '2004' or 'auto'; got ${String(version)}`);
    const api = walk(win, spec.object) || walk(peek(win, 'opener'), spec.object);
    if (api) return { api, version: v };
  }
  return null;
}

/**
 * A guarded session on `api` (version '1.2' or '2004'). Every call returns its value or null and never throws;
 * onProblem({ call, element, code, text, error }) is called for each call that threw, returned "false" or left an
 * error code, and the caller decides how often to tell the learner.
 */
export function scormSession(api, version, onProblem = () => {}) {
  const spec = VERSIONS[version];
  if (!spec) throw new RangeError(`scormSession: version must be '1.2' or '2004'; got ${String(version)}`);
  const lastError = () => {
    try {
      const code = String(api[spec.lastError]() ?? '0');
      if (code === '0' || code === '') return { code: '0', text: '' };
      return { code, text: String(api[spec.errorString](code) ?? '').slice(0, 200) };
    } catch {
      return { code: '?', text: '' };
    }
  };
  /** api[method](...args): its value, or null after reporting what went wrong. */
  const call = (method, args, { quiet = QUIET_GET_ERRORS, ok = (r) => String(r) === 'true', strict = false } = {}) => {
    let r;
    try {
      r = api[method](...args);
    } catch (error) {
      onProblem({ call: method, element: args[0], code: null, text: String(error?.message ?? error), error });
      return null;
    }
    const { code, text } = lastError();
    if (!ok(r) || !quiet.has(code)) {
      onProblem({ call: method, element: args[0], code, text: text || `returned ${JSON.stringify(String(r))}` });
      return ok(r) && !strict ? r : null;
    }
    return r;
  };
  const always = () => true;
  return {
    version,
    initialize: () => call(spec.initialize, ['']) !== null,
    terminate: () => call(spec.terminate, ['']) !== null,
    commit: () => call(spec.commit, ['']) !== null,
    /** The element's value as a string ('' when unset or unreadable). */
    get: (element) => String(call(spec.get, [element], { ok: always }) ?? ''),
    /** Set a value; true when the LMS took it ("true" and no error code). */
    set: (element, value) => call(spec.set, [element, String(value)], { quiet: SET_OK, strict: true }) !== null,
  };
}
