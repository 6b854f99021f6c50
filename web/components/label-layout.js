// Label placement for the components' drawings: wrap a label, then pick for each one a spot where it overlaps nothing.
// Boxes are { x, y, w, h } (left, top, width, height) in the drawing's pixels, y pointing down.

/** True when boxes a and b come closer than pad. */
export function boxesOverlap(a, b, pad = 0) {
  return a.x < b.x + b.w + pad && b.x < a.x + a.w + pad && a.y < b.y + b.h + pad && b.y < a.y + a.h + pad;
}

/**
 * True when the segment p-q passes through the inside of box b grown by pad on every side (Liang-Barsky clipping,
 * against the four sides in turn; nothing allocated: the placer calls it for every candidate and obstacle).
 */
export function segmentHitsBox(p, q, b, pad = 0) {
  const x = b.x - pad,
    y = b.y - pad,
    w = b.w + 2 * pad,
    h = b.h + 2 * pad;
  const dx = q[0] - p[0],
    dy = q[1] - p[1];
  let t0 = 0,
    t1 = 1;
  for (let side = 0; side < 4; side++) {
    const pp = side === 0 ? -dx : side === 1 ? dx : side === 2 ? -dy : dy;
    const qq = side === 0 ? p[0] - x : side === 1 ? x + w - p[0] : side === 2 ? p[1] - y : y + h - p[1];
    if (pp === 0) {
      if (qq <= 0) return false;
      continue;
    }
    const r = qq / pp;
    if (pp < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
  }
  return t1 - t0 > 1e-9;
}

/** True when segments p1-q1 and p2-q2 cross (touching ends do not count). */
export function segmentsCross(p1, q1, p2, q2) {
  const side = (a, b, c) => (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  const d1 = side(p2, q2, p1),
    d2 = side(p2, q2, q1),
    d3 = side(p1, q1, p2),
    d4 = side(p1, q1, q2);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

/** Points along a polyline (px) at most `spacing` apart, as 1 x 1 obstacles for labels (leaders may cross them). */
export function polylineObstacles(points, spacing = 4) {
  const out = [];
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    out.push({ x: p[0] - 0.5, y: p[1] - 0.5, w: 1, h: 1, boxOnly: true });
    const q = points[i + 1];
    if (!q) break;
    const n = Math.min(200, Math.floor(Math.hypot(q[0] - p[0], q[1] - p[1]) / spacing));
    for (let k = 1; k <= n; k++) {
      const t = k / (n + 1);
      out.push({ x: p[0] + t * (q[0] - p[0]) - 0.5, y: p[1] + t * (q[1] - p[1]) - 0.5, w: 1, h: 1, boxOnly: true });
    }
  }
  return out;
}

/** The point of box b nearest to p. */
export function nearestPoint(b, p) {
  return [Math.max(b.x, Math.min(b.x + b.w, p[0])), Math.max(b.y, Math.min(b.y + b.h, p[1]))];
}

/**
 * Break text into lines no wider than maxW (measure(s) gives a width): by words, and a word wider than
 * maxW on its own is cut between characters. Every character is kept, in order.
 */
export function wrapLines(text, maxW, measure) {
  const lines = [];
  let cur = '';
  const push = (word) => {
    const next = cur ? `${cur} ${word}` : word;
    if (!cur || measure(next) <= maxW) {
      cur = next;
      return;
    }
    lines.push(cur);
    cur = word;
  };
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (measure(word) <= maxW) {
      push(word);
      continue;
    }
    let piece = '';
    for (const ch of Array.from(word)) {
      if (piece && measure(piece + ch) > maxW) {
        push(piece);
        piece = '';
        if (cur) {
          lines.push(cur);
          cur = '';
        }
      }
      piece += ch;
    }
    if (piece) push(piece);
  }
  if (cur) lines.push(cur);
  return lines.length ? lines : [''];
}

const CELL = 16; // px of a grid cell of obstacleGrid
const REACH = 16384; // cells a grid's key reaches each way from 0 (a box further out is tested one by one)

/** The key of cell (gx, gy) of obstacleGrid, a small integer (cheap to hash, no string); -1 out of reach. */
const cellKey = (gx, gy) =>
  gx >= -REACH && gx < REACH && gy >= -REACH && gy < REACH ? (gx + REACH) * 2 * REACH + gy + REACH : -1;

/**
 * Obstacles that only boxes must avoid (as boxOnly ones: the points of a curve), put in a grid once, for placeLabels'
 * `points` (so that the grid is made in a task of its own, or once for several placements).
 */
export function pointObstacles(boxes) {
  return obstacleGrid(boxes);
}

/**
 * boxes in a grid of CELL-px cells: overlaps(c, pad, any) counts the boxes that boxesOverlap(c, box, pad), each once,
 * looking only at the cells c (grown by pad) touches; with any, it stops at the first (returns 0 or 1).
 */
function obstacleGrid(boxes) {
  const cells = new Map(),
    wide = []; // boxes over many cells, out of reach (or not finite): tested one by one
  const many = (x0, x1, y0, y1) => !((x1 - x0 + 1) * (y1 - y0 + 1) <= 64) || cellKey(x0, y0) < 0 || cellKey(x1, y1) < 0;
  boxes.forEach((b, i) => {
    const x0 = Math.floor(b.x / CELL),
      x1 = Math.floor((b.x + b.w) / CELL),
      y0 = Math.floor(b.y / CELL),
      y1 = Math.floor((b.y + b.h) / CELL);
    if (many(x0, x1, y0, y1)) return wide.push(i);
    for (let gx = x0; gx <= x1; gx++)
      for (let gy = y0; gy <= y1; gy++) {
        const key = cellKey(gx, gy);
        const list = cells.get(key);
        if (list) list.push(i);
        else cells.set(key, [i]);
      }
  });
  const seen = new Int32Array(boxes.length).fill(-1);
  let query = 0;
  /** Boxes of list (indices) that c overlaps and that were not seen in this query, up to limit. */
  const count = (list, c, pad, limit) => {
    let n = 0;
    for (let k = 0; k < list.length && n < limit; k++) {
      const i = list[k];
      if (seen[i] === query) continue;
      seen[i] = query;
      if (boxesOverlap(c, boxes[i], pad)) n++;
    }
    return n;
  };
  return {
    overlaps(c, pad, any = false) {
      if (!boxes.length) return 0;
      query++;
      const limit = any ? 1 : Infinity;
      let n = count(wide, c, pad, limit);
      const x0 = Math.floor((c.x - pad) / CELL),
        x1 = Math.floor((c.x + c.w + pad) / CELL),
        y0 = Math.floor((c.y - pad) / CELL),
        y1 = Math.floor((c.y + c.h + pad) / CELL);
      if (!(Math.abs(x1 - x0) + Math.abs(y1 - y0) <= 2 * CELL)) {
        // a box over many cells (or not finite): every box
        for (let i = 0; i < boxes.length && n < limit; i++) {
          if (seen[i] !== query && boxesOverlap(c, boxes[i], pad)) n++;
        }
        return n;
      }
      for (let gx = x0; gx <= x1 && n < limit; gx++)
        for (let gy = y0; gy <= y1 && n < limit; gy++) {
          const list = cells.get(cellKey(gx, gy)); // out of reach (-1): no cell, its boxes are in wide
          if (list) n += count(list, c, pad, limit - n);
        }
      return n;
    },
  };
}

/**
 * Pick one candidate per label. items: [{ candidates: [{ x, y, w, h, leader?: [[x, y], [x, y]] }], anchorKey? }],
 * each item's candidates in order of preference. A set of choices is clear when every box lies inside `bounds`
 * (if given), keeps pad away from every obstacle and every other box, its leader crosses none of those (except
 * the obstacle whose `key` is the item's anchorKey, the mark the leader starts from, and obstacles marked
 * boxOnly, which only boxes must avoid), no other leader
 * crosses it, and no two leaders cross. With budget > 0 a depth-first search finds a clear set (items in order,
 * each as preferred as possible) within `budget` pair checks; otherwise, or when the budget runs out, each item
 * in turn takes its first candidate that is clear of the choices before it, or the one with the fewest
 * conflicts (`conflicts` says how many). `points` (pointObstacles) are more obstacles, boxOnly. Returns
 * [{ index, box, leader, conflicts }].
 */
export function placeLabels(items, { obstacles = [], points = null, bounds = null, pad = 2, budget = 0 } = {}) {
  const tests = placementTests(obstacles, points, bounds, pad);
  const found = budget > 0 ? searchClear(items, tests, budget) : null;
  return found ?? placeGreedy(items, tests);
}

/** A placement's box and leader as placeLabels returns it. */
const pick = (index, c, conflicts) => ({
  index,
  box: { x: c.x, y: c.y, w: c.w, h: c.h },
  leader: c.leader ?? null,
  conflicts,
});

/**
 * The two tests of placeLabels: fixedConflicts(item, c, any), how many obstacles (and the bounds) a candidate c of
 * item conflicts with (with any, 0 or 1: whether it conflicts at all); clash(c, t), whether two candidates conflict
 * (boxes overlap, a leader crosses a box or a leader).
 */
function placementTests(obstacles, pointGrid, bounds, pad) {
  const inBounds = (c) =>
    !bounds ||
    (c.x >= bounds.x - 0.01 &&
      c.y >= bounds.y - 0.01 &&
      c.x + c.w <= bounds.x + bounds.w + 0.01 &&
      c.y + c.h <= bounds.y + bounds.h + 0.01);
  // boxOnly obstacles (many: the points of a curve) are only tested against boxes, through a grid; the others
  // (few: marks) against boxes and leaders, one by one
  const points = obstacleGrid(obstacles.filter((o) => o.boxOnly));
  const others = obstacles.filter((o) => !o.boxOnly);
  const fixedConflicts = (item, c, any = false) => {
    let n = inBounds(c) ? 0 : 1;
    if (any && n) return n;
    n += points.overlaps(c, pad, any);
    if (any && n) return n;
    if (pointGrid) n += pointGrid.overlaps(c, pad, any);
    for (const o of others) {
      if (any && n) return n;
      if (boxesOverlap(c, o, pad)) n++;
      else if (
        c.leader &&
        (o.key === undefined || o.key !== item.anchorKey) &&
        segmentHitsBox(c.leader[0], c.leader[1], o, pad)
      )
        n++;
    }
    return n;
  };
  const clash = (c, t) =>
    boxesOverlap(c, t, pad) ||
    (c.leader && segmentHitsBox(c.leader[0], c.leader[1], t, pad)) ||
    (t.leader && segmentHitsBox(t.leader[0], t.leader[1], c, pad)) ||
    (c.leader && t.leader && segmentsCross(c.leader[0], c.leader[1], t.leader[0], t.leader[1]));
  return { fixedConflicts, clash };
}

/** Depth-first search for a clear set (see placeLabels) within budget pair checks: the placements, or null. */
function searchClear(items, { fixedConflicts, clash }, budget) {
  // each item's clear candidates in order, found as the search first reaches them (most never are)
  const clear = items.map(() => []),
    scanned = items.map(() => 0);
  function* clearOf(i) {
    for (let k = 0; ; k++) {
      const { candidates } = items[i];
      while (k >= clear[i].length && scanned[i] < candidates.length) {
        const index = scanned[i]++;
        const c = candidates.at(index);
        if (!fixedConflicts(items[i], c, true)) clear[i].push({ c, index });
      }
      if (k >= clear[i].length) return;
      yield clear[i][k];
    }
  }
  let work = 0;
  const chosen = [];
  const dfs = (i) => {
    if (i === items.length) return true;
    for (const v of clearOf(i)) {
      work += chosen.length + 1;
      if (work > budget) return false;
      if (chosen.some((t) => clash(v.c, t.c))) continue;
      chosen.push(v);
      if (dfs(i + 1)) return true;
      chosen.pop();
      if (work > budget) return false;
    }
    return false;
  };
  return dfs(0) ? chosen.map((v) => pick(v.index, v.c, 0)) : null;
}

/** Each item in turn: its first candidate clear of the choices before it, or the one with the fewest conflicts. */
function placeGreedy(items, { fixedConflicts, clash }) {
  const taken = [];
  for (const item of items) {
    let best = null;
    for (let index = 0; index < item.candidates.length; index++) {
      const c = item.candidates.at(index);
      let n = fixedConflicts(item, c);
      if (best && n >= best.conflicts) continue;
      for (const t of taken) if (clash(c, { ...t.box, leader: t.leader })) n++;
      if (!best || n < best.conflicts) best = pick(index, c, n);
      if (n === 0) break;
    }
    if (best) taken.push(best);
  }
  return taken;
}

const TURNS = [0, 20, -20, 40, -40, 65, -65, 90, -90, 125, -125, 160, -160, 180];
const orders = new Map(); // `${step}|${steps}` -> [[turn index, k]] in order of cost (the same for every label)

/** The (turn, step) pairs of radialCandidates, cheapest first (a stable sort: turn by turn, then outwards). */
function candidateOrder(step, steps) {
  const key = `${step}|${steps}`;
  if (!orders.has(key)) {
    const all = [];
    TURNS.forEach((turn, ti) => {
      for (let k = 0; k <= steps; k++) all.push({ ti, k, cost: k * step + Math.abs(turn) * 0.35 });
    });
    orders.set(
      key,
      all.sort((p, q) => p.cost - q.cost),
    );
  }
  return orders.get(key);
}

/** A candidate of radialCandidates: its leader (from the anchor a at distance r0) is worked out when first read. */
class RadialCandidate {
  constructor(x, y, w, h, a, r0, withLeader) {
    this.x = x;
    this.y = y;
    this.w = w;
    this.h = h;
    this._from = withLeader ? a : null;
    this._r0 = r0;
    this._leader = undefined;
  }
  get leader() {
    const a = this._from;
    if (a) {
      this._from = null;
      const r0 = this._r0;
      const end = nearestPoint(this, a);
      const len = Math.hypot(end[0] - a[0], end[1] - a[1]);
      if (len > r0 + 2)
        this._leader = [[a[0] + ((end[0] - a[0]) * r0) / len, a[1] + ((end[1] - a[1]) * r0) / len], end];
    }
    return this._leader;
  }
}

/** radialCandidates' list: `length` and `at(i)`, as an array has, each candidate made when first asked for. */
class RadialCandidates {
  constructor(a, dir, w, h, { gap, r0, step, steps, leaderFrom }) {
    this._order = candidateOrder(step, steps);
    this.length = this._order.length;
    this._made = [];
    this._dirs = TURNS.map((turn) => {
      const t = (turn * Math.PI) / 180;
      const d = [dir[0] * Math.cos(t) - dir[1] * Math.sin(t), dir[0] * Math.sin(t) + dir[1] * Math.cos(t)];
      return { d, support: (Math.abs(d[0]) * w) / 2 + (Math.abs(d[1]) * h) / 2 };
    });
    Object.assign(this, { a, w, h, gap, r0, step, leaderFrom });
  }
  at(i) {
    if (i < 0 || i >= this.length) return undefined;
    if (this._made[i]) return this._made[i];
    const { ti, k } = this._order[i];
    const { a, w, h, gap, step } = this;
    const { d, support } = this._dirs[ti];
    const dist = gap + k * step;
    const cx = a[0] + d[0] * (dist + support),
      cy = a[1] + d[1] * (dist + support);
    const leader = dist - gap > this.leaderFrom || TURNS[ti] !== 0;
    return (this._made[i] = new RadialCandidate(cx - w / 2, cy - h / 2, w, h, a, this.r0, leader));
  }
  *[Symbol.iterator]() {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }
}

/**
 * Candidate boxes of a w x h label beside the point a, pointing away from it along dir (a unit vector):
 * first at distance gap, then further out and turned by growing angles, cheapest first. A candidate
 * further than `leaderFrom` from a carries a leader line from a (at distance r0) to the box. A list with `length`
 * and `at(i)`, whose candidates (and their leaders) are made when a placement first reads them: most never are.
 */
export function radialCandidates(a, dir, w, h, { gap = 6, r0 = 0, step = 4, steps = 40, leaderFrom = 10 } = {}) {
  return new RadialCandidates(a, dir, w, h, { gap, r0, step, steps, leaderFrom });
}
