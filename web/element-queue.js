// The elements' first drawings, one per task: those near the viewport first, the others when the page is idle.

/** Near: within this margin of the viewport (about a screen of scrolling), as IntersectionObserver's rootMargin. */
export const NEAR = '600px 0px';
// requestIdleCallback's deadline: a page that is never idle still gets every element drawn, one per task.
const IDLE_MS = 400;

const jobs = new Map(); // element -> { run, near }, in the order they came
let observer = null;
let soonPending = false; // a task that runs the next near job is scheduled
let idlePending = false; // an idle callback that runs the next job is scheduled

/** A task soon (after the pending input and rendering), without the 4 ms clamp of nested timers. */
function soon(fn) {
  if (typeof MessageChannel === 'function') {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      fn();
    };
    ch.port2.postMessage(null);
  } else setTimeout(fn, 0);
}

function idle(fn) {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: IDLE_MS });
  else setTimeout(fn, 16);
}

/** The next job: the first one near the viewport, else (idle only) the first one. */
function next(idleNow) {
  for (const [el, job] of jobs) if (job.near) return [el, job];
  return idleNow ? jobs.entries().next().value : null;
}

function pump(idleNow) {
  const found = next(idleNow);
  if (found) {
    const [el, job] = found;
    jobs.delete(el);
    try {
      const rest = job.run();
      // the rest of the drawing: the element's next job, in a task of its own
      if (typeof rest === 'function') jobs.set(el, { run: rest, near: job.near });
      else observer?.unobserve(el);
    } catch (e) {
      observer?.unobserve(el);
      setTimeout(() => {
        throw e; // reported as an uncaught error, the queue goes on
      });
    }
  }
  schedule();
}

/** Schedule the next job's task: soon when one is near the viewport, else in idle time. */
function schedule() {
  if (jobs.size === 0) return;
  if (next(false)) {
    if (soonPending) return;
    soonPending = true;
    soon(() => {
      soonPending = false;
      pump(false);
    });
  } else if (!idlePending) {
    idlePending = true;
    idle(() => {
      idlePending = false;
      pump(true);
    });
  }
}

function nearNow(entries) {
  for (const e of entries) {
    const job = jobs.get(e.target);
    if (job && e.isIntersecting) job.near = true;
  }
  schedule();
}

/**
 * Run `run()` (an element's first drawing, once its kernels are here) in a task of its own: soon when `el` is near the
 * viewport, else when the page is idle (within IDLE_MS when it never is), one element per task. A run() that returns
 * a function leaves the rest of the drawing to it, run the same way in a later task (and so on). Where the browser has
 * no IntersectionObserver every job waits for idle time.
 */
export function drawSoon(el, run) {
  jobs.set(el, { run, near: false });
  if (typeof IntersectionObserver === 'function' && el.isConnected) {
    observer ??= new IntersectionObserver(nearNow, { rootMargin: NEAR });
    observer.observe(el);
  }
  schedule();
}
