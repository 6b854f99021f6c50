// Learner progress (code and status per exercise) under one versioned, namespaced key, with export/import, reset and a pluggable adapter.

export const DEFAULT_STORAGE_KEY = 'ffn-lab:sandbox:v1';
const FORMAT = 'ffn-lab-sandbox-progress';
const VERSION = 1;
const MAX_CODE_CHARS = 100000;

/** An in-memory adapter with the Storage interface; also the fallback when localStorage is blocked. */
export function memoryStorage() {
  const map = new Map();
  return {
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => void map.set(k, String(v)),
    removeItem: (k) => void map.delete(k),
  };
}

const shared = memoryStorage(); // one fallback per page, so elements sharing a key still agree

/** localStorage if it can be used (it throws in sandboxed iframes and with cookies blocked), else null. */
function browserStorage() {
  try {
    const s = globalThis.localStorage;
    if (!s) return null;
    const probe = `${DEFAULT_STORAGE_KEY}:probe`;
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

function emptyState() {
  return { format: FORMAT, version: VERSION, exercises: {} };
}

function cleanEntry(e) {
  if (!e || typeof e !== 'object') return null;
  const out = {};
  if (typeof e.code === 'string') out.code = e.code.slice(0, MAX_CODE_CHARS);
  if (e.status === 'passed' || e.status === 'attempted') out.status = e.status;
  if (typeof e.passedAt === 'string') out.passedAt = e.passedAt.slice(0, 40);
  if (e.solutionShown === true) out.solutionShown = true;
  if (Number.isInteger(e.hintsShown) && e.hintsShown >= 0 && e.hintsShown <= 3) out.hintsShown = e.hintsShown;
  return out;
}

function parseState(text) {
  if (typeof text !== 'string' || !text) return emptyState();
  let raw;
  try {
    raw = JSON.parse(text);
  } catch {
    return emptyState();
  }
  if (!raw || raw.format !== FORMAT || raw.version !== VERSION || typeof raw.exercises !== 'object' || raw.exercises === null) return emptyState();
  const state = emptyState();
  for (const [id, e] of Object.entries(raw.exercises)) {
    const c = cleanEntry(e);
    if (c && /^[\w-]{1,64}$/.test(id)) state.exercises[id] = c;
  }
  return state;
}

/**
 * createProgressStore({ storage, key }): storage is any object with getItem/setItem/removeItem
 * (default localStorage, falling back to memory when blocked), key defaults to 'ffn-lab:sandbox:v1'.
 */
export function createProgressStore({ storage, key = DEFAULT_STORAGE_KEY } = {}) {
  if (typeof key !== 'string' || !key) throw new TypeError('createProgressStore: key must be a non-empty string');
  let backend = storage || browserStorage() || shared;
  let persistent = backend !== shared;
  const read = () => {
    try {
      return parseState(backend.getItem(key));
    } catch {
      backend = shared;
      persistent = false;
      return parseState(backend.getItem(key));
    }
  };
  const write = (state) => {
    const text = JSON.stringify(state);
    try {
      backend.setItem(key, text);
    } catch {
      // Quota exceeded or blocked mid-session: keep working in memory.
      backend = shared;
      persistent = false;
      backend.setItem(key, text);
    }
  };
  return {
    key,
    /** Whether progress survives a reload (false when storage is blocked). */
    get persistent() {
      return persistent;
    },
    get(id) {
      return read().exercises[id] || {};
    },
    update(id, patch) {
      const state = read();
      const next = cleanEntry({ ...(state.exercises[id] || {}), ...patch });
      state.exercises[id] = next;
      write(state);
      return next;
    },
    reset(id) {
      const state = read();
      if (id === undefined) state.exercises = {};
      else delete state.exercises[id];
      write(state);
    },
    /** The whole progress as a JSON string (a learner can save it and import it elsewhere). */
    exportJSON() {
      return JSON.stringify(read(), null, 2);
    },
    /** Merge progress from exportJSON() output; throws a clear error on anything else. */
    importJSON(text, { replace = false } = {}) {
      let raw;
      try {
        raw = JSON.parse(text);
      } catch {
        throw new TypeError('importJSON: the text is not JSON');
      }
      if (!raw || raw.format !== FORMAT) throw new TypeError(`importJSON: not an ffn-lab progress export (format should be "${FORMAT}")`);
      if (raw.version !== VERSION) throw new RangeError(`importJSON: progress version ${raw.version} is not supported (this is version ${VERSION})`);
      const incoming = parseState(text);
      const state = replace ? emptyState() : read();
      Object.assign(state.exercises, incoming.exercises);
      write(state);
      return Object.keys(incoming.exercises).length;
    },
  };
}
