// The diagnosis stage of grading: which known mistake explains a function's failing tests, or where they go wrong.
import { compareValue, specsAgree, sameShape, wireToTensor, closeEnough } from './compare.js';
import { variantSpecs } from './exercises/index.js';
import { CAPS, fmtShapeBounded, slicer, say, num } from './report-bounds.js';
import { reportText } from './report-text.js';
import { joined, numeral } from '../../i18n/index.js';

const components = (spec) => (spec.kind === 'object' ? Object.keys(spec.entries) : [null]);
const part = (spec, key) => (key === null ? spec : spec.entries[key]);
/** "a", "a and b", "a, b and c" in the reader's language. */
const andList = (words) =>
  words.length < 2
    ? words.join('')
    : say('andList', { head: joined(words.slice(0, -1), 'report.comma'), last: words.at(-1) });
const isTensor = (v) => v !== null && typeof v === 'object' && Array.isArray(v.shape) && v.data && 'length' in v.data;

function wirePart(w, key) {
  if (key === null) return w;
  try {
    return w && w.k === 'object' && Object.prototype.hasOwnProperty.call(w.entries, key) ? w.entries[key] : undefined;
  } catch {
    return undefined; // unreadable: no evidence (compare.js reported it)
  }
}

/** Whether the learner's output matched the reference on one component, from the comparison already made. */
function componentPassed(outcome, key) {
  const c = outcome.comparison;
  if (key === null) return c.pass;
  return !!(c.parts && c.parts[key] && c.parts[key].pass);
}

/**
 * For each function with failing tests, in this order: keys spelled differently; the known-wrong variant that
 * explains every failing test with no passed test contradicting it; a generic mistake (a constant factor, a
 * transposed output) that explains every failing output; else a direction from what the failing tests share,
 * after the variant that explains most of them if it explains more than half. tests: the hidden tests (with
 * expected specs); outcomes: the compare stage's, one per test, holding the learner's value and comparison.
 * Resolves to the diagnoses, each message at most CAPS.diagnosis characters. The work is cut into slices
 * (`slice`, from report-bounds.js): the event loop gets a turn between functions and between variants.
 */
export async function diagnose(exercise, tests, outcomes, api, slice = slicer()) {
  const tol = exercise.tolerance;
  const found = [];
  const named = new Set();
  const add = (d) => {
    if (d.id !== 'direction' && named.has(d.id)) return;
    named.add(d.id);
    // the report's texts (report-text.js): grading's own messages, or the exercise's words (report.raw)
    found.push({ ...d, title: reportText(d.title, CAPS.message), message: reportText(d.message, CAPS.diagnosis) });
  };
  for (const fn of exercise.functionNames) {
    await slice();
    try {
      await diagnoseFunction({ exercise, tests, outcomes, api, slice, add, tol }, fn);
    } catch {
      // A value no checked wire carries (a getter, a proxy) made a step throw: nothing is said about fn.
    }
  }
  return found;
}

