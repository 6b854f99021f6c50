// Work a page can do later: jobs run one per idle period (requestIdleCallback), none where there is no such thing.

const RETRY_MS = 1000; // a job that could not run yet is tried again this much later, in an idle period
const TRIES = 60; // and given up after this many tries (its work is then done where its result is first needed)

/**
 * Run job() in an idle period of the page, in a task of its own. A job that returns false could not run yet: it is
 * tried again RETRY_MS later, at most TRIES times. Where there is no requestIdleCallback (Node, workers) nothing
 * runs: the work is done where its result is first needed.
 */
export function whenIdle(job, tries = TRIES) {
  if (typeof requestIdleCallback !== 'function' || tries <= 0) return;
  requestIdleCallback(() => {
    let done = true;
    try {
      done = job() !== false;
    } catch {
      // a job's failure is its own (kept where its result is read)
    }
    if (!done) setTimeout(() => whenIdle(job, tries - 1), RETRY_MS);
  });
}
