// The memory widget's two planes laid out and drawn: marks, labels placed in screen pixels, axes, the written arrows.
import { svgEl } from '../element-base.js';
import { firingRegion } from './memory-model.js';
import { placeLabels, radialCandidates, wrapLines } from './label-layout.js';

export const LIM = 1.5; // half-width of the embedding square, plane units
export const OUT_LIM = 3.6; // half-width of the output square (an arrow is drawn up to 0.92 of it)
const FONT = { key: 13, distractor: 12, vocab: 13 }; // label sizes, px

/**
 * Text measurer of one svg: width of a string and the font's line box at a size (estimates when not rendered).
 * prefetch(list) measures many strings ({ text, font, bold }) in one layout, one probe each, for size() to find.
 */
function measurer(svg) {
  const cache = new Map();
  const keyOf = (text, font, bold) => `${font}|${bold ? 1 : 0}|${text}`;
  const probeFor = (text, font, bold) => {
    const attrs = { x: 0, y: 0, visibility: 'hidden', 'aria-hidden': 'true', 'font-size': font };
    const probe = svgEl('text', { ...attrs, 'font-weight': bold ? '700' : '400' }, svg);
    probe.textContent = text || 'M';
    return probe;
  };
  const read = (probe, { text, font, bold }) => {
    let b = null;
    try {
      b = probe.getBBox(); // the first read lays the svg out, the others find it laid out
    } catch {
      /* not rendered */
    }
    const chars = text ? Array.from(text).length : 0;
    const est = { w: chars * font * (bold ? 0.66 : 0.6), top: -0.92 * font, h: 1.2 * font };
    const out = b && b.height > 0 ? { w: text ? b.width : 0, top: b.y, h: b.height } : est;
    cache.set(keyOf(text, font, bold), out);
  };
  const prefetch = (list) => {
    const todo = new Map();
    for (const { text, font, bold } of list)
      if (!cache.has(keyOf(text, font, bold))) todo.set(keyOf(text, font, bold), { text, font, bold });
    const probes = [...todo.values()].map((m) => [probeFor(m.text, m.font, m.bold), m]);
    for (const [probe, m] of probes) read(probe, m);
    for (const [probe] of probes) probe.remove();
  };
  const size = (text, font, bold) => {
    const key = keyOf(text, font, bold);
    if (!cache.has(key)) prefetch([{ text, font, bold }]);
    return cache.get(key);
  };
  return { size, prefetch };
}

/** The strings a label's wrapping measures first: its words and each run of words from its start. */
function wrapStrings(label) {
  const words = label.split(/\s+/).filter(Boolean);
  return [...words, ...words.map((_, i) => words.slice(0, i + 1).join(' '))];
}

/** Each mark's label wrapped to maxW px: { lines, w, lineH, top }. */
function wrapLabels(svg, marks, maxW) {
  const m = measurer(svg);
  m.prefetch(marks.flatMap((mk) => wrapStrings(mk.label).map((text) => ({ text, font: mk.font, bold: mk.bold }))));
  return marks.map((mk) => {
    const lines = wrapLines(mk.label, maxW, (s) => m.size(s, mk.font, mk.bold).w);
    const line = m.size(lines[0], mk.font, mk.bold);
    return { lines, w: Math.max(...lines.map((s) => m.size(s, mk.font, mk.bold).w)), lineH: line.h, top: line.top };
  });
}

/** The labels placed at u px per unit (origin at 0, y up), and the box of the square and the labels together. */
function placeAt(u, lim, marks, texts) {
  const pts = marks.map((mk) => [u * mk.pos[0], -u * mk.pos[1]]);
  const obstacles = marks.map((mk, i) => ({
    x: pts[i][0] - mk.r,
    y: pts[i][1] - mk.r,
    w: 2 * mk.r,
    h: 2 * mk.r,
    key: i,
  }));
  const items = marks.map((mk, i) => {
    const len = Math.hypot(mk.pos[0], mk.pos[1]);
    const d = len > 1e-9 ? [mk.pos[0] / len, -mk.pos[1] / len] : [1, 0];
    const t = texts[i];
    const h = t.lineH * t.lines.length;
    return { anchorKey: i, candidates: radialCandidates(pts[i], d, t.w, h, { gap: mk.r + 3, r0: mk.r + 1 }) };
  });
  const placed = placeLabels(items, { obstacles, pad: 2 });
  let [x0, x1, y0, y1] = [-lim * u, lim * u, -lim * u, lim * u];
  for (const p of placed) {
    x0 = Math.min(x0, p.box.x - 2);
    x1 = Math.max(x1, p.box.x + p.box.w + 2);
    y0 = Math.min(y0, p.box.y - 2);
    y1 = Math.max(y1, p.box.y + p.box.h + 2);
  }
  return { u, placed, x0, x1, y0, y1 };
}

