// Model of <ffn-memory-widget>: builds a hand-made key-value FFN from facts and evaluates it with the wasm kernels.
//
// The geometry (our own construction, d = 2): with N facts the keys are KEY_SCALE times unit directions
// step = 360/max(N, 3) degrees apart, starting at 90deg (so one or two facts sit as in the three-fact layout).
// Every memory's bias is -threshold. The default threshold lies between two bounds that make the widget
// behave as the course page says: above KEY_SCALE cos(step), so a key token fires only its own memory, and
// below KEY_SCALE cos^2(step/2), so halfway between two neighbouring keys both memories fire (never below
// THRESHOLD_FLOOR, which keeps the filler words near the origin silent). Filler words ("distractors") sit
// on the bisectors between keys, close enough to the origin that they match no key above the default
// threshold. The value written by memory i is VALUE_SCALE times the output (unembedding) direction of its
// value token, placed at the angle of the first fact that names it. Every number shown by the view comes
// from `compute`, which only calls kernels of the ffn module.
import { quote, checkLength, parseNumber, toNumber } from './parse.js';
import { localizedError as fail, msg } from '../i18n/index.js';

export const KEY_SCALE = 3.6;
export const VALUE_SCALE = 1;
export const QUERY_LIMIT = 1.25;
export const ACTIVATIONS = ['relu', 'gelu', 'silu'];
/** A decoded score below this counts as "writes nothing". */
export const DECODE_MIN = 0.25;
/** The lowest default threshold (keeps the filler words silent). */
export const THRESHOLD_FLOOR = 0.5;
/** Thresholds (the attribute, the slider, a fact's own) lie in [THRESHOLD_MIN, THRESHOLD_MAX]. */
export const THRESHOLD_MIN = -2;
export const THRESHOLD_MAX = 3.5;
/** At most this many facts, filler words, and characters in one token's label. */
export const MAX_FACTS = 8;
export const MAX_DISTRACTORS = 8;
export const MAX_LABEL = 64;

const rad = (deg) => (deg * Math.PI) / 180;

/** Angle in degrees between neighbouring keys for n facts. */
export function keyStep(n) {
  return 360 / Math.max(3, n);
}

/** The threshold used when none is given, for n facts (a multiple of 0.05; see the geometry above). */
export function defaultThreshold(n) {
  const s = rad(keyStep(n));
  const neighbour = n >= 2 ? KEY_SCALE * Math.cos(s) : -Infinity;
  const halfway = KEY_SCALE * Math.cos(s / 2) ** 2;
  return Math.max(THRESHOLD_FLOOR, Math.round(((neighbour + halfway) / 2) * 20) / 20);
}

/** The default threshold for the three default facts. */
export const DEFAULT_THRESHOLD = defaultThreshold(3);

export const DEFAULT_FACTS = Object.freeze([
  Object.freeze({ key: 'Tokyo', value: 'Japan' }),
  Object.freeze({ key: 'Paris', value: 'France' }),
  Object.freeze({ key: 'Rome', value: 'Italy' }),
]);
export const DEFAULT_DISTRACTORS = Object.freeze(['the', 'of', 'and']);

// A label: no control characters and none of the separators of the facts syntax.
const BAD_LABEL_RE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}>@,;]/u;

/** A token label: 1 to MAX_LABEL characters (spaces inside allowed unless `word`), without > @ , ; or controls. */
export function parseLabel(name, value, { word = false } = {}) {
  if (typeof value !== 'string') throw fail(TypeError, 'errors.mustBeString', { name, type: typeof value });
  if (value.length > 4 * MAX_LABEL) {
    throw fail(RangeError, 'errors.labelTooLong', { name, n: String(value.length), max: String(MAX_LABEL) });
  }
  const s = value.trim().replace(/\s+/g, ' ');
  const n = Array.from(s).length;
  if (n < 1) throw fail(TypeError, 'errors.labelEmpty', { name });
  if (n > MAX_LABEL) {
    throw fail(RangeError, 'errors.labelChars', { name, label: quote(s), n: String(n), max: String(MAX_LABEL) });
  }
  if (BAD_LABEL_RE.test(s) || (word && /\s/.test(s))) {
    throw fail(TypeError, word ? 'errors.labelBadWord' : 'errors.labelBad', { name, label: quote(s) });
  }
  return s;
}

