// Page side of the browser sandbox: one hidden <iframe sandbox="allow-scripts"> (its own process in Chromium), inline
// or from a file, shared by the page's runs, each run a fresh worker in it on a private MessageChannel; a dead or
// silent frame is removed and reported.

/*
 * The messages between the page, the frame and the worker are protocol.js's.
 *
 * Where the frame comes from (web/sandbox/run/SITES.md says why):
 *  1. <meta name="ffn-lab-sandbox" content="URL"> in the page: that file (a copy of frame.html the author hosts).
 *  2. Otherwise inline: the frame's document (frame.html's text, FRAME_HTML) as the iframe's srcdoc. It needs
 *     no file, so it works whatever the bundler or server did with the package. An inline frame inherits the
 *     page's CSP, and a policy that refuses its script, eval or blob: workers says so (a second load of the
 *     frame when its script was refused, a 'refused' answer otherwise); a page with a <meta> CSP skips it.
 *  3. Then the package's own frame.html (a literal new URL() that Vite and webpack emit), whose document
 *     carries its own CSP instead of the page's.
 * A file that does not answer as the sandbox frame is a setup problem of the site, reported with its URL
 * and the fix (error.setup), never as something the learner's code did.
 *
 * The frame is opened with postMessage(init, '*') because an opaque origin cannot be named; the init
 * carries only our own worker and toolkit sources (strings built into this package; fetched only for a
 * workerUrl option, which tests use for stand-in workers) and
 * the control port, and the page trusts nothing that comes back (runner.js re-checks every run message).
 * Removing the iframe element is the hard stop: it ends the frame's process and every worker in it.
 */

import { say, FRAME_DIED, FRAME_REMOVED } from './say.js';
import { frameInit, readFrameMessage } from './protocol.js';

const READY_MS = 10000; // the frame loads nothing but itself; this only guards a blocked or broken frame
const DIAGNOSE_MS = 1500; // a frame file silent this long after its load is fetched once to say what is wrong
const PING_MS = 500; // while runs are in flight, the frame's main thread (never running learner code) is pinged
const SILENT_MS = 3000; // an unanswered ping this old means the frame's process is gone
const STOP_MS = 1500; // a stop the frame does not acknowledge in this time ends the frame
const MARKER = '<title>ffn-lab exercise sandbox</title>';

// Setup problems are messages of report.site (web/i18n/en.js): the error's message is their English, .i18n the
// message (as i18n's localizedError carries one), which <ffn-exercise> shows in the reader's language (URLs and
// markup as code).
const FIX_FILE = say('site.fixFile', {
  file: 'node_modules/ffn-lab/web/sandbox/run/frame.html',
  meta: '<meta name="ffn-lab-sandbox" content="/path/to/frame.html">',
});

const frames = new Map(); // 'inline' or the frame file's URL -> live frame
let sources = null; // the texts of frame.html, worker.js and toolkit.js (sandbox-inline.js, loaded on first use)
const overrides = new Map(); // a workerUrl option -> Promise<its worker.js and toolkit.js texts>
let inlineRefused = null; // why this page's CSP refuses the inline frame, once seen
let runSeq = 0;

/** The package's frame.html (a literal URL, so bundlers that handle new URL() emit the file). */
function packagedFrameUrl() {
  try {
    return new URL('./frame.html', import.meta.url).href;
  } catch {
    return null; // no import.meta.url (a bundle in a classic script)
  }
}

/**
 * Where this page's sandbox frame comes from: { inline: true, named } or { url, named }. The page may say,
 * in <meta name="ffn-lab-sandbox" content="...">: "inline" (only inline), "file" (the package's frame.html)
 * or the URL of a copy of frame.html it hosts; without it, inline first, then the package's file.
 */
function planFor(doc) {
  const meta = doc.querySelector('meta[name="ffn-lab-sandbox"]');
  const choice = ((meta && meta.getAttribute('content')) || '').trim();
  if (choice === 'inline') return { inline: true, named: true };
  if (choice === 'file') return { url: packagedFrameUrl(), named: false };
  if (choice) return { url: new URL(choice, doc.baseURI).href, named: true };
  if (!inlineRefused && doc.querySelector('meta[http-equiv="content-security-policy" i]')) {
    inlineRefused = 'the page sets a Content-Security-Policy in a <meta>, which an inline frame would inherit';
  }
  if (!inlineRefused) return { inline: true, named: false };
  return { url: packagedFrameUrl(), named: false };
}