/** The diagnoses of one function, passed to `add` in the order diagnose() describes. */
async function diagnoseFunction({ exercise, tests, outcomes, api, slice, add, tol }, fn) {
  const idxs = tests.map((t, i) => (t.fn === fn ? i : -1)).filter((i) => i >= 0);
  const failing = idxs.filter((i) => outcomes[i].status === 'fail' && outcomes[i].value);
  // Tests that threw are no evidence for a variant, but they count for where the code goes wrong.
  const broken = idxs.filter((i) => outcomes[i].status === 'fail' || outcomes[i].status === 'error');
  if (!broken.length) return;
  const names = (list) => list.map((i) => tests[i].name);
  const counts = (explained) => ({ explained, failing: failing.length });
  if (!failing.length) {
    const where = direction(exercise, fn, tests, outcomes, idxs, broken, [], exercise.tolerance);
    if (where) add({ ...where, tests: names(broken), failing: broken.length });
    return;
  }

  const keys = keysDiagnosis(fn, outcomes, failing);
  if (keys) {
    add({ ...keys, tests: names(failing), ...counts(failing.length) });
    return;
  }
  const scored = [];
  for (const v of exercise.variants) {
    if (v.fn !== fn) continue;
    await slice();
    scored.push(scoreVariant(v, variantSpecs(exercise, v, tests, api), tests, outcomes, idxs, tol));
  }
  const full = scored.find((s) => !s.contradicted && s.explained.length === failing.length);
  if (full) {
    const v = full.variant;
    add({ id: v.id, fn, title: v.title, message: v.message, tests: names(failing), ...counts(failing.length) });
    return;
  }
  const generic = genericDiagnosis(fn, failing, tests, outcomes, tol);
  if (generic) {
    add({ ...generic, ...counts(failing.length) });
    return;
  }
  const best = scored
    .filter((s) => !s.contradicted && s.explained.length >= 2 && 2 * s.explained.length > failing.length)
    .sort((a, b) => b.explained.length - a.explained.length)[0];
  if (best) {
    const v = best.variant;
    const k = best.explained.length;
    add({
      id: v.id,
      fn,
      title: v.title,
      message: say('partial', { message: v.message, k, n: failing.length, fn }),
      tests: names(best.explained),
      partial: true,
      ...counts(k),
    });
  }
  const where = direction(exercise, fn, tests, outcomes, idxs, broken, failing, tol);
  if (where) add({ ...where, tests: names(broken), failing: broken.length });
}

/** Which failing tests a variant explains, and whether a test the learner passed contradicts it. */
function scoreVariant(variant, specs, tests, outcomes, idxs, tol) {
  const explained = [];
  let contradicted = false;
  for (const i of idxs) {
    const o = outcomes[i];
    if (!o.value || !specs[i]) continue; // threw, timed out or was refused: no evidence either way
    let anyVar = false;
    let anyOther = false;
    for (const key of components(tests[i].expected)) {
      const ref = part(tests[i].expected, key);
      const v = part(specs[i], key);
      const got = wirePart(o.value, key);
      if (componentPassed(o, key)) {
        if (!variant.anyOf && !specsAgree(v, ref, tol)) contradicted = true;
      } else if (got !== undefined && compareValue(got, v, tol).pass) anyVar = true;
      else anyOther = true;
    }
    if (o.status === 'fail' && anyVar && !anyOther) explained.push(i);
    if (contradicted) break;
  }
  return { variant, explained, contradicted };
}

/** Every failing test returned an object without some expected keys: say which, and how they are spelled. */
function keysDiagnosis(fn, outcomes, failing) {
  if (!failing.every((i) => outcomes[i].comparison.missingKeys)) return null;
  const c = outcomes[failing[0]].comparison;
  return {
    id: 'wrong-keys',
    fn,
    title: say('keys.title'),
    message: say('keys.message', { fn, problem: c.problem }),
  };
}

/* ---------------- generic mistakes: they must explain every failing output ---------------- */

function tensorPairs(test, outcome) {
  // [got, expected, key] tensor pairs of a failing test: the output itself or each failing object field.
  const pairs = [];
  for (const key of components(test.expected)) {
    const exp = part(test.expected, key);
    if (exp.kind !== 'tensor' || componentPassed(outcome, key)) continue;
    const got = wireToTensor(wirePart(outcome.value, key));
    pairs.push(got.problem ? [null, exp, key] : [got, exp, key]);
  }
  return pairs;
}

/** Whether got [g] is expected [e] transposed: 'yes', 'no', or null (e is no 2-D, non-square output: no evidence). */
function isTransposed([g, e], close) {
  if (e.shape.length !== 2 || e.shape[0] === e.shape[1]) return null;
  if (g.shape.length !== 2 || g.shape[0] !== e.shape[1] || g.shape[1] !== e.shape[0]) return 'no';
  const [r, c] = e.shape;
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) if (!close(g.data[j * r + i], e.data[i * c + j])) return 'no';
  return 'yes';
}

/**
 * Whether got [g] is expected [e] times one constant, the same for every output (`found.factor`, set by the first):
 * 'yes', 'no', or null (e has no finite nonzero entry: no evidence).
 */
