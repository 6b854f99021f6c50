// The diagnosis stage of grading: which known mistake explains a function's failing tests.
import { compareValue, specsAgree, sameShape, wireToTensor } from './compare.js';
import { variantSpecs } from './exercises/index.js';

const components = (spec) => (spec.kind === 'object' ? Object.keys(spec.entries) : [null]);
const part = (spec, key) => (key === null ? spec : spec.entries[key]);

function wirePart(w, key) {
  if (key === null) return w;
  return w && w.k === 'object' && Object.prototype.hasOwnProperty.call(w.entries, key) ? w.entries[key] : undefined;
}

/** Whether the learner's output matched the reference on one component, from the comparison already made. */
function componentPassed(outcome, key) {
  const c = outcome.comparison;
  if (key === null) return c.pass;
  return !!(c.parts && c.parts[key] && c.parts[key].pass);
}

/**
 * For each function with failing tests, the known-wrong variant that explains the most failures without being
 * contradicted by a test the learner passed where the variant would have failed; else a generic mistake.
 * tests: the hidden tests (with expected specs); outcomes: the compare stage's, one per test, holding the
 * learner's value and its comparison.
 */
export function diagnose(exercise, tests, outcomes, api) {
  const tol = exercise.tolerance;
  const found = [];
  for (const fn of exercise.functionNames) {
    const idxs = tests.map((t, i) => (t.fn === fn ? i : -1)).filter((i) => i >= 0);
    if (idxs.every((i) => outcomes[i].pass || !outcomes[i].value)) continue; // nothing to explain
    let best = null;
    for (const variant of exercise.variants.filter((v) => v.fn === fn)) {
      const specs = variantSpecs(exercise, variant, tests, api);
      let explained = 0;
      let contradicted = false;
      const names = [];
      for (const i of idxs) {
        const o = outcomes[i];
        if (!o.value || !specs[i]) continue; // threw, timed out or was refused: no evidence either way
        let anyVar = false;
        let anyOther = false;
        for (const key of components(tests[i].expected)) {
          const ref = part(tests[i].expected, key);
          const v = part(specs[i], key);
          const got = wirePart(o.value, key);
          const refOk = componentPassed(o, key);
          const varOk = got !== undefined && compareValue(got, v, tol).pass;
          if (refOk) {
            if (!variant.anyOf && !specsAgree(v, ref, tol)) contradicted = true;
          } else if (varOk) anyVar = true;
          else anyOther = true;
        }
        if (anyVar && !anyOther) {
          explained += 1;
          names.push(tests[i].name);
        }
        if (contradicted) break;
      }
      if (!contradicted && explained > 0 && (!best || explained > best.explained)) best = { variant, explained, names };
    }
    if (best && !found.some((d) => d.id === best.variant.id)) {
      const v = best.variant;
      found.push({ id: v.id, fn, title: v.title, message: v.message, tests: best.names });
    } else if (!best) {
      const failing = idxs.filter((i) => !outcomes[i].pass && outcomes[i].value);
      const g = genericDiagnosis(fn, failing, tests, outcomes, tol);
      if (g) found.push(g);
    }
  }
  return found;
}

/* Shape-agnostic mistakes, tried only when no variant explains a function's failures. */

function tensorPairs(test, outcome) {
  // [got, expected, key] tensor pairs of a failing test: the output itself or each failing object field.
  const pairs = [];
  for (const key of components(test.expected)) {
    const exp = part(test.expected, key);
    if (exp.kind !== 'tensor' || componentPassed(outcome, key)) continue;
    const got = wireToTensor(wirePart(outcome.value, key));
    if (!got.problem) pairs.push([got, exp, key]);
  }
  return pairs;
}

function genericDiagnosis(fn, failing, tests, outcomes, tol) {
  const close = (g, e) => Math.abs(g - e) <= tol.atol + tol.rtol * Math.abs(e);
  const all = failing.flatMap((i) => tensorPairs(tests[i], outcomes[i]).map((p) => [...p, tests[i].name]));
  if (!all.length) return null;
  const field = (p) => (p[2] ? `${p[2]} ` : '');
  // Each check says, per failing output, 'yes', 'no' or null (no evidence); it is reported when it
  // explains at least one output and at least as many as it fails to explain.
  const decide = (check) => {
    const verdicts = all.map((p) => check(p));
    const yes = all.filter((p, i) => verdicts[i] === 'yes');
    const no = verdicts.filter((v) => v === 'no').length;
    return yes.length > 0 && yes.length >= no ? yes : null;
  };
  const transposed = decide(([g, e]) => {
    if (e.shape.length !== 2 || e.shape[0] === e.shape[1]) return null;
    if (g.shape.length !== 2 || g.shape[0] !== e.shape[1] || g.shape[1] !== e.shape[0]) return 'no';
    const [r, c] = e.shape;
    for (let i = 0; i < r; i++)
      for (let j = 0; j < c; j++) if (!close(g.data[j * r + i], e.data[i * c + j])) return 'no';
    return 'yes';
  });
  const testsOf = (pairs) => [...new Set(pairs.map((q) => q[3]))];
  if (transposed) {
    const p = transposed[0];
    return {
      id: 'generic-transposed',
      fn,
      title: 'Output transposed',
      message:
        `Your ${field(p)}output holds the right numbers in transposed layout: shape [${p[0].shape}] instead of ` +
        `[${p[1].shape}]. Check the order of the factors in your last matmul.`,
      tests: testsOf(transposed),
    };
  }
  let factor = null;
  const scaled = decide(([g, e]) => {
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
    if (factor === null) factor = c;
    return Math.abs(c - factor) <= 1e-4 * Math.abs(factor) ? 'yes' : 'no';
  });
  if (scaled) {
    const c = Number(factor.toPrecision(4));
    const what = c === -1 ? 'the negatives of the expected values' : `${c} times the expected values`;
    return {
      id: 'generic-scaled',
      fn,
      title: 'Off by a constant factor',
      message: `Your ${field(scaled[0])}values are ${what}. Look for a missing or extra constant factor (or sign).`,
      tests: testsOf(scaled),
    };
  }
  return null;
}