const FACTS_MAX_CHARS = MAX_FACTS * (2 * 4 * MAX_LABEL + 24);

/** A threshold given as a number or text, within [THRESHOLD_MIN, THRESHOLD_MAX]. */
export function parseThreshold(value, name = 'threshold') {
  return toNumber(name, value, { min: THRESHOLD_MIN, max: THRESHOLD_MAX });
}

/**
 * Parse the `facts` attribute: "Tokyo>Japan, Paris>France@1.2" (key>value, optional @threshold),
 * separated by commas or semicolons. Also accepts an array of { key, value, threshold? }.
 * 1 to MAX_FACTS facts; labels as parseLabel; key tokens distinct. Lengths are checked before any split.
 */
export function parseFacts(input) {
  let list;
  if (Array.isArray(input)) {
    if (input.length < 1 || input.length > MAX_FACTS) {
      throw fail(RangeError, 'errors.factCount', { max: String(MAX_FACTS), n: String(input.length) });
    }
    list = [];
    for (let i = 0; i < input.length; i++) {
      const f = input[i];
      if (!f || typeof f !== 'object') throw fail(TypeError, 'errors.factObject', { i: String(i) });
      list.push({ key: f.key, value: f.value, threshold: f.threshold });
    }
  } else if (typeof input === 'string') {
    checkLength(msg('errors.factsAttr'), input, FACTS_MAX_CHARS);
    const parts = input
      .split(/[,;]/)
      .map((s) => s.trim())
      .filter(Boolean);
    if (parts.length < 1 || parts.length > MAX_FACTS) {
      throw fail(RangeError, 'errors.factCount', { max: String(MAX_FACTS), n: String(parts.length) });
    }
    list = parts.map((s, i) => {
      const m = /^([^>@]+)>([^>@]+)(?:@(.+))?$/.exec(s);
      if (!m) throw fail(TypeError, 'errors.factSyntax', { i: String(i), fact: quote(s) });
      return { key: m[1], value: m[2], threshold: m[3] };
    });
  } else {
    throw fail(TypeError, 'errors.factsType');
  }
  const seen = new Set();
  return list.map((f, i) => {
    const out = {
      key: parseLabel(msg('errors.factKey', { i: String(i) }), f.key),
      value: parseLabel(msg('errors.factValue', { i: String(i) }), f.value),
    };
    if (seen.has(out.key)) throw fail(TypeError, 'errors.factTwice', { key: quote(out.key) });
    seen.add(out.key);
    if (f.threshold !== undefined && f.threshold !== null && f.threshold !== '') {
      try {
        const t = typeof f.threshold === 'string' ? f.threshold.trim() : f.threshold;
        out.threshold = parseThreshold(t, msg('errors.factThreshold', { i: String(i) }));
      } catch (err) {
        if (err instanceof TypeError) {
          throw fail(TypeError, 'errors.factThresholdNumber', { i: String(i), got: quote(String(f.threshold)) });
        }
        throw err;
      }
    }
    return out;
  });
}

/** Inverse of parseFacts for the string form. */
export function formatFacts(facts) {
  return facts.map((f) => `${f.key}>${f.value}${f.threshold === undefined ? '' : '@' + f.threshold}`).join(', ');
}

/** Parse the `distractors` attribute: "the, of, and" (single words, at most MAX_DISTRACTORS). */
export function parseDistractors(input) {
  let list;
  if (Array.isArray(input)) {
    if (input.length > MAX_DISTRACTORS) {
      throw fail(RangeError, 'errors.distractorCount', { max: String(MAX_DISTRACTORS), n: String(input.length) });
    }
    list = Array.from({ length: input.length }, (_, i) => input[i]);
  } else {
    checkLength(msg('errors.distractorsAttr'), input, MAX_DISTRACTORS * (4 * MAX_LABEL + 2));
    list = input.split(/[,;\s]+/).filter(Boolean);
    if (list.length > MAX_DISTRACTORS) {
      throw fail(RangeError, 'errors.distractorCount', { max: String(MAX_DISTRACTORS), n: String(list.length) });
    }
  }
  return list.map((t, i) => parseLabel(msg('errors.distractorToken', { i: String(i) }), t, { word: true }));
}