/** The widest scale whose drawing fits W px: u0 if it fits, else a bisection down to 0.3 u0 (labels keep size). */
function fitScale(W, u0, attempt) {
  const best = attempt(u0);
  if (best.x1 - best.x0 <= W) return best;
  let lo = u0 * 0.3,
    hi = u0;
  let fit = attempt(lo);
  if (fit.x1 - fit.x0 > W) return fit;
  for (let it = 0; it < 10; it++) {
    const mid = (lo + hi) / 2;
    const a = attempt(mid);
    if (a.x1 - a.x0 <= W) {
      fit = a;
      lo = mid;
    } else hi = mid;
  }
  return fit;
}

/**
 * Place the marks and labels of one plane W px wide: the square [-lim, lim]^2 at u px per unit, each label
 * wrapped and put beside its mark so that none overlaps another label or a mark; u shrinks until the
 * drawing, labels included, fits in W (labels keep their size in px).
 */
function layoutPlane(svg, W, lim, marks) {
  const texts = wrapLabels(svg, marks, Math.max(64, Math.min(150, 0.3 * W)));
  const best = fitScale(W, (W - 4) / (2 * lim), (u) => placeAt(u, lim, marks, texts));
  // Centre the square horizontally when there is room; never cut a label.
  const cx = -best.x0 + Math.max(0, (W - (best.x1 - best.x0)) / 2);
  const cy = -best.y0;
  return {
    u: best.u,
    cx,
    cy,
    W: Math.max(W, best.x1 - best.x0),
    H: best.y1 - best.y0,
    labels: best.placed.map((p, i) => ({
      ...texts[i],
      box: { ...p.box, x: p.box.x + cx, y: p.box.y + cy },
      leader: p.leader && p.leader.map((q) => [q[0] + cx, q[1] + cy]),
      conflicts: p.conflicts,
    })),
  };
}

/** Draw a placed label: one text, one tspan per line, and its leader line when it has one. */
function drawLabel(g, lab, font, cls) {
  if (lab.leader) {
    const [[x1, y1], [x2, y2]] = lab.leader;
    svgEl('line', { class: 'leader', x1, y1, x2, y2 }, g);
  }
  const text = svgEl('text', { class: cls, 'font-size': font, 'text-anchor': 'middle' }, g);
  lab.lines.forEach((line, j) => {
    const ts = svgEl('tspan', { x: lab.box.x + lab.box.w / 2, y: lab.box.y + j * lab.lineH - lab.top }, text);
    ts.textContent = line;
  });
  return text;
}

/** Empty a plane, lay it out, size its viewBox and draw its axes; returns the layout with its X and Y maps. */
function plane(svg, W, lim, marks) {
  svg.replaceChildren();
  const L = layoutPlane(svg, W, lim, marks);
  L.X = (x) => L.cx + L.u * x;
  L.Y = (y) => L.cy - L.u * y;
  svg.setAttribute('viewBox', `0 0 ${L.W} ${L.H}`);
  svgEl('line', { class: 'axis', x1: L.X(-lim), y1: L.Y(0), x2: L.X(lim), y2: L.Y(0) }, svg);
  svgEl('line', { class: 'axis', x1: L.X(0), y1: L.Y(-lim), x2: L.X(0), y2: L.Y(lim) }, svg);
  return L;
}

/**
 * The embedding plane W px wide: firing regions, key directions and boundaries, the tokens and the query.
 * Returns { map (the layout), regions, tokMarks, queryDot, queryHalo }.
 */
