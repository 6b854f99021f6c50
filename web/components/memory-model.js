// Model of <ffn-memory-widget>: builds a hand-made key-value FFN from facts and evaluates it with the wasm kernels.
//
// The geometry (our own construction, d = 2): the key token of fact i sits on the unit circle at
// angle 90deg + i * 360deg / N, its key is KEY_SCALE times that direction, and its bias is
// -threshold. The value written by memory i is VALUE_SCALE times the output (unembedding)
// direction of its value token, placed at the angle of the first fact that names it. Distractor
// tokens such as "the" sit close to the origin, so they match no key above the threshold.
// Every number shown by the view comes from `compute`, which only calls kernels of the ffn module.

export const KEY_SCALE = 3.6;
export const VALUE_SCALE = 1;
export const DEFAULT_THRESHOLD = 1.5;
export const QUERY_LIMIT = 1.25;
export const ACTIVATIONS = ['relu', 'gelu', 'silu'];
/** A decoded score below this counts as "writes nothing". */
export const DECODE_MIN = 0.25;
/** A memory whose |activation| is above this but whose match is negative "leaks". */
export const LEAK_MIN = 0.005;

export const DEFAULT_FACTS = Object.freeze([
  Object.freeze({ key: 'Tokyo', value: 'Japan' }),
  Object.freeze({ key: 'Paris', value: 'France' }),
  Object.freeze({ key: 'Rome', value: 'Italy' }),
]);
export const DEFAULT_DISTRACTORS = Object.freeze(['the', 'of', 'and']);

const TOKEN_RE = /^[^\s>@,;]{1,24}$/u;

/**
 * Parse the `facts` attribute: "Tokyo>Japan, Paris>France@1.2" (key>value, optional @threshold),
 * separated by commas or semicolons. Also accepts an array of { key, value, threshold? }.
 */
export function parseFacts(input) {
  let list;
  if (Array.isArray(input)) {
    list = input.map((f, i) => {
      if (!f || typeof f !== 'object') throw new TypeError(`parseFacts: fact ${i} must be an object { key, value, threshold? }`);
      return { key: String(f.key ?? '').trim(), value: String(f.value ?? '').trim(), threshold: f.threshold };
    });
  } else if (typeof input === 'string') {
    list = input.split(/[,;]/).map((s) => s.trim()).filter(Boolean).map((s, i) => {
      const m = /^([^>@]+)>([^>@]+)(?:@(.+))?$/.exec(s);
      if (!m) throw new TypeError(`parseFacts: fact ${i} "${s}" should look like "Tokyo>Japan" or "Tokyo>Japan@1.5"`);
      return { key: m[1].trim(), value: m[2].trim(), threshold: m[3] === undefined ? undefined : Number(m[3]) };
    });
  } else {
    throw new TypeError('parseFacts: facts must be a string like "Tokyo>Japan, Paris>France" or an array of { key, value }');
  }
  if (list.length < 1 || list.length > 8) throw new RangeError(`parseFacts: expected 1 to 8 facts, got ${list.length}`);
  const seen = new Set();
  for (const [i, f] of list.entries()) {
    if (!TOKEN_RE.test(f.key) || !TOKEN_RE.test(f.value)) throw new TypeError(`parseFacts: fact ${i} has an empty or malformed token ("${f.key}" > "${f.value}")`);
    if (seen.has(f.key)) throw new TypeError(`parseFacts: key token "${f.key}" appears twice`);
    seen.add(f.key);
    if (f.threshold === undefined || f.threshold === null || f.threshold === '') delete f.threshold;
    else if (!Number.isFinite(Number(f.threshold))) throw new TypeError(`parseFacts: fact ${i} threshold must be a number, got "${f.threshold}"`);
    else f.threshold = Number(f.threshold);
  }
  return list;
}

/** Inverse of parseFacts for the string form. */
export function formatFacts(facts) {
  return facts.map((f) => `${f.key}>${f.value}${f.threshold === undefined ? '' : '@' + f.threshold}`).join(', ');
}

/** Parse the `distractors` attribute: "the, of, and". */
export function parseDistractors(input) {
  const list = Array.isArray(input) ? input.map(String) : String(input).split(/[,;\s]+/);
  const out = list.map((s) => s.trim()).filter(Boolean);
  if (out.length > 8) throw new RangeError(`parseDistractors: at most 8 distractor tokens, got ${out.length}`);
  for (const t of out) if (!TOKEN_RE.test(t)) throw new TypeError(`parseDistractors: malformed token "${t}"`);
  return out;
}

