// When <ffn-exercise> prepares the first Run: once an exercise is near the viewport or the learner points at or focuses
// it, after its kernels are ready, in idle time.

// Near: within this margin of the viewport (about a screen of scrolling on a phone, less on a laptop).
const NEAR = '400px 0px';
// requestIdleCallback's deadline: a page that is never idle still gets its sandbox within this time.
const IDLE_MS = 500;

let scheduled = false; // once per page: after the first preparation, every run starts the next run's worker
let observer = null;
const steps = new WeakMap(); // element -> { kernelsReady, prepare }

function schedule({ kernelsReady, prepare }) {
  if (scheduled) return;
  scheduled = true;
  if (observer) observer.disconnect();
  observer = null;
  const idle = () =>
    new Promise((done) => {
      if (typeof requestIdleCallback === 'function') requestIdleCallback(() => done(), { timeout: IDLE_MS });
      else setTimeout(done, 50);
    });
  // after the kernels: the elements in view come first, and the preparation never competes with them
  Promise.resolve()
    .then(kernelsReady)
    .catch(() => {})
    .then(idle)
    .then(prepare)
    .catch(() => {});
}

/**
 * Call `prepare()` once per page, in idle time after `kernelsReady()` has resolved, when `element` comes near the
 * viewport or `root` gets focus or a pointer (whichever element of the page comes first).
 */
export function prepareNear(element, root, kernelsReady, prepare) {
  if (scheduled) return;
  const now = () => schedule({ kernelsReady, prepare });
  root.addEventListener('focusin', now, { once: true });
  root.addEventListener('pointerover', now, { once: true });
  if (typeof IntersectionObserver !== 'function') return;
  steps.set(element, { kernelsReady, prepare });
  observer ??= new IntersectionObserver(
    (entries) => {
      const near = entries.find((e) => e.isIntersecting && steps.has(e.target));
      if (near) schedule(steps.get(near.target));
    },
    { rootMargin: NEAR },
  );
  observer.observe(element);
}