function setupError(m) {
  const e = new Error(String(m));
  e.setup = true;
  e.i18n = m;
  return e;
}

/** What is wrong with a frame file that loaded but never answered: one GET of it, read here. */
async function probeFrameFile(url) {
  try {
    const res = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
    if (!res.ok) return say('site.notThere', { url, status: String(res.status) });
    const text = await res.text();
    if (!text.includes(MARKER)) return say('site.notFrame', { url });
    return null;
  } catch {
    return null; // cross-origin or refused by connect-src: nothing more to learn here
  }
}

/** Open a sandbox frame for `plan` with the sources `src`: the frame record, whose `ready` settles once it answers. */
function openFrame(key, plan, src) {
  const doc = globalThis.document;
  const frame = newFrame(doc, key, plan);
  frame.ready = new Promise((resolve, reject) => watchStart(doc, frame, src, resolve, reject));
  frame.ready.catch(() => {});
  try {
    if (plan.inline) frame.iframe.srcdoc = src.FRAME_HTML;
    else frame.iframe.src = plan.url;
  } catch (e) {
    // Trusted Types refuse a plain string as srcdoc: the inline frame cannot be made here.
    const err = new Error(`the page refused the inline frame (${e && e.message})`);
    err.refused = true;
    frame.kill('the sandbox frame did not start');
    frame.ready = Promise.reject(err);
    frame.ready.catch(() => {});
    return frame;
  }
  (doc.body || doc.documentElement).appendChild(frame.iframe);
  return frame;
}

/** A hidden sandboxed iframe and the page's record of it: its runs and pings, and kill(message), the hard stop. */
function newFrame(doc, key, plan) {
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
    plan,
    port: null,
    dead: false,
    runs: new Map(), // id -> { onDead(message), onFailed(message), onStopped() }
    ping: null, // { seq, at } of the unanswered ping
    pingSeq: 0,
    pinger: null,
    cleanups: [], // what the start set up (timers, listeners), undone once it settles or the frame dies
  };
  frame.kill = (message) => {
    if (frame.dead) return;
    frame.dead = true;
    if (frames.get(key) === frame) frames.delete(key);
    for (const c of frame.cleanups) c();
    clearInterval(frame.pinger);
    iframe.remove(); // the hard stop
    if (frame.port) frame.port.close();
    const runs = [...frame.runs.values()];
    frame.runs.clear();
    for (const r of runs) r.onDead(message);
  };
  return frame;
}

/**
 * The frame's start, until it answers 'ready' (resolve) or cannot start (reject): its time limit, a page CSP that
 * refuses to frame the file, a second load (its script was refused), and its first answers.
 */
function watchStart(doc, frame, src, resolve, reject) {
  const { plan } = frame;
  const start = { settled: false, timers: [] };
  start.fail = (e) => {
    if (start.settled) return;
    start.settled = true;
    reject(e);
    frame.kill('the sandbox frame did not start');
  };
  // refused: the inline frame cannot run here (the caller falls back to a file); else a setup problem
  start.refuse = (why) => {
    if (plan.inline && plan.named) {
      const meta = '<meta name="ffn-lab-sandbox" content="inline">';
      start.fail(setupError(say('site.inlineNamed', { meta, problem: why })));
      return;
    }
    const e = plan.inline ? new Error(String(why)) : setupError(say('site.cannotRun', { url: plan.url, problem: why }));
    e.refused = plan.inline;
    start.fail(e);
  };
  start.ready = () => {
    if (start.settled) return;
    start.settled = true;
    for (const c of frame.cleanups.splice(0)) c();
    resolve(frame);
  };
  start.timers.push(
    setTimeout(() => {
      if (plan.inline) start.refuse(say('site.inlineNoAnswer'));
      else start.fail(setupError(say('site.slow', { url: plan.url, s: String(READY_MS / 1000), fix: FIX_FILE })));
    }, READY_MS),
  );
  frame.cleanups.push(() => start.timers.forEach(clearTimeout));
  if (!plan.inline) watchFrameCsp(doc, frame, start);
  let loads = 0;
  frame.iframe.addEventListener('load', () => {
    if (frame.dead || start.settled) return;
    if (++loads > 1) {
      // The frame's script did not run, so its refresh took it to about:blank.
      const meta = '<meta name="ffn-lab-sandbox" content="...">';
      start.refuse(plan.inline ? say('site.inlineScript') : say('site.scriptRefused', { meta }));
      return;
    }
    onFirstLoad(frame, src, start);
  });
}