const dir = (deg) => [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];

/**
 * Build the memory FFN for a list of facts: weights in row-vector layout,
 * x (2) @ W1 (2, N) + b1 (N) -> match (N); coef (N) @ W2 (N, 2) -> written (2).
 * Returns plain arrays; `threshold` is the global threshold for facts without their own.
 */
export function buildMemory(facts = DEFAULT_FACTS, distractors = DEFAULT_DISTRACTORS, threshold = DEFAULT_THRESHOLD) {
  if (!Number.isFinite(threshold)) throw new TypeError(`buildMemory: threshold must be a finite number, got ${threshold}`);
  const N = facts.length;
  const step = 360 / N;
  const keyTokens = facts.map((f, i) => ({ name: f.key, kind: 'key', angle: 90 + i * step, pos: dir(90 + i * step) }));
  // Distractors: near the origin, between the keys, each at a different small radius.
  const distractorTokens = distractors
    .filter((t) => !keyTokens.some((k) => k.name === t))
    .map((t, j) => {
      const r = j === 0 ? 0.12 : 0.22 + 0.05 * j;
      const a = j === 0 ? -60 : 90 + step / 2 + j * step;
      const p = dir(a);
      return { name: t, kind: 'distractor', pos: [r * p[0], r * p[1]] };
    });
  const vocab = [];
  for (const [i, f] of facts.entries()) {
    if (!vocab.some((v) => v.name === f.value)) vocab.push({ name: f.value, angle: keyTokens[i].angle, dir: dir(keyTokens[i].angle) });
  }
  const W1 = new Float32Array(2 * N); // (2, N)
  const b1 = new Float32Array(N);
  const W2 = new Float32Array(N * 2); // (N, 2)
  const thresholds = facts.map((f) => (f.threshold === undefined ? threshold : f.threshold));
  for (let i = 0; i < N; i++) {
    const k = keyTokens[i].pos;
    W1[0 * N + i] = KEY_SCALE * k[0];
    W1[1 * N + i] = KEY_SCALE * k[1];
    b1[i] = -thresholds[i];
    const v = vocab.find((t) => t.name === facts[i].value).dir;
    W2[i * 2 + 0] = VALUE_SCALE * v[0];
    W2[i * 2 + 1] = VALUE_SCALE * v[1];
  }
  // Augmented first layer [x, 1] @ [[W1], [b1]] gives the raw match in one matmul.
  const W1aug = new Float32Array(3 * N);
  W1aug.set(W1, 0);
  W1aug.set(b1, 2 * N);
  // Output embedding, transposed: written (2) @ UT (2, V) -> scores (V).
  const V = vocab.length;
  const UT = new Float32Array(2 * V);
  for (let j = 0; j < V; j++) { UT[j] = vocab[j].dir[0]; UT[V + j] = vocab[j].dir[1]; }
  return {
    d: 2, dff: N, facts: facts.map((f) => ({ ...f })), thresholds,
    tokens: [...keyTokens, ...distractorTokens], keyTokens, vocab,
    W1: { data: W1, shape: [2, N] }, b1: { data: b1, shape: [N] }, W2: { data: W2, shape: [N, 2] },
    W1aug: { data: W1aug, shape: [3, N] }, UT: { data: UT, shape: [2, V] },
  };
}

function order(coef) {
  // Largest first, ties by lower index (the kernel's rule).
  return Array.from(coef.keys()).sort((a, b) => (coef[b] - coef[a]) || (a - b));
}

/**
 * Evaluate the memory FFN at query (x, y) with the kernels of `ffn`.
 * state: { x, y, k, activation: 'relu'|'gelu'|'silu' }.
 * Returns { match, coef, top, partial, written, scores, partialScores, decoded, partialDecoded,
 * fires, leaks } with numbers straight from the kernels (Float32Array), and index lists.
 */
