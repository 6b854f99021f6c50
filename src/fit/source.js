// Reads and rewrites the fitted constants in src/activations.c (the literals only; the code around them is untouched).

/**
 * The fitted constants, in the order the C source lists them:
 *  - `kind` float (literal with an f suffix, compared as float32) or double;
 *  - `find(src)` the [start, end) span of the C text holding the literals, `order` maps the fit's coefficient
 *    order (lowest degree first) to the source's.
 */
const bracesOf = (name) => (src) => {
  const at = src.indexOf(name);
  if (at < 0) throw new Error(`src/activations.c: ${name} not found`);
  const open = src.indexOf('{', at);
  return [open + 1, src.indexOf('}', open)];
};
const defineOf = (name) => (src) => {
  const m = new RegExp(`#define ${name} +(\\S+)`).exec(src);
  if (!m) throw new Error(`src/activations.c: #define ${name} not found`);
  const start = m.index + m[0].length - m[1].length;
  return [start, start + m[1].length];
};
const bodyOf = (signature) => (src) => {
  const at = src.indexOf(signature);
  if (at < 0) throw new Error(`src/activations.c: ${signature} not found`);
  return [at, src.indexOf('\n}', at)];
};

export const SETS = [
  { name: 'em1_tail_f', kind: 'float', find: bodyOf('static inline f32x4 em1_tail_f('), highestFirst: true },
  { name: 'gelu_g_tail', kind: 'float', find: bracesOf('static const float gelu_g_tail['), highestFirst: true },
  { name: 'GELU_C0', kind: 'double', find: defineOf('GELU_C0') },
  { name: 'GELU_C1', kind: 'double', find: defineOf('GELU_C1') },
  { name: 'gelu_t_num', kind: 'float', find: bracesOf('static const float gelu_t_num['), highestFirst: true },
  { name: 'gelu_t_den', kind: 'float', find: bracesOf('static const float gelu_t_den['), highestFirst: true },
  { name: 'gelu_grad_h', kind: 'double', find: bracesOf('static const double gelu_grad_h['), highestFirst: true },
  { name: 'GELU_A0_HI', kind: 'double', find: defineOf('GELU_A0_HI') },
  { name: 'GELU_A0_LO', kind: 'double', find: defineOf('GELU_A0_LO') },
];

/* a numeric literal: in em1_tail_f only those inside f32x4_splat(...); elsewhere every number outside comments */
const NUMBER = /[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?f?/g;
function literals(set, text) {
  const out = [];
  const clean = text.replace(/\/\*[\s\S]*?\*\//g, (c) => ' '.repeat(c.length)); // keep offsets
  const re = set.name === 'em1_tail_f' ? /f32x4_splat\(([-+0-9.eE]+f)\)/g : NUMBER;
  for (const m of clean.matchAll(re)) {
    const lit = m[1] ?? m[0];
    const index = m.index + (m[1] ? m[0].indexOf(m[1]) : 0);
    if (set.name !== 'em1_tail_f' && set.kind === 'float' && !lit.endsWith('f')) continue;
    out.push({ lit, index });
  }
  return out;
}

/** the value a C literal denotes: float literals rounded to float32 */
export function valueOf(lit) {
  const x = Number(lit.replace(/f$/, ''));
  if (Number.isNaN(x)) throw new Error(`not a number: ${lit}`);
  return lit.endsWith('f') ? Math.fround(x) : x;
}

/** the constants of each set as they stand in the C source: { name: [{ lit, value }] }, lowest degree first */
export function readConstants(src) {
  const out = {};
  for (const set of SETS) {
    const [a, b] = set.find(src);
    let lits = literals(set, src.slice(a, b)).map(({ lit }) => ({ lit, value: valueOf(lit) }));
    if (set.highestFirst) lits = lits.reverse();
    out[set.name] = lits;
  }
  return out;
}

/**
 * a C literal for x: doubles in JS's shortest exact form, float32 values in the fewest significant digits that
 * give back the same float32, written d.ddde-XXf
 */
export function literal(x, kind) {
  if (kind === 'double') return String(x);
  if (Math.fround(x) !== x) throw new Error(`${x} is not a float32 value`);
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return `${x}.0f`;
  let digits = 1;
  while (Math.fround(Number(x.toExponential(digits - 1))) !== x) digits++;
  const [m, e] = x.toExponential(digits - 1).split('e');
  const exp = Number(e);
  return `${m.includes('.') ? m : `${m}.0`}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}f`;
}

/** src with the literals of every set replaced by `values` ({ name: [numbers, lowest degree first] }) */
export function writeConstants(src, values) {
  let out = src;
  for (const set of SETS) {
    const [a, b] = set.find(out);
    const text = out.slice(a, b);
    const lits = literals(set, text);
    let vals = values[set.name];
    if (vals.length !== lits.length) throw new Error(`${set.name}: ${vals.length} values for ${lits.length} literals`);
    if (set.highestFirst) vals = [...vals].reverse();
    let t = text;
    for (let i = lits.length - 1; i >= 0; i--) {
      const { lit, index } = lits[i];
      t = t.slice(0, index) + literal(vals[i], set.kind) + t.slice(index + lit.length);
    }
    out = out.slice(0, a) + t + out.slice(b);
  }
  return out;
}