/** A query "x,y": two numbers, each clamped to [-QUERY_LIMIT, QUERY_LIMIT]. */
export function parseQuery(value, name = 'query') {
  checkLength(name, value, 64);
  const parts = value.split(',');
  if (parts.length !== 2) throw fail(TypeError, 'errors.queryShape', { name, got: quote(value) });
  const [x, y] = parts.map((p) => {
    try {
      return parseNumber(name, p.trim());
    } catch {
      throw fail(TypeError, 'errors.queryNumbers', { name, got: quote(value) });
    }
  });
  return [clampQuery(x), clampQuery(y)];
}

/** Clamp one query coordinate to the plane. */
export function clampQuery(v) {
  return Math.max(-QUERY_LIMIT, Math.min(QUERY_LIMIT, v));
}

/** top-k as text or a number: rounded, then clamped to [0, MAX_FACTS] (the widget clamps it again to its facts). */
export function parseK(value, name = 'k') {
  const v = toNumber(name, value);
  return Math.max(0, Math.min(MAX_FACTS, Math.round(v)));
}

/** One of ACTIVATIONS, any case. */
export function parseActivation(value, name = 'activation') {
  const a = checkLength(name, value, 16).trim().toLowerCase();
  if (!ACTIVATIONS.includes(a)) {
    throw fail(TypeError, 'errors.activation', { name, list: ACTIVATIONS.join(', '), got: quote(value) });
  }
  return a;
}

/** The `sync-hash` key: letters, digits, - and _, at most 32; empty means "memory". */
export function parseHashKey(value) {
  const s = checkLength('sync-hash', value, 64).trim();
  if (s === '') return 'memory';
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(s)) {
    throw fail(TypeError, 'errors.hashKey', { got: quote(value) });
  }
  return s;
}

/** The part of the URL hash the widget reads: at most this many characters. */
export const HASH_MAX = 256;

/**
 * Read the widget's state from its hash value "q:x,y;k:n;t:v;a:gelu". Returns { state, ignored }: the
 * parts understood (query, k, threshold, activation) and a message for each part that was not.
 */
export function parseHashState(value) {
  const { state, ignored } = readHashState(value);
  return { state, ignored: ignored.map(String) };
}

/** parseHashState, with each ignored part as a message in the reader's language (for the widget). */
export function readHashState(value) {
  checkLength(msg('errors.hashValue'), value, HASH_MAX);
  const state = {};
  const ignored = [];
  const readers = {
    q: ['query', parseQuery],
    k: ['k', parseK],
    t: ['threshold', parseThreshold],
    a: ['activation', parseActivation],
  };
  for (const part of value.split(';')) {
    if (!part) continue;
    const c = part.indexOf(':');
    const name = c < 0 ? part : part.slice(0, c);
    const reader = Object.hasOwn(readers, name) ? readers[name] : null;
    if (!reader || c < 0) {
      ignored.push(msg('errors.hashPart', { part: quote(part) }));
      continue;
    }
    try {
      state[reader[0]] = reader[1](part.slice(c + 1), msg('errors.hashName', { name }));
    } catch (err) {
      ignored.push(err.i18n ? msg(err.i18n.key, err.i18n.params) : err.message);
    }
  }
  return { state, ignored };
}

/** The longest URL hash searched for the widget's part (the part itself is at most HASH_MAX characters). */
export const HASH_READ_MAX = HASH_MAX * 16;

/**
 * The widget's part of a URL hash ("#other=1&memory=q:0,1;k:2" for key "memory"), read within bounds: null when the
 * hash has no such part, else readHashState's { state, ignored }. A hash longer than HASH_READ_MAX is refused (a
 * RangeError naming sync-hash) before it is parsed.
 */