/** A page CSP that refuses to frame the file says so here (Chromium reports it to the page). */
function watchFrameCsp(doc, frame, start) {
  const url = frame.plan.url;
  const onViolation = (e) => {
    const d = e.effectiveDirective || e.violatedDirective || '';
    if (/^(frame|child|default)-src/.test(d) && e.blockedURI && url.startsWith(e.blockedURI.split('#')[0])) {
      start.fail(setupError(say('site.cspFrame', { directive: d, url, example: "frame-src 'self'" })));
    }
  };
  doc.addEventListener('securitypolicyviolation', onViolation);
  frame.cleanups.push(() => doc.removeEventListener('securitypolicyviolation', onViolation));
}

/** The frame's document loaded: hand it the worker's sources and its control port, and listen on that port. */
function onFirstLoad(frame, src, start) {
  const { plan } = frame;
  if (!plan.inline) {
    start.timers.push(
      setTimeout(async () => {
        const why = await probeFrameFile(plan.url);
        if (why) start.fail(setupError(say('site.didNotStart', { problem: why, fix: FIX_FILE })));
      }, DIAGNOSE_MS),
    );
  }
  const ch = new MessageChannel();
  frame.port = ch.port1;
  ch.port1.onmessage = (ev) => {
    const m = readFrameMessage(ev.data);
    if (m) onFrameMessage(frame, start, m);
  };
  // Fires where supported when the frame's end of the channel goes away with its process.
  ch.port1.addEventListener('close', () => frame.kill(FRAME_DIED));
  const init = frameInit(src.WORKER_SOURCE, src.TOOLKIT_SOURCE);
  frame.iframe.contentWindow.postMessage(init, '*', [ch.port2]);
}

/** One checked message of the frame's control port (protocol.js readFrameMessage). */
function onFrameMessage(frame, start, m) {
  if (m.type === 'ready') {
    start.ready();
  } else if (m.type === 'refused') {
    start.refuse(say('site.cspNeeds', { detail: m.detail }));
  } else if (m.type === 'init-failed') {
    start.fail(setupError(say('site.sources', { url: frame.plan.url || '(inline)', detail: m.detail })));
  } else if (m.type === 'pong') {
    if (frame.ping && m.seq === frame.ping.seq) frame.ping = null;
  } else {
    const r = frame.runs.get(m.id);
    if (!r) return;
    if (m.type === 'failed') r.onFailed(m.detail);
    else r.onStopped();
  }
}

async function fetchText(url) {
  const res = await fetch(url, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`could not load ${url} (HTTP ${res.status})`);
  return res.text();
}

/** The frame's document and the worker's sources: the package's own, or a workerUrl's (and toolkit.js beside it). */
async function sourcesFor(workerUrl) {
  // a chunk of its own for bundlers that split: the page loads it when a learner first gets to an exercise
  const own = await (sources ??= import('./sandbox-inline.js').catch((e) => {
    sources = null;
    throw setupError(say('site.chunk', { detail: String(e && e.message), dir: 'node_modules/ffn-lab/web/' }));
  }));
  if (!workerUrl) return own;
  let texts = overrides.get(workerUrl);
  if (!texts) {
    texts = Promise.all([fetchText(workerUrl), fetchText(new URL('./toolkit.js', workerUrl).href)]);
    texts.catch(() => overrides.delete(workerUrl)); // retried by the next run
    overrides.set(workerUrl, texts);
  }
  const [WORKER_SOURCE, TOOLKIT_SOURCE] = await texts;
  return { FRAME_HTML: own.FRAME_HTML, WORKER_SOURCE, TOOLKIT_SOURCE };
}

