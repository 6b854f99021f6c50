// Test helper: how much a loaded machine stretches a page's main-thread work right now, from a fixed workload.

/*
 * A long-task bound (50 or 100 ms) proves that page-side work is cut into slices: before the slicing, grading hostile
 * results took one task of 500 to 1,500 ms, every run. On the 2-core machine shared with other work (and in CI)
 * the OS deschedules the page's thread, and a 40 ms slice is reported as 140 ms for several runs in a row, which
 * retrying alone does not cure. So a bound is scaled by the stretch measured in the same page right after each
 * attempt: a fixed workload timed then, against its fastest time in that page (its cost when the machine was
 * quiet), never below 1 and at most MAX_STRETCH, so that a scaled bound of 50 ms stays at 125 ms or less: below
 * what unsliced work takes on a quiet machine, and far below what it takes on a loaded one.
 */
export const MAX_STRETCH = 2.5;

/** Define window.__stretch() in the page: resolves to the current stretch (a number in [1, MAX_STRETCH]). */
export async function installStretch(page) {
  await page.evaluate(async (max) => {
    // about 10 ms of arithmetic; each timing is its own task, so none of them is a long task
    const work = () => {
      let s = 0;
      for (let i = 0; i < 2e6; i++) s += Math.sqrt(i);
      return s;
    };
    const once = () =>
      new Promise((ok) =>
        setTimeout(() => {
          const t = performance.now();
          window.__sink = work();
          ok(performance.now() - t);
        }, 0),
      );
    const times = async (n) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push(await once());
      return out.sort((a, b) => a - b);
    };
    window.__quiet = (await times(9))[0];
    window.__stretch = async () => {
      const t = await times(5);
      window.__quiet = Math.min(window.__quiet, t[0]); // the fastest seen in this page so far
      return Math.min(max, Math.max(1, t[2] / window.__quiet));
    };
  }, MAX_STRETCH);
}