export function readHashFrom(hash, key) {
  if (typeof hash !== 'string') throw fail(TypeError, 'errors.mustBeString', { name: 'sync-hash', type: typeof hash });
  if (hash.length > HASH_READ_MAX) {
    throw fail(RangeError, 'errors.hashTooLong', { n: String(hash.length), max: String(HASH_READ_MAX) });
  }
  const s = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash).get(key);
  return s ? readHashState(s) : null;
}

/** The hash value for a state (inverse of parseHashState). */
export function formatHashState({ query, k, threshold, activation }) {
  return `q:${query[0].toFixed(3)},${query[1].toFixed(3)};k:${k};t:${threshold};a:${activation}`;
}

/**
 * The parser behind each attribute of <ffn-memory-widget>: returns the value the element uses, or throws a
 * TypeError/RangeError that names the attribute. '' for threshold and k means "the default" (null).
 */
export function parseAttribute(name, value) {
  if (typeof value !== 'string') throw fail(TypeError, 'errors.mustBeString', { name, type: typeof value });
  switch (name) {
    case 'facts':
      return parseFacts(value);
    case 'distractors':
      return parseDistractors(value);
    case 'threshold':
      return value.trim() === '' ? null : parseThreshold(value);
    case 'k':
      return value.trim() === '' ? null : parseK(value);
    case 'activation':
      return parseActivation(value);
    case 'query':
      return parseQuery(value);
    case 'token':
      return parseLabel('token', value);
    case 'sync-hash':
      return parseHashKey(value);
    default:
      throw fail(RangeError, 'errors.unknownAttribute', { name: quote(name) });
  }
}

// A unit direction; cos 90deg is 0, not 6e-17 (so a key on an axis has an exact zero component).
const snap = (v) => (Math.abs(v) < 1e-12 ? 0 : v);
const dir = (deg) => [snap(Math.cos(rad(deg))), snap(Math.sin(rad(deg)))];

/**
 * Where the tokens of a memory sit in the embedding plane: the facts' keys on unit directions keyStep(N) apart from
 * 90 degrees, the filler words near the origin between them; and the vocabulary (each fact's value, once, in its
 * key's direction).
 */
function placeTokens(facts, distractors) {
  const N = facts.length;
  const step = keyStep(N);
  const keyTokens = facts.map((f, i) => ({ name: f.key, kind: 'key', angle: 90 + i * step, pos: dir(90 + i * step) }));
  // Filler words: on the bisectors between keys (B of them), ring after ring inwards, matching no key above
  // the default threshold, nor a fact's own lower one, minus 0.15 (at a bisector the nearest keys are step/2 away).
  const B = Math.max(3, N);
  const tMin = Math.min(defaultThreshold(N), ...facts.map((f) => f.threshold ?? Infinity));
  const rMax = Math.max(0.06, Math.min(0.3, (tMin - 0.15) / (KEY_SCALE * Math.cos(rad(step / 2)))));
  const kept = distractors.filter((t) => !keyTokens.some((k) => k.name === t));
  const rings = Math.ceil(kept.length / B);
  const distractorTokens = kept.map((t, j) => {
    const ring = Math.floor(j / B);
    const r = rMax * (1 - (0.45 * ring) / Math.max(1, rings - 1));
    const p = dir(90 + step / 2 + (j % B) * step);
    return { name: t, kind: 'distractor', pos: [r * p[0], r * p[1]] };
  });
  const vocab = [];
  for (const [i, f] of facts.entries()) {
    const angle = keyTokens[i].angle;
    if (!vocab.some((v) => v.name === f.value)) vocab.push({ name: f.value, angle, dir: dir(angle) });
  }
  return { keyTokens, distractorTokens, vocab };
}

/**
 * The weights, row-vector layout: W1 (2, N) the keys times KEY_SCALE, b1 (N) minus each threshold, W2 (N, 2) each
 * fact's value direction; W1aug (3, N) = [[W1], [b1]] and UT (2, V), the output embedding transposed.
 */
