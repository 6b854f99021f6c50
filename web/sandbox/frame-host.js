// Page side of the browser sandbox: one hidden <iframe sandbox="allow-scripts"> (its own process in Chromium) shared by the page's runs, each run a fresh worker in it on a private MessageChannel; a dead or silent frame is removed and reported.

/*
 * page --control port--> frame   { type: 'start', id } + a run port | { type: 'stop', id } | { type: 'ping', seq }
 * frame --control port--> page   { type: 'ready' } | { type: 'init-failed', message } | { type: 'failed', id, message }
 *                                { type: 'stopped', id } | { type: 'pong', seq }
 * page <--run port--> worker     the run itself (worker.js's protocol), never through the frame's main thread
 *
 * The frame is opened with postMessage(init, '*') because an opaque origin cannot be named; the init
 * carries only our own worker and toolkit sources and the control port, and the page trusts nothing
 * that comes back (runner.js re-checks every run message). Removing the iframe element is the hard stop:
 * it ends the frame's process and every worker in it, whatever state they are in.
 */

const FRAME_URL = new URL('./frame.html', import.meta.url);
const READY_MS = 10000; // the frame loads nothing but itself; this only guards a blocked or broken frame
const PING_MS = 500; // while runs are in flight, the frame's main thread (never running learner code) is pinged
const SILENT_MS = 3000; // an unanswered ping this old means the frame's process is gone
const STOP_MS = 1500; // a stop the frame does not acknowledge in this time ends the frame

export const FRAME_DIED = 'its process ended, most likely because your code used too much memory';
const FRAME_REMOVED = 'the sandbox frame was removed from the page';

const sources = new Map(); // worker URL -> Promise<{ worker, toolkit }> (texts)
const frames = new Map(); // worker URL -> live frame
let runSeq = 0;

async function fetchText(url) {
  const res = await fetch(url, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`could not load ${url} (HTTP ${res.status})`);
  return res.text();
}

function loadSources(workerUrl) {
  let p = sources.get(workerUrl);
  if (!p) {
    p = Promise.all([fetchText(workerUrl), fetchText(new URL('./toolkit.js', workerUrl).href)]).then(([worker, toolkit]) => ({ worker, toolkit }));
    p.catch(() => sources.delete(workerUrl)); // a failed load is retried by the next run
    sources.set(workerUrl, p);
  }
  return p;
}

