// Runs learner source in a fresh worker (module Worker in browsers, worker_threads in Node) with a hard timeout.

const IS_BROWSER = typeof window === 'object' && typeof Worker === 'function';
// Node built-ins are loaded through a variable specifier so browser bundlers leave them alone.
const nodeBuiltin = (specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);


export const DEFAULT_LIMITS = Object.freeze({ maxNumbers: 200000, maxDepth: 8, maxKeys: 32 });
export const DEFAULT_TIMEOUT_MS = 2000;
const STARTUP_MS = 15000; // loading the worker file is not learner time; this only guards a broken install

function makeNonce() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function spawn(workerUrl) {
  if (IS_BROWSER) {
    // A real file, not a blob: URL (a blob worker would inherit the page's CSP and origin quirks).
    const w = workerUrl ? new Worker(workerUrl, { type: 'module' }) : new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    return {
      onMessage(fn) {
        w.onmessage = (ev) => fn(ev.data);
        w.onmessageerror = () => fn({ type: 'messageerror' });
      },
      onFailure(fn) {
        w.onerror = (ev) => {
          ev.preventDefault();
          fn(new Error(ev.message || 'the exercise worker failed to load'));
        };
      },
      post: (m) => w.postMessage(m),
      terminate: () => w.terminate(),
    };
  }
  const { Worker: NodeWorker } = await nodeBuiltin('node:worker_threads');
  const w = new NodeWorker(workerUrl || new URL('./worker.js', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    stdout: true, // learner output never reaches the host's console
    stderr: true,
  });
  return {
    onMessage(fn) {
      w.on('message', fn);
      w.on('messageerror', () => fn({ type: 'messageerror' }));
    },
    onFailure(fn) {
      w.on('error', (e) => fn(e instanceof Error ? e : new Error(String(e))));
      w.on('exit', (code) => fn(new Error(`the exercise worker exited (code ${code})`)));
    },
    post: (m) => w.postMessage(m),
    terminate: () => {
      w.terminate().catch(() => {});
    },
  };
}

/**
 * Run `calls` against the learner's `source`. Resolves (never rejects on learner behaviour) to
 * { status: 'done' | 'timeout' | 'aborted' | 'crashed', compileError, results (one per call, null if it never ran), logs, lastIndex, ms }.
 */
export async function runLearnerCode({ source, exports, calls, timeout = DEFAULT_TIMEOUT_MS, limits = DEFAULT_LIMITS, signal, workerUrl, onProgress } = {}) {
  const nonce = makeNonce();
  const w = await spawn(workerUrl);
  const results = new Array(calls.length).fill(null);
  return new Promise((resolve) => {
    let settled = false;
    let lastIndex = -1;
    let timer = null;
    let started = 0;
    const finish = (res) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (signal) signal.removeEventListener('abort', onAbort);
      w.terminate();
      resolve({ lastIndex, ms: started ? Date.now() - started : 0, logs: [], compileError: null, results, ...res });
    };
    const onAbort = () => finish({ status: 'aborted' });
    if (signal) {
      if (signal.aborted) return finish({ status: 'aborted' });
      signal.addEventListener('abort', onAbort);
    }
    timer = setTimeout(() => finish({ status: 'crashed', crash: 'the exercise worker did not start' }), STARTUP_MS);
    w.onFailure((err) => finish({ status: 'crashed', crash: err.message }));
    w.onMessage((m) => {
      if (settled || !m || typeof m !== 'object') return;
      if (m.type === 'ready') {
        clearTimeout(timer);
        started = Date.now();
        timer = setTimeout(() => finish({ status: 'timeout' }), timeout);
        w.post({ type: 'run', nonce, source, exports, calls, limits });
        return;
      }
      if (m.nonce !== nonce) return; // forged or stray: only the worker's own code knows the nonce
      if (m.type === 'progress' && Number.isInteger(m.index)) {
        lastIndex = m.index;
        if (onProgress) onProgress(m.index);
      } else if (m.type === 'result' && Number.isInteger(m.index) && m.index >= 0 && m.index < calls.length && results[m.index] === null) {
        results[m.index] = m.result && typeof m.result === 'object' ? m.result : { ok: false, error: { name: 'Error', message: 'malformed result', line: null, column: null } };
      } else if (m.type === 'done') {
        finish({
          status: 'done',
          compileError: m.compileError || null,
          logs: Array.isArray(m.logs) ? m.logs.slice(0, 200) : [],
        });
      }
    });
  });
}