function memoryWeights(facts, keyTokens, vocab, thresholds) {
  const N = facts.length;
  const W1 = new Float32Array(2 * N); // (2, N)
  const b1 = new Float32Array(N);
  const W2 = new Float32Array(N * 2); // (N, 2)
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
  for (let j = 0; j < V; j++) {
    UT[j] = vocab[j].dir[0];
    UT[V + j] = vocab[j].dir[1];
  }
  return { W1, b1, W2, W1aug, UT };
}

/**
 * Build the memory FFN for a list of facts: weights in row-vector layout,
 * x (2) @ W1 (2, N) + b1 (N) -> match (N); coef (N) @ W2 (N, 2) -> written (2).
 * Returns plain arrays; `threshold` is the threshold of facts without their own (default: defaultThreshold(N)).
 */
export function buildMemory(
  facts = DEFAULT_FACTS,
  distractors = DEFAULT_DISTRACTORS,
  threshold = defaultThreshold(facts.length),
) {
  if (!Number.isFinite(threshold)) {
    throw new TypeError(`buildMemory: threshold must be a finite number, got ${threshold}`);
  }
  const N = facts.length;
  if (N < 1 || N > MAX_FACTS) throw new RangeError(`buildMemory: expected 1 to ${MAX_FACTS} facts, got ${N}`);
  if (distractors.length > MAX_DISTRACTORS) {
    throw new RangeError(`buildMemory: at most ${MAX_DISTRACTORS} distractors, got ${distractors.length}`);
  }
  const { keyTokens, distractorTokens, vocab } = placeTokens(facts, distractors);
  const thresholds = facts.map((f) => (f.threshold === undefined ? threshold : f.threshold));
  const { W1, b1, W2, W1aug, UT } = memoryWeights(facts, keyTokens, vocab, thresholds);
  const V = vocab.length;
  return {
    d: 2,
    dff: N,
    facts: facts.map((f) => ({ ...f })),
    thresholds,
    tokens: [...keyTokens, ...distractorTokens],
    keyTokens,
    vocab,
    W1: { data: W1, shape: [2, N] },
    b1: { data: b1, shape: [N] },
    W2: { data: W2, shape: [N, 2] },
    W1aug: { data: W1aug, shape: [3, N] },
    UT: { data: UT, shape: [2, V] },
  };
}

function order(coef) {
  // Largest first, ties by lower index (the kernel's rule).
  return Array.from(coef.keys()).sort((a, b) => coef[b] - coef[a] || a - b);
}

/**
 * The activations of the memories and what they write, from the kernels: coef (N) = phi(match), top (the k largest,
 * ties by index), partial (2) the top-k sum and written (2) the full one. ReLU runs the fused ffnMemories kernel.
 */
function activate(ffn, mem, q, match, act, k) {
  const N = mem.dff;
  if (act === 'relu') {
    const r = ffn.ffnMemories(q, mem.W1, mem.b1, mem.W2, k);
    const out = { coef: r.coef.data ?? r.coef, top: Array.from(r.top), partial: r.partial.data ?? r.partial };
    const full = ffn.ffnMemories(q, mem.W1, mem.b1, mem.W2, N).partial;
    return { ...out, written: full.data ?? full };
  }
  const coef = ffn[act](match).data;
  const top = order(coef).slice(0, k);
  const masked = new Float32Array(N);
  for (const i of top) masked[i] = coef[i];
  return { coef, top, partial: ffn.matmul(masked, mem.W2).data, written: ffn.matmul(coef, mem.W2).data };
}

/** The best-scoring vocabulary token of scores, or token null when its score is below DECODE_MIN. */
function decode(mem, s) {
  let best = -1;
  for (let j = 0; j < s.length; j++) if (best < 0 || s[j] > s[best]) best = j;
  return best >= 0 && s[best] >= DECODE_MIN
    ? { token: mem.vocab[best].name, index: best, score: s[best] }
    : { token: null, index: best, score: best >= 0 ? s[best] : 0 };
}