function isScaled([g, e], close, found) {
  if (!sameShape(g.shape, e.shape)) return 'no';
  let num = 0;
  let den = 0;
  for (let i = 0; i < e.data.length; i++) {
    if (!Number.isFinite(e.data[i]) || !Number.isFinite(g.data[i])) continue;
    num += g.data[i] * e.data[i];
    den += e.data[i] * e.data[i];
  }
  if (!(den > 0)) return null;
  const c = num / den;
  if (Math.abs(c - 1) < 1e-3 || c === 0) return 'no';
  for (let i = 0; i < e.data.length; i++) {
    if (Number.isFinite(e.data[i]) && !close(g.data[i], c * e.data[i])) return 'no';
  }
  if (found.factor === null) found.factor = c;
  return Math.abs(c - found.factor) <= 1e-4 * Math.abs(found.factor) ? 'yes' : 'no';
}

function genericDiagnosis(fn, failing, tests, outcomes, tol) {
  const close = (g, e) => Math.abs(g - e) <= tol.atol + tol.rtol * Math.abs(e);
  const all = failing.flatMap((i) => tensorPairs(tests[i], outcomes[i]).map((p) => [...p, tests[i].name]));
  // Every failing test must be a failing tensor output (a failing count or index list is not explained here).
  const covered = new Set(all.map((p) => p[3]));
  if (!all.length || failing.some((i) => !covered.has(tests[i].name)) || all.some((p) => p[0] === null)) return null;
  // "Your output" / "Your dX output" (or values), a message
  const your = (p, what) => (p[2] ? say(`${what}.keyed`, { key: p[2] }) : say(`${what}.plain`));
  // Each check says, per failing output, 'yes', 'no' or null (no evidence); it is reported when it explains
  // at least one output and is contradicted by none.
  const decide = (check) => {
    const verdicts = all.map((p) => check(p));
    return verdicts.includes('yes') && !verdicts.includes('no') ? all.filter((p, i) => verdicts[i] === 'yes') : null;
  };
  const testsOf = () => [...new Set(all.map((q) => q[3]))];
  const transposed = decide((p) => isTransposed(p, close));
  if (transposed) {
    const p = transposed[0];
    return {
      id: 'generic-transposed',
      fn,
      title: say('transposed.title'),
      message: say('transposed.message', {
        your: your(p, 'transposed'),
        got: fmtShapeBounded(p[0].shape),
        expected: fmtShapeBounded(p[1].shape),
      }),
      tests: testsOf(),
    };
  }
  const found = { factor: null }; // the factor of the first scaled output: every other one must share it
  const scaled = decide((p) => isScaled(p, close, found));
  if (scaled) {
    const c = Number(found.factor.toPrecision(4));
    const what = c === -1 ? say('scaled.negatives') : say('scaled.times', { c: numeral(c, String(c)) });
    return {
      id: 'generic-scaled',
      fn,
      title: say('scaled.title'),
      message: say('scaled.message', { your: your(scaled[0], 'scaled'), what }),
      tests: testsOf(),
    };
  }
  return null;
}

/* ---------------- a direction, when no mistake is known ---------------- */

/** The numbers of a spec component and of the learner's matching output (null when not comparable). */
function numbers(spec, w) {
  if (spec.kind === 'number' || spec.kind === 'integer') {
    return w && w.k === 'number' ? { exp: [spec.value], got: [w.v] } : null;
  }
  if (spec.kind !== 'tensor' && spec.kind !== 'integers') return null;
  const t = wireToTensor(w);
  return t.problem || t.data.length !== spec.data.length ? null : { exp: spec.data, got: t.data };
}

/** Whether the learner's output holds NaN or an infinity where the expected value is finite. */
function blowsUp(test, outcome) {
  return components(test.expected).some((key) => {
    const n = numbers(part(test.expected, key), wirePart(outcome.value, key));
    return !!n && Array.from(n.exp).some((e, i) => Number.isFinite(e) && !Number.isFinite(n.got[i]));
  });
}

