// The memory widget's controls: pointer, touch and keyboard input on its view turned into calls on the element
// (_setQuery, _set, selectToken, _reflect); nothing drawn here, no state kept but the glide's frame.
import { QUERY_LIMIT } from './memory-model.js';
import { prefersReducedMotion } from './styles.js';

const STEP = 0.05; // arrow-key step

/** The value a slider key moves cur to (STEP, five steps with Shift or PageUp/PageDown, the ends), or null. */
function sliderKey(e, cur) {
  const big = e.shiftKey ? 5 : 1;
  const moves = {
    ArrowRight: cur + STEP * big,
    ArrowUp: cur + STEP * big,
    ArrowLeft: cur - STEP * big,
    ArrowDown: cur - STEP * big,
    PageUp: cur + STEP * 5,
    PageDown: cur - STEP * 5,
    Home: -QUERY_LIMIT,
    End: QUERY_LIMIT,
  };
  return Object.hasOwn(moves, e.key) ? Math.round(moves[e.key] / STEP) * STEP : null;
}

/** Plane coordinates of a pointer event on the embedding plane laid out as L, or null when it is not drawn. */
function planePoint(svg, L, e) {
  if (!L) return null;
  const r = svg.getBoundingClientRect();
  if (!r.width) return null;
  const sx = ((e.clientX - r.left) * L.W) / r.width,
    sy = ((e.clientY - r.top) * L.H) / r.height;
  return [(sx - L.cx) / L.u, (L.cy - sy) / L.u];
}

/**
 * Input of one widget (el, an FfnMemoryWidget) on its view: wire(view) after each build connects the new DOM;
 * glideTo moves the query with a short glide (none under prefers-reduced-motion).
 */
export class MemoryControls {
  constructor(el) {
    this.el = el;
    this.anim = 0;
  }

  /** Connect the controls of a view just built. */
  wire(view) {
    const el = this.el;
    for (const sl of view.sliders) {
      const setAxis = (v) => (sl.axis === 'x' ? el._setQuery(v, el._state.y) : el._setQuery(el._state.x, v));
      sl.track.addEventListener('keydown', (e) => {
        const v = sliderKey(e, sl.axis === 'x' ? el._state.x : el._state.y);
        if (v === null) return;
        e.preventDefault();
        setAxis(v);
        el._reflect();
      });
      this.drag(sl.track, (e) => {
        const r = sl.track.getBoundingClientRect();
        setAxis(-QUERY_LIMIT + (2 * QUERY_LIMIT * (e.clientX - r.left)) / r.width);
      });
    }
    this.drag(view.inSvg, (e) => {
      const p = planePoint(view.inSvg, view.inPlane?.map, e);
      if (p) el._setQuery(p[0], p[1]);
    });
    for (const b of view.tokenBtns) b.addEventListener('click', () => el.selectToken(b.dataset.token));
    view.kInput.addEventListener('input', () => el._set({ k: Number(view.kInput.value) }));
    view.tInput.addEventListener('input', () => el._set({ threshold: Number(view.tInput.value) }, true));
    for (const b of view.actBtns) b.addEventListener('click', () => el._set({ activation: b.dataset.activation }));
  }

  /** Pointer drags on target (mouse, touch, pen): onMove(event) on press and each move; _reflect() at the end. */
  drag(target, onMove) {
    target.addEventListener('pointerdown', (e) => {
      if (e.button !== undefined && e.button !== 0) return;
      e.preventDefault();
      this.stop();
      try {
        target.setPointerCapture?.(e.pointerId);
      } catch {
        /* synthetic or already released pointer */
      }
      if (target.getAttribute('tabindex') !== null) target.focus();
      onMove(e);
      const move = (ev) => onMove(ev);
      const up = () => {
        target.removeEventListener('pointermove', move);
        target.removeEventListener('pointerup', up);
        target.removeEventListener('pointercancel', up);
        this.el._reflect();
      };
      target.addEventListener('pointermove', move);
      target.addEventListener('pointerup', up);
      target.addEventListener('pointercancel', up);
    });
  }

  /** Stop a glide under way. */
  stop() {
    if (this.anim) cancelAnimationFrame(this.anim);
    this.anim = 0;
  }

  /** Move the query to (x, y), gliding over 280 ms when animate; done() once it is there. */
  glideTo(x, y, animate, done) {
    const el = this.el;
    this.stop();
    if (!animate || typeof requestAnimationFrame !== 'function' || prefersReducedMotion()) {
      el._setQuery(x, y);
      done();
      return;
    }
    const x0 = el._state.x,
      y0 = el._state.y;
    const t0 = performance.now();
    const tick = (now) => {
      const t = Math.min(1, (now - t0) / 280);
      const e = t * t * (3 - 2 * t);
      if (t < 1) {
        el._setQuery(x0 + (x - x0) * e, y0 + (y - y0) * e);
        this.anim = requestAnimationFrame(tick);
      } else {
        this.anim = 0;
        el._setQuery(x, y);
        done();
      }
    };
    this.anim = requestAnimationFrame(tick);
  }
}