export function drawInPlane(svg, mem, W) {
  const marks = mem.tokens.map((t) => ({
    pos: t.pos,
    r: t.kind === 'key' ? 7 : 5,
    label: t.name,
    font: FONT[t.kind],
  }));
  const L = plane(svg, W, LIM, marks);
  const { X, Y } = L;
  const poly = (pts) => pts.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(' ');
  const regions = mem.keyTokens.map((t, i) => {
    return svgEl('polygon', { class: 'region', points: poly(firingRegion(mem, i, LIM)) }, svg);
  });
  for (const t of mem.keyTokens) {
    svgEl('line', { class: 'keydir', x1: X(0), y1: Y(0), x2: X(t.pos[0] * 0.9), y2: Y(t.pos[1] * 0.9) }, svg);
  }
  const onSquare = (p) => Math.abs(Math.abs(p[0]) - LIM) <= 1e-9 && Math.abs(Math.abs(p[1]) - LIM) <= 1e-9;
  mem.keyTokens.forEach((t, i) => {
    const edge = firingRegion(mem, i, LIM).filter((p) => !onSquare(p));
    svgEl('polyline', { class: 'boundary', points: poly(edge) }, svg);
  });
  const tokMarks = mem.tokens.map((t, j) => {
    const g = svgEl('g', { class: `tok ${t.kind}`, 'data-name': t.name }, svg);
    svgEl('circle', { cx: X(t.pos[0]), cy: Y(t.pos[1]), r: marks[j].r }, g);
    drawLabel(g, L.labels[j], marks[j].font, 'label');
    return g;
  });
  // hidden until a state places them (the first drawing draws the state in a later task)
  const queryHalo = svgEl('circle', { class: 'query-halo', r: 13, visibility: 'hidden' }, svg);
  const queryDot = svgEl('circle', { class: 'query', r: 7.5, visibility: 'hidden' }, svg);
  return { map: L, regions, tokMarks, queryDot, queryHalo };
}

/**
 * The output plane W px wide: the vocabulary's directions and names, the two arrows (full and top-k) and the
 * origin. Returns { map, vocabMarks, arrowFull, headFull, arrowPart, headPart }.
 */
export function drawOutPlane(svg, mem, W) {
  const marks = mem.vocab.map((v) => ({
    pos: [v.dir[0] * 0.95 * OUT_LIM, v.dir[1] * 0.95 * OUT_LIM],
    r: 1,
    label: v.name,
    font: FONT.vocab,
    bold: true,
  }));
  const O = plane(svg, W, OUT_LIM, marks);
  const vocabMarks = mem.vocab.map((v, j) => {
    const g = svgEl('g', { class: 'vocab', 'data-name': v.name }, svg);
    svgEl('line', { x1: O.X(0), y1: O.Y(0), x2: O.X(marks[j].pos[0]), y2: O.Y(marks[j].pos[1]) }, g);
    drawLabel(g, O.labels[j], FONT.vocab, 'label');
    return g;
  });
  const out = { map: O, vocabMarks };
  out.arrowPart = svgEl('line', { class: 'arrow-part' }, svg);
  out.headPart = svgEl('polygon', { class: 'head-part' }, svg);
  out.arrowFull = svgEl('line', { class: 'arrow-full' }, svg);
  out.headFull = svgEl('polygon', { class: 'head-full' }, svg);
  svgEl('circle', { cx: O.X(0), cy: O.Y(0), r: 4, fill: 'currentColor' }, svg);
  return out;
}

/** Draw vector v (plane units) as an arrow on the output plane laid out as O; head size in px. */
export function drawArrow(O, line, head, v, size) {
  let x = v[0],
    y = v[1];
  const len = Math.hypot(x, y);
  const maxLen = OUT_LIM * 0.92;
  const shown = len * O.u >= 1;
  line.setAttribute('visibility', shown ? 'visible' : 'hidden');
  head.setAttribute('visibility', shown ? 'visible' : 'hidden');
  if (!shown) return;
  if (len > maxLen) {
    x *= maxLen / len;
    y *= maxLen / len;
  }
  const px = O.X(x),
    py = O.Y(y),
    ox = O.X(0),
    oy = O.Y(0);
  const l = Math.hypot(px - ox, py - oy);
  const ux = (px - ox) / l,
    uy = (py - oy) / l;
  const hs = Math.min(size, l * 0.6);
  const bx = px - ux * hs,
    by = py - uy * hs;
  line.setAttribute('x1', ox);
  line.setAttribute('y1', oy);
  line.setAttribute('x2', bx);
  line.setAttribute('y2', by);
  const nx = -uy * hs * 0.6,
    ny = ux * hs * 0.6;
  head.setAttribute('points', `${px},${py} ${bx + nx},${by + ny} ${bx - nx},${by - ny}`);
}