function maxOf(list, f = (v) => v) {
  let m = -Infinity;
  for (const v of list) m = Math.max(m, f(v));
  return m;
}

function minOf(list, f = (v) => v) {
  let m = Infinity;
  for (const v of list) m = Math.min(m, f(v));
  return m;
}

/** For an elementwise function (an argument shaped like the output): the inputs where the output is wrong. */
function inputRange(spec, tests, outcomes, idxs, tol) {
  const p = spec.params.findIndex((_, k) =>
    idxs.every(
      (i) =>
        isTensor(tests[i].args[k]) &&
        tests[i].expected.kind === 'tensor' &&
        sameShape(Array.from(tests[i].args[k].shape), tests[i].expected.shape),
    ),
  );
  if (p < 0) return null;
  const bad = [];
  const good = [];
  for (const i of idxs) {
    const n = outcomes[i].value && numbers(tests[i].expected, outcomes[i].value);
    if (!n) continue;
    const x = tests[i].args[p].data;
    for (let j = 0; j < x.length; j++) (closeEnough(n.got[j], n.exp[j], tol) ? good : bad).push(x[j]);
  }
  const name = spec.params[p].name;
  if (!bad.length || !good.length) return null;
  if (bad.every(Number.isNaN)) return say('range.nan', { name });
  const b = bad.filter((v) => !Number.isNaN(v));
  const g = good.filter((v) => !Number.isNaN(v));
  // Say it only with evidence on the right side: several distinct inputs, at least as many as the wrong ones.
  if (!b.length || b.length !== bad.length || new Set(g).size < 3 || g.length < b.length) return null;
  const hint = (t) => (Math.abs(t) >= 20 ? say('range.overflow') : '');
  // Loops, not Math.max(...list): a spread of some 100,000 values overflows the stack.
  const maxBad = maxOf(b);
  const minBad = minOf(b);
  if (maxBad < minOf(g)) {
    return say('range.below', { v: num(maxBad), name, hint: hint(maxBad) });
  }
  if (minBad > maxOf(g)) {
    return say('range.above', { v: num(minBad), name, hint: hint(minBad) });
  }
  const small = minOf(b, Math.abs);
  if (small > maxOf(g, Math.abs)) {
    return say('range.magnitude', { v: num(small), name, hint: hint(small) });
  }
  return null;
}

/**
 * What a test's arguments are, as [key, text, rank] features: a left-out default, a boolean, null, a range end,
 * the rank of a tensor, a single row, NaN, zeros, large entries, a size that is not a multiple of 4 or is 1,
 * a number. A lower rank is a more telling feature.
 */
function features(spec, args) {
  const out = [];
  const dims = new Map();
  spec.params.forEach((p, k) => {
    const t = args[k];
    if (!p.shape || !isTensor(t)) return;
    const fixed = p.shape[0] === '...' ? p.shape.slice(1) : p.shape;
    const shape = Array.from(t.shape);
    fixed.forEach((dim, j) => {
      if (typeof dim === 'string' && shape.length >= fixed.length)
        dims.set(dim, shape[shape.length - fixed.length + j]);
    });
  });
  const value = (name) => {
    if (dims.has(name)) return dims.get(name);
    const k = spec.params.findIndex((q) => q.name === name);
    return k < 0 ? undefined : k < args.length ? args[k] : spec.params[k].default;
  };
  spec.params.forEach((p, k) => {
    const left = k >= args.length;
    const v = left ? p.default : args[k];
    if (left && p.hasDefault) {
      out.push([`omit:${p.name}`, say('feature.omitted', { name: p.name }), 0, p]);
    }
    if (typeof v === 'boolean') out.push([`bool:${p.name}=${v}`, say('feature.is', { name: p.name, v: String(v) }), 1]);
    if (v === null && !left) out.push([`null:${p.name}`, say('feature.is', { name: p.name, v: 'null' }), 2]);
    if (typeof v === 'number') {
      (p.range || []).forEach((bound, end) => {
        const text = say('feature.equals', { name: p.name, v: bound });
        if (value(bound) === v) out.push([`${end ? 'hi' : 'lo'}:${p.name}`, text, 3]);
      });
      out.push([`num:${p.name}=${v}`, say('feature.equals', { name: p.name, v: num(v) }), 9]);
    }
    if (isTensor(v)) {
      const shape = Array.from(v.shape);
      const f = (key, rank) =>
        out.push([`${key}:${p.name}`, say(`feature.${key}`, { name: p.name, n: shape.length }), rank]);
      out.push([`rank:${p.name}=${shape.length}`, say('feature.rank', { name: p.name, n: shape.length }), 4]);
      if (shape.length >= 2 && shape.slice(0, -1).every((s) => s === 1)) f('row', 4);
      const data = Array.from(v.data);
      if (data.some(Number.isNaN)) f('nan', 5);
      if (data.length && data.every((x) => x === 0)) f('zero', 5);
      if (data.some((x) => Math.abs(x) >= 100)) f('big', 6);
    }
  });
  for (const [dim, size] of dims) {
    if (size % 4 !== 0) out.push([`dim4:${dim}`, say('feature.dim4', { name: dim }), 7]);
    if (size === 1) out.push([`dim1:${dim}`, say('feature.equals', { name: dim, v: 1 }), 8]);
  }
  return out;
}