export function compute(ffn, mem, state) {
  const { x, y } = state;
  const N = mem.dff;
  const k = Math.max(0, Math.min(N, Math.round(state.k ?? N)));
  const act = state.activation ?? 'relu';
  if (!ACTIVATIONS.includes(act)) throw new TypeError(`compute: activation must be one of ${ACTIVATIONS.join(', ')}, got "${act}"`);
  if (!Number.isFinite(x) || !Number.isFinite(y)) throw new TypeError(`compute: query must be two finite numbers, got (${x}, ${y})`);
  const q = new Float32Array([x, y]);
  const match = ffn.matmul(new Float32Array([x, y, 1]), mem.W1aug).data; // x . k_i + b_i
  let coef, top, partial, written;
  if (act === 'relu') {
    const r = ffn.ffnMemories(q, mem.W1, mem.b1, mem.W2, k);
    coef = r.coef.data ?? r.coef;
    top = Array.from(r.top);
    partial = r.partial.data ?? r.partial;
    written = ffn.ffnMemories(q, mem.W1, mem.b1, mem.W2, N).partial;
    written = written.data ?? written;
  } else {
    coef = ffn[act](match).data;
    top = order(coef).slice(0, k);
    const masked = new Float32Array(N);
    for (const i of top) masked[i] = coef[i];
    partial = ffn.matmul(masked, mem.W2).data;
    written = ffn.matmul(coef, mem.W2).data;
  }
  const scores = ffn.matmul(written, mem.UT).data;
  const partialScores = ffn.matmul(partial, mem.UT).data;
  const decode = (s) => {
    let best = -1;
    for (let j = 0; j < s.length; j++) if (best < 0 || s[j] > s[best]) best = j;
    return best >= 0 && s[best] >= DECODE_MIN ? { token: mem.vocab[best].name, index: best, score: s[best] }
      : { token: null, index: best, score: best >= 0 ? s[best] : 0 };
  };
  const fires = [];
  const leaks = [];
  for (let i = 0; i < N; i++) {
    if (match[i] > 0 && coef[i] > 0) fires.push(i);
    else if (Math.abs(coef[i]) > LEAK_MIN) leaks.push(i);
  }
  fires.sort((a, b) => coef[b] - coef[a]);
  return {
    query: [x, y], k, activation: act, match, coef, top, partial, written, scores, partialScores,
    decoded: decode(scores), partialDecoded: decode(partialScores), fires, leaks,
  };
}

/** The sentence the aria-live region reads, e.g. "Tokyo's memory fires (2.10) and writes Japan." */
export function describe(mem, r) {
  const names = r.fires.map((i) => `${mem.facts[i].key}'s memory fires (${r.coef[i].toFixed(2)})`);
  let s;
  if (names.length === 0) s = 'No memory fires';
  else s = names.join(', ');
  if (r.decoded.token) s += `${names.length ? ' and' : ', but the leaks'} write${names.length ? 's' : ''} ${r.decoded.token} (score ${r.decoded.score.toFixed(2)})`;
  else s += names.length ? ', but the write decodes to no token' : '; nothing is written';
  if (r.leaks.length) s += `; ${r.leaks.length} ${r.leaks.length === 1 ? 'memory leaks' : 'memories leak'} through ${r.activation === 'gelu' ? 'GELU' : 'SiLU'}`;
  return s + '.';
}

/** Nearest token to the query (for labels), or null when none is within `radius`. */
export function nearestToken(mem, x, y, radius = 0.08) {
  let best = null;
  let bd = radius * radius;
  for (const t of mem.tokens) {
    const dx = t.pos[0] - x, dy = t.pos[1] - y;
    const d2 = dx * dx + dy * dy;
    if (d2 <= bd) { bd = d2; best = t; }
  }
  return best;
}

/**
 * The part of the view square [-lim, lim]^2 where memory i fires (x . k_i + b_i > 0), as polygon
 * points, so the view can shade it. Clips the square by the half-plane (Sutherland-Hodgman).
 */
export function firingRegion(mem, i, lim = 1.5) {
  const N = mem.dff;
  const kx = mem.W1.data[i], ky = mem.W1.data[N + i], b = mem.b1.data[i];
  const f = (p) => p[0] * kx + p[1] * ky + b;
  const sq = [[-lim, -lim], [lim, -lim], [lim, lim], [-lim, lim]];
  const out = [];
  for (let j = 0; j < 4; j++) {
    const p = sq[j], q = sq[(j + 1) % 4];
    const fp = f(p), fq = f(q);
    if (fp > 0) out.push(p);
    if ((fp > 0) !== (fq > 0)) {
      const t = fp / (fp - fq);
      out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
    }
  }
  return out;
}