/** The page's live sandbox frame for a worker (the package's by default), opened (and its way chosen) on first use. */
async function liveFrame(workerUrl = null) {
  const doc = globalThis.document;
  const src = await sourcesFor(workerUrl);
  for (;;) {
    const plan = planFor(doc);
    if (!plan.inline && !plan.url) {
      const refused = inlineRefused ? say('site.noInline', { why: inlineRefused }) : '';
      throw setupError(say('site.noUrl', { refused, fix: FIX_FILE }));
    }
    const key = `${plan.inline ? 'inline' : plan.url} ${workerUrl || ''}`;
    let frame = frames.get(key);
    if (frame && !frame.dead && !frame.iframe.isConnected) frame.kill(FRAME_REMOVED);
    frame = frames.get(key);
    if (!frame || frame.dead) {
      frame = openFrame(key, plan, src);
      frames.set(key, frame);
    }
    try {
      await frame.ready;
      return frame;
    } catch (e) {
      if (frames.get(key) === frame) frames.delete(key);
      if (!e.refused) {
        if (e.setup && !plan.named && inlineRefused) {
          e.i18n = say('site.viaFile', { why: inlineRefused, problem: e.i18n ?? e.message });
          e.message = String(e.i18n);
        }
        throw e;
      }
      inlineRefused = e.message; // and plan again: the frame file
    }
  }
}

/** Open the sandbox frame ahead of the first run (resolves either way; a setup problem is reported by the run). */
export function warmSandbox() {
  if (!globalThis.document) return Promise.resolve();
  return liveFrame().then(
    () => {},
    () => {},
  );
}

function watch(frame) {
  if (frame.pinger) return;
  frame.pinger = setInterval(() => {
    if (frame.dead) return;
    if (![...frame.runs.values()].some((r) => r.active)) {
      // a spare waiting for its run is not watched
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
 * (true: the frame stopped the worker; false: the frame was dead or silent and has been removed), usable()
 * (its frame is alive and in the page) and claim(). A failure passed to onFailure has .frameDied set when the
 * frame's process went away; a rejection has .setup set when the site's setup keeps the sandbox from starting
 * (the message names the fix). options.idle: a worker started ahead of its run (runner.js's spare), whose
 * frame is watched from its first message on rather than at once (an idle page pings nothing).
 */
export async function startFrameRun(workerUrl, { idle = false } = {}) {
  const url = workerUrl ? new URL(workerUrl, globalThis.location.href).href : null;
  const frame = await liveFrame(url);
  if (frame.dead) {
    const e = new Error(FRAME_DIED);
    e.frameDied = true;
    throw e;
  }
  const id = ++runSeq;
  const ch = new MessageChannel();
  // failure: the runner's callback; stopped: Promise<boolean> once terminate() was called; ack: the frame's answer
  const st = { failure: () => {}, stopped: null, ack: () => {} };
  const run = {
    onDead: (message) => {
      st.ack(false);
      const e = new Error(message);
      e.frameDied = true;
      st.failure(e);
    },
    onFailed: (message) => st.failure(new Error(message)),
    onStopped: () => st.ack(true),
    active: !idle,
  };
  frame.runs.set(id, run);
  frame.port.postMessage({ type: 'start', id }, [ch.port2]);
  if (run.active) watch(frame);
  return {
    onMessage(fn) {
      ch.port1.onmessage = (ev) => fn(ev.data);
      ch.port1.onmessageerror = () => fn({ type: 'messageerror' });
    },
    onFailure(fn) {
      st.failure = fn;
    },
    post: (m) => {
      if (!run.active) {
        run.active = true;
        watch(frame);
      }
      ch.port1.postMessage(m);
    },
    usable: () => !frame.dead && frame.iframe.isConnected,
    claim: () => {},
    terminate() {
      if (st.stopped) return st.stopped;
      ch.port1.onmessage = null;
      ch.port1.close();
      st.stopped = stopRun(frame, id, st);
      return st.stopped;
    },
  };
}

/** Ask the frame to stop run `id`: true once it has, false for a dead frame (one silent for STOP_MS is killed). */
function stopRun(frame, id, st) {
  return new Promise((resolve) => {
    if (frame.dead) {
      resolve(false);
      return;
    }
    const timer = setTimeout(() => frame.kill(FRAME_DIED), STOP_MS); // kill() answers through onDead
    st.ack = (ok) => {
      st.ack = () => {};
      clearTimeout(timer);
      frame.runs.delete(id);
      resolve(ok);
    };
    frame.port.postMessage({ type: 'stop', id });
  });
}