/** The most telling feature every failing test has and no passing test has. */
function separatingFeature(spec, tests, failing, passing) {
  const of = (i) => features(spec, tests[i].args);
  const passKeys = new Set(passing.flatMap((i) => of(i).map((f) => f[0])));
  const failFeatures = failing.map(of);
  const shared = failFeatures[0].filter(
    ([key, , rank]) =>
      !passKeys.has(key) &&
      failFeatures.every((fs) => fs.some((f) => f[0] === key)) &&
      (rank < 7 || failing.length > 1),
  );
  if (!shared.length) return null;
  const [, text, , param] = shared.sort((a, b) => a[2] - b[2])[0];
  if (param) {
    return say('failsOnlyDefault', { text, name: param.name, value: JSON.stringify(param.default) });
  }
  return say('failsOnly', { text });
}

/** For object results: which keys are wrong in every failing test and which are right in every one. */
function fieldPattern(tests, outcomes, failing) {
  const expected = tests[failing[0]].expected;
  if (expected.kind !== 'object') return null;
  const wrong = [];
  const right = [];
  for (const key of Object.keys(expected.entries)) {
    const passes = failing.map((i) => componentPassed(outcomes[i], key));
    if (passes.every((p) => !p)) wrong.push(key);
    else if (passes.every((p) => p)) right.push(key);
    else return null;
  }
  if (!wrong.length || !right.length) return null;
  return say('fields', {
    wrong: say('fieldsWrong', { n: wrong.length, keys: andList(wrong) }),
    right: say('fieldsRight', { n: right.length, keys: andList(right) }),
  });
}

/** broken: the tests that failed or threw; failing: those among them that returned a wrong value. */
function direction(exercise, fn, tests, outcomes, idxs, broken, failing, tol) {
  const spec = exercise.functions[fn];
  const passing = idxs.filter((i) => outcomes[i].status === 'pass');
  const parts = [];
  const blowups = failing.filter((i) => blowsUp(tests[i], outcomes[i]));
  if (blowups.length) {
    const where =
      blowups.length === 1 ? say('theTest', { name: tests[blowups[0]].name }) : say('nTests', { n: blowups.length });
    parts.push(say('blowup', { fn, where }));
  }
  const range = inputRange(spec, tests, outcomes, idxs, tol);
  if (range) parts.push(range);
  if (passing.length) {
    const feature = separatingFeature(spec, tests, broken, passing);
    if (feature) parts.push(feature);
  }
  const fields = failing.length === broken.length ? fieldPattern(tests, outcomes, failing) : null;
  if (fields) parts.push(fields);
  if (!parts.length) return null;
  const message = say('sentences', { parts: joined(parts, 'report.space') });
  return { id: 'direction', fn, title: say('direction', { fn }), message };
}
