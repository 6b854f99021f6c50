// When <ffn-exercise> draws itself first: the exercises of a page's markup, upgraded all at once when the element is
// defined, each in a task of its own (near the viewport first, the others in idle time); one a script connects, at
// once.
import { drawSoon } from '../../element-queue.js';

let upgrading = 0; // > 0 while customElements.define upgrades the elements already in the page

/** Run define() (a customElements.define that upgrades the page's elements) with their first drawings deferred. */
export function upgradingAll(define) {
  upgrading++;
  try {
    return define();
  } finally {
    upgrading--;
  }
}

/**
 * Draw el (render(), its first drawing) now, or, while the page's elements are being upgraded, in a task of its own
 * (element-queue.js's drawSoon); `pending(el)` says whether that drawing is still to come.
 */
export function renderFirst(el, render) {
  if (!upgrading) return render();
  waiting.add(el);
  drawSoon(el, () => {
    if (!waiting.delete(el)) return; // drawn since (renderNow, or a render of its own)
    render();
  });
}

const waiting = new WeakSet(); // elements whose deferred first drawing has not run

/** The deferred first drawing is no longer needed (the element draws itself now): true if one was waiting. */
export function takeFirst(el) {
  return waiting.delete(el);
}