function openFrame(workerUrl) {
  const src = loadSources(workerUrl); // fetched (once per page) while the frame loads, not after
  const doc = globalThis.document;
  const iframe = doc.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.setAttribute('aria-hidden', 'true');
  iframe.title = 'ffn-lab exercise sandbox';
  iframe.hidden = true;
  iframe.tabIndex = -1;
  iframe.width = '0';
  iframe.height = '0';
  const frame = {
    iframe,
    port: null,
    dead: false,
    runs: new Map(), // id -> { onDead(message), onFailed(message), onStopped() }
    ping: null, // { seq, at } of the unanswered ping
    pingSeq: 0,
    pinger: null,
  };
  const kill = (message) => {
    if (frame.dead) return;
    frame.dead = true;
    if (frames.get(workerUrl) === frame) frames.delete(workerUrl);
    clearInterval(frame.pinger);
    iframe.remove(); // the hard stop
    if (frame.port) frame.port.close();
    const runs = [...frame.runs.values()];
    frame.runs.clear();
    for (const r of runs) r.onDead(message);
  };
  frame.kill = kill;
  frame.ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the sandbox frame ${FRAME_URL.href} did not start; a page with a Content-Security-Policy must allow it in frame-src`));
      kill('the sandbox frame did not start');
    }, READY_MS);
    iframe.addEventListener('load', () => {
      if (frame.dead) return;
      const ch = new MessageChannel();
      frame.port = ch.port1;
      ch.port1.onmessage = (ev) => {
        const m = ev.data;
        if (!m || typeof m !== 'object') return;
        if (m.type === 'ready') {
          clearTimeout(timer);
          resolve(frame);
        } else if (m.type === 'init-failed') {
          clearTimeout(timer);
          reject(new Error(`the sandbox frame refused its sources: ${String(m.message).slice(0, 200)}`));
          kill('the sandbox frame did not start');
        } else if (m.type === 'pong') {
          if (frame.ping && m.seq === frame.ping.seq) frame.ping = null;
        } else {
          const r = frame.runs.get(m.id);
          if (!r) return;
          if (m.type === 'failed') r.onFailed(String(m.message || 'the exercise worker failed').slice(0, 500));
          else if (m.type === 'stopped') r.onStopped();
        }
      };
      // Fires where supported when the frame's end of the channel goes away with its process.
      ch.port1.addEventListener('close', () => kill(FRAME_DIED));
      src.then(
        ({ worker, toolkit }) => iframe.contentWindow.postMessage({ type: 'ffn-lab-sandbox-init', worker, toolkit }, '*', [ch.port2]),
        (e) => {
          clearTimeout(timer);
          reject(e);
          kill('the sandbox frame did not start');
        },
      );
    }, { once: true });
  });
  frame.ready.catch(() => {});
  iframe.src = FRAME_URL.href;
  (doc.body || doc.documentElement).appendChild(iframe);
  return frame;
}

function watch(frame) {
  if (frame.pinger) return;
  frame.pinger = setInterval(() => {
    if (frame.dead) return;
    if (frame.runs.size === 0) {
      clearInterval(frame.pinger);
      frame.pinger = null;
      frame.ping = null;
      return;
    }
    if (!frame.iframe.isConnected) {
      frame.kill(FRAME_REMOVED); // the host page took it out of the document (a framework re-render, say)
      return;
    }
    const now = Date.now();
    if (frame.ping) {
      if (now - frame.ping.at > SILENT_MS) frame.kill(FRAME_DIED);
      return;
    }
    frame.ping = { seq: ++frame.pingSeq, at: now };
    frame.port.postMessage({ type: 'ping', seq: frame.ping.seq });
  }, PING_MS);
}

/**
 * Start one run's worker in the page's sandbox frame (opened on first use, reused while it lives).
 * Resolves to the run handle runner.js drives: onMessage, onFailure, post, terminate() -> Promise<boolean>
 * (true: the frame stopped the worker; false: the frame was dead or silent and has been removed).
 * A failure passed to onFailure has .frameDied set when the frame's process went away.
 */
export async function startFrameRun(workerUrl) {
  const key = new URL(workerUrl || new URL('./worker.js', import.meta.url), globalThis.location.href).href;
  let frame = frames.get(key);
  if (frame && !frame.dead && !frame.iframe.isConnected) frame.kill(FRAME_REMOVED);
  if (!frame || frame.dead) {
    frame = openFrame(key);
    frames.set(key, frame);
  }
  await frame.ready;
  if (frame.dead) {
    const e = new Error(FRAME_DIED);
    e.frameDied = true;
    throw e;
  }
  const id = ++runSeq;
  const ch = new MessageChannel();
  let failure = () => {};
  let stopped = null; // Promise<boolean> once terminate() was called
  let ack = () => {};
  const run = {
    onDead: (message) => {
      ack(false);
      const e = new Error(message);
      e.frameDied = true;
      failure(e);
    },
    onFailed: (message) => failure(new Error(message)),
    onStopped: () => ack(true),
  };
  frame.runs.set(id, run);
  frame.port.postMessage({ type: 'start', id }, [ch.port2]);
  watch(frame);
  return {
    onMessage(fn) {
      ch.port1.onmessage = (ev) => fn(ev.data);
      ch.port1.onmessageerror = () => fn({ type: 'messageerror' });
    },
    onFailure(fn) {
      failure = fn;
    },
    post: (m) => ch.port1.postMessage(m),
    terminate() {
      if (stopped) return stopped;
      ch.port1.onmessage = null;
      ch.port1.close();
      stopped = new Promise((resolve) => {
        if (frame.dead) {
          resolve(false);
          return;
        }
        const timer = setTimeout(() => frame.kill(FRAME_DIED), STOP_MS); // kill() answers through onDead
        ack = (ok) => {
          ack = () => {};
          clearTimeout(timer);
          frame.runs.delete(id);
          resolve(ok);
        };
        frame.port.postMessage({ type: 'stop', id });
      });
      return stopped;
    },
  };
}