/**
 * A memory fires when its match is positive, leaks when it stays below but its activation is not zero (a smooth
 * phi), and is silent when it adds exactly nothing. `rank` numbers the top-k memories that add something (0 for the
 * others); fires is sorted by activation, largest first.
 */
function classify(match, coef, top) {
  const N = coef.length;
  const fires = [],
    leaks = [],
    silent = [],
    states = [];
  const rank = new Array(N).fill(0);
  for (let i = 0; i < N; i++) {
    const s = match[i] > 0 && coef[i] > 0 ? 'fires' : coef[i] !== 0 ? 'leaks' : 'silent';
    states.push(s);
    (s === 'fires' ? fires : s === 'leaks' ? leaks : silent).push(i);
  }
  top.forEach((i, j) => {
    if (coef[i] !== 0) rank[i] = j + 1;
  });
  fires.sort((a, b) => coef[b] - coef[a]);
  return { fires, leaks, silent, states, rank };
}

/**
 * Evaluate the memory FFN at query (x, y) with the kernels of `ffn`.
 * state: { x, y, k, activation: 'relu'|'gelu'|'silu' }.
 * Returns { match, coef, top, rank, partial, written, writes, scores, partialScores, decoded, partialDecoded,
 * fires, leaks, silent, states } with numbers straight from the kernels (Float32Array), and index lists.
 */
export function compute(ffn, mem, state) {
  const { x, y } = state;
  const N = mem.dff;
  const k = Math.max(0, Math.min(N, Math.round(state.k ?? N)));
  const act = state.activation ?? 'relu';
  if (!ACTIVATIONS.includes(act)) {
    throw new TypeError(`compute: activation must be one of ${ACTIVATIONS.join(', ')}, got "${act}"`);
  }
  if (!Number.isFinite(x) || !Number.isFinite(y)) {
    throw new TypeError(`compute: query must be two finite numbers, got (${x}, ${y})`);
  }
  const match = ffn.matmul(new Float32Array([x, y, 1]), mem.W1aug).data; // x . k_i + b_i
  const { coef, top, partial, written } = activate(ffn, mem, new Float32Array([x, y]), match, act, k);
  const scores = ffn.matmul(written, mem.UT).data;
  const partialScores = ffn.matmul(partial, mem.UT).data;
  const { fires, leaks, silent, states, rank } = classify(match, coef, top);
  return {
    query: [x, y],
    k,
    activation: act,
    match,
    coef,
    top,
    rank,
    partial,
    written,
    scores,
    partialScores,
    decoded: decode(mem, scores),
    partialDecoded: decode(mem, partialScores),
    fires,
    leaks,
    silent,
    states,
    writes: written[0] !== 0 || written[1] !== 0,
  };
}

/** Nearest token to the query (for labels), or null when none is within `radius`. */
export function nearestToken(mem, x, y, radius = 0.08) {
  let best = null;
  let bd = radius * radius;
  for (const t of mem.tokens) {
    const dx = t.pos[0] - x,
      dy = t.pos[1] - y;
    const d2 = dx * dx + dy * dy;
    if (d2 <= bd) {
      bd = d2;
      best = t;
    }
  }
  return best;
}

/**
 * The part of the view square [-lim, lim]^2 where memory i fires (x . k_i + b_i > 0), as polygon
 * points, so the view can shade it. Clips the square by the half-plane (Sutherland-Hodgman).
 */
export function firingRegion(mem, i, lim = 1.5) {
  const N = mem.dff;
  const kx = mem.W1.data[i],
    ky = mem.W1.data[N + i],
    b = mem.b1.data[i];
  const f = (p) => p[0] * kx + p[1] * ky + b;
  const sq = [
    [-lim, -lim],
    [lim, -lim],
    [lim, lim],
    [-lim, lim],
  ];
  const out = [];
  for (let j = 0; j < 4; j++) {
    const p = sq[j],
      q = sq[(j + 1) % 4];
    const fp = f(p),
      fq = f(q);
    if (fp > 0) out.push(p);
    if (fp > 0 !== fq > 0) {
      const t = fp / (fp - fq);
      out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
    }
  }
  return out;
}
