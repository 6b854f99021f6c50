// The exercise format: defineExercise checks a definition (naming the field at fault) and registers it.
import * as defaultApi from '../../../index.js'; // the wasm bytes inlined: nothing for a bundler or server to place
import { toolkitNames } from '../../run/index.js';
import { toSpec, specsAgree } from '../compare.js';
import { parsePromptHtml } from '../prompt-html.js';
import { makeRng, hashSeed } from '../../../rng.js';

/** The return kinds a learner's function may have; an object of these (one per key) is a kind too. */
export const RETURN_KINDS = Object.freeze(['tensor', 'number', 'integer', 'integers']);

const DEFAULT_TOLERANCE = Object.freeze({ atol: 1e-5, rtol: 1e-5 });
const MAX_TEXT = 100000;
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await arguments eval undefined NaN ' +
    'Infinity globalThis __ffnToolkit'
  ).split(' '),
);

const registry = new Map(); // id -> exercise, in definition order
const listeners = new Set();
const validated = new WeakMap(); // exercise -> WeakMap(api -> true | Error)
const normalized = new WeakSet(); // every exercise normalizeExercise returned

/** An invalid definition: `field` names the part at fault ("functions.my-fn", "variants[2].compute"). */
export class ExerciseDefinitionError extends TypeError {
  constructor(id, field, message) {
    super(`defineExercise(${id ? JSON.stringify(id) : 'definition'}): ${field}: ${message}`);
    this.name = 'ExerciseDefinitionError';
    this.field = field;
    this.exercise = id || null;
  }
}

const describe = (v) => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`;
};
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const ID = /^[a-z0-9][a-z0-9-]{0,63}$/; // an exercise's, a variant's or a test's id

/** Why `name` cannot be a learner's function name, or null when it can. */
function badFunctionName(name) {
  if (!IDENT.test(name)) return `${JSON.stringify(name.slice(0, 40))} is not a JavaScript identifier`;
  if (RESERVED.has(name)) return `${name} is a reserved word or a global the sandbox needs`;
  if (toolkitNames.includes(name)) return `${name} is a toolkit function in learner scope; choose another name`;
  return null;
}

const BOUND = String.raw`(-?\d+|[A-Za-z_$][\w$]*)`;
// name, then optionally (shape), in lo..hi, = default
const PARAM = new RegExp(
  String.raw`^\s*([A-Za-z_$][\w$]*)\s*(?:\(([^()]*)\))?\s*(?:in\s+${BOUND}\s*\.\.\s*${BOUND})?\s*(?:=\s*(.+?))?\s*$`,
);

/**
 * A parameter as written in the signature, with optional annotations the checks and messages use:
 * 'x', 'X (..., d)' (a tensor and its shape: sizes by name or number, '...' for any leading dimensions),
 * 'k in 0..dFF' (an integer range; bounds by number, size name or parameter name), 'bias = true' (a default,
 * a JSON literal). Returns { name, shape?, range?, hasDefault?, default? }.
 */
function parseParam(text, fail) {
  if (typeof text !== 'string') {
    fail(`must be a string such as 'x', 'X (..., d)', 'k in 0..dFF' or 'bias = true'; got ${describe(text)}`);
  }
  const m = PARAM.exec(text);
  if (!m) fail(`${describe(text)} is not a parameter ('name', 'name (dims)', 'name in lo..hi' or 'name = default')`);
  const param = { name: m[1] };
  if (m[2] !== undefined) {
    const dims = m[2].trim() ? m[2].split(',').map((t) => t.trim()) : [];
    dims.forEach((t, i) => {
      if (t === '...' ? i !== 0 : !/^(\d+|[A-Za-z_$][\w$]*)$/.test(t)) {
        fail(`the shape of ${m[1]} lists sizes by name or number, '...' first if at all; got (${m[2].slice(0, 40)})`);
      }
    });
    param.shape = dims.map((t) => (/^\d+$/.test(t) ? Number(t) : t));
  }
  if (m[3] !== undefined) {
    if (param.shape) fail(`${m[1]} has a shape and a range; a range is for an integer parameter`);
    param.range = [m[3], m[4]].map((t) => (/^-?\d+$/.test(t) ? Number(t) : t));
  }
  if (m[5] !== undefined) {
    try {
      param.default = JSON.parse(m[5]);
    } catch {
      fail(`the default of ${m[1]} must be true, false, null, a number or a "string"; got ${m[5].slice(0, 40)}`);
    }
    param.hasDefault = true;
  }
  return param;
}

/** Normalize a return kind: a kind name, { kind: 'integers', item, order }, or an object { key: kind }. */
function parseKind(kind, fail, depth = 0) {
  if (typeof kind === 'string') {
    if (!RETURN_KINDS.includes(kind))
      fail(`${describe(kind)} is not a return kind (${RETURN_KINDS.join(', ')}, or an object of those)`);
    return { kind };
  }
  if (isPlainObject(kind) && typeof kind.kind === 'string') {
    if (kind.kind !== 'integers') fail(`only 'integers' takes a description object; got kind ${describe(kind.kind)}`);
    for (const k of Object.keys(kind)) if (!['kind', 'item', 'order'].includes(k)) fail(`unknown key ${describe(k)}`);
    for (const k of ['item', 'order']) {
      if (kind[k] !== undefined && (typeof kind[k] !== 'string' || !kind[k] || kind[k].length > 40))
        fail(`${k} must be a short word`);
    }
    return {
      kind: 'integers',
      ...(kind.item ? { item: kind.item } : {}),
      ...(kind.order ? { order: kind.order } : {}),
    };
  }
  if (isPlainObject(kind) && depth === 0) {
    const keys = Object.keys(kind);
    if (!keys.length) fail('an object result needs at least one key');
    const entries = {};
    for (const key of keys) {
      if (!IDENT.test(key) || key.length > 64) fail(`the result key ${describe(key)} is not an identifier`);
      entries[key] = parseKind(kind[key], (msg) => fail(`${key}: ${msg}`), 1);
    }
    return { kind: 'object', entries };
  }
  return fail(`must be one of ${RETURN_KINDS.join(', ')} or an object of those; got ${describe(kind)}`);
}

function text(def, field, fail, { optional = false, max = MAX_TEXT } = {}) {
  const v = def[field];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || !v.trim())
    fail(field, v === undefined ? 'is missing' : `must be a non-empty string; got ${describe(v)}`);
  if (v.length > max) fail(field, `has ${v.length} characters; the limit is ${max}`);
  return v;
}

function textList(def, field, fail, { optional = false, min = 1 } = {}) {
  const v = def[field];
  if (v === undefined && optional) return [];
  if (!Array.isArray(v))
    fail(field, v === undefined ? 'is missing' : `must be an array of strings; got ${describe(v)}`);
  if (v.length < min) fail(field, `needs at least ${min} entr${min === 1 ? 'y' : 'ies'}`);
  v.forEach((s, i) => {
    if (typeof s !== 'string' || !s.trim() || s.length > 2000)
      fail(`${field}[${i}]`, `must be a non-empty string of at most 2000 characters; got ${describe(s)}`);
  });
  return Object.freeze(v.slice());
}

const KNOWN_FIELDS = new Set([
  'id',
  'number',
  'title',
  'level',
  'prompt',
  'functions',
  'starter',
  'solution',
  'hints',
  'examples',
  'tolerance',
  'tests',
  'reference',
  'variants',
  'translations',
]);

const LANG_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const TRANSLATED = ['title', 'level', 'prompt', 'starter', 'hints', 'examples', 'variants', 'tests', 'words'];
const MAX_NAMED = 500; // entries of a translation's tests or words

/**
 * translations: { [lang]: { title?, level?, prompt?, starter?, hints?, examples?, variants?, tests?, words? } }: the
 * exercise's text in other languages. hints and examples have one entry per original; variants and tests are keyed
 * by id ({ [variantId]: { title, message } }, { [testId]: name }), words by a return kind's item or order word
 * ("memory", "strongest"). Checked like the originals; the prompt through the allow-list.
 */
function parseTranslations(def, base, fail) {
  const all = def.translations;
  if (all === undefined) return Object.freeze({});
  if (!isPlainObject(all))
    fail('translations', `must be an object { [lang]: { title, prompt, ... } }; got ${describe(all)}`);
  const out = {};
  for (const [lang, t] of Object.entries(all)) {
    const field = `translations.${lang}`;
    if (!LANG_TAG.test(lang)) fail(field, `${describe(lang)} is not a language tag such as "fr" or "pt-BR"`);
    if (!isPlainObject(t)) fail(field, `must be an object { title, prompt, hints, ... }; got ${describe(t)}`);
    out[lang.toLowerCase()] = parseTranslation(t, base, (k, msg) => fail(`${field}.${k}`, msg));
  }
  return Object.freeze(out);
}

/** One language's translation, checked against the originals (`base`: hints, examples, variants). */
function parseTranslation(t, base, tfail) {
  for (const k of Object.keys(t))
    if (!TRANSLATED.includes(k)) tfail(k, `is not a field of a translation (${TRANSLATED.join(', ')})`);
  const o = {};
  if (t.title !== undefined) o.title = text(t, 'title', tfail, { max: 200 });
  if (t.level !== undefined) o.level = text(t, 'level', tfail, { max: 60 });
  if (t.starter !== undefined) o.starter = text(t, 'starter', tfail);
  if (t.prompt !== undefined) {
    o.prompt = text(t, 'prompt', tfail, { max: 20000 });
    const { problems } = parsePromptHtml(o.prompt);
    if (problems.length) tfail('prompt', `${problems.join('; ')} (see "Prompt HTML" in web/sandbox/grade/README.md)`);
  }
  for (const k of ['hints', 'examples']) {
    if (t[k] === undefined) continue;
    o[k] = textList(t, k, tfail, { min: 0 });
    if (o[k].length !== base[k].length)
      tfail(k, `needs one entry per original (${base[k].length}); got ${o[k].length}`);
  }
  if (t.variants !== undefined) o.variants = translatedVariants(t.variants, base.variants, tfail);
  for (const k of ['tests', 'words']) if (t[k] !== undefined) o[k] = namedTexts(t[k], k, tfail);
  return Object.freeze(o);
}

const keyField = (k, key) => `${k}[${JSON.stringify(key).slice(0, 60)}]`;

/**
 * A translation's variants: { [variantId]: { title?, message? } } for the variants with that id; a title or message
 * is a string, or { [functionName]: string } where several functions share the id. An id no variant has is refused.
 */
function translatedVariants(map, variants, tfail) {
  const ids = [...new Set(variants.map((v) => v.id))];
  if (!isPlainObject(map)) {
    tfail(
      'variants',
      `must be an object keyed by the variants' ids (${ids.join(', ') || 'none'}), each { title, message }; ` +
        `got ${describe(map)}`,
    );
  }
  const out = Object.create(null);
  for (const [id, v] of Object.entries(map)) {
    const field = keyField('variants', id);
    const fns = variants.filter((x) => x.id === id).map((x) => x.fn);
    if (!fns.length) tfail(field, `names no variant of the exercise (variant ids: ${ids.join(', ') || 'none'})`);
    if (!isPlainObject(v)) tfail(field, `must be { title, message }; got ${describe(v)}`);
    const entry = {};
    for (const k of Object.keys(v)) {
      if (!['title', 'message'].includes(k)) tfail(`${field}.${k}`, 'is not translated (title, message)');
      entry[k] = perFunction(v, k, fns, (f, msg) => tfail(`${field}.${f}`, msg), k === 'title' ? 200 : 2000);
    }
    out[id] = Object.freeze(entry);
  }
  return Object.freeze(out);
}

/** v[k]: a string, or { [fn]: string } for the functions `fns` that have the variant. */
function perFunction(v, k, fns, vfail, max) {
  if (!isPlainObject(v[k])) return text(v, k, vfail, { max });
  const byFn = Object.create(null);
  for (const fn of Object.keys(v[k])) {
    if (!fns.includes(fn)) vfail(`${k}.${fn}`, `names no function that has this variant (${fns.join(', ')})`);
    byFn[fn] = text(v[k], fn, (f, msg) => vfail(`${k}.${f}`, msg), { max });
  }
  return Object.freeze(byFn);
}

/** A translation's tests ({ testId: name }) or words ({ word: translated }): strings, at most MAX_NAMED. */
function namedTexts(map, k, tfail) {
  if (!isPlainObject(map) || Object.keys(map).length > MAX_NAMED) {
    tfail(k, `must be an object of at most ${MAX_NAMED} { original: translated } strings; got ${describe(map)}`);
  }
  const entries = Object.keys(map).map((key) => {
    if (key.length > 200) tfail(k, `${describe(key)} is longer than 200 characters`);
    if (k === 'tests' && !ID.test(key))
      tfail(keyField(k, key), "is not a test's id (lower-case letters, digits and dashes; see the test's `id`)");
    return [key, text(map, key, (n, msg) => tfail(keyField(k, n), msg), { max: 200 })];
  });
  return Object.freeze(Object.assign(Object.create(null), Object.fromEntries(entries)));
}

/**
 * An exercise's text in a language: { title, level, prompt, starter, hints, examples, variants: [{ title, message }] },
 * from its translations (the tag, then its primary subtag), the original for whatever they do not give.
 */
const EMPTY = Object.freeze(Object.create(null));

export function exerciseText(exercise, lang = 'en') {
  const tag = String(lang || '').toLowerCase();
  const all = translationsOf(exercise);
  const t = all[tag] || all[tag.split('-')[0]] || {};
  return {
    title: t.title ?? exercise.title,
    level: t.level ?? exercise.level,
    prompt: t.prompt ?? exercise.prompt,
    starter: t.starter ?? exercise.starter,
    hints: t.hints ?? exercise.hints,
    examples: t.examples ?? exercise.examples,
    variants: exercise.variants.map((v) => {
      const tv = t.variants?.[v.id];
      const pick = (x) => (typeof x === 'string' ? x : x?.[v.fn]);
      return { title: pick(tv?.title) ?? v.title, message: pick(tv?.message) ?? v.message };
    }),
    tests: t.tests ?? EMPTY,
    words: t.words ?? EMPTY,
  };
}

// exercise -> translations added after its definition (addTranslations), over those it was defined with
const later = new WeakMap();

/**
 * Add translations to a defined exercise, checked as a definition's `translations` are: the built-in exercises'
 * French arrives with the French interface (loadStrings), not with the exercises. Throws naming the field.
 */
export function addTranslations(exercise, translations) {
  const fail = (field, message) => {
    throw new ExerciseDefinitionError(exercise.id, field, message);
  };
  const parsed = parseTranslations({ translations }, exercise, fail);
  checkTestIds(exercise, parsed);
  later.set(exercise, Object.freeze({ ...later.get(exercise), ...parsed }));
}

/** An exercise's translations: { [lang]: { title, prompt, ... } }, those of its definition and those added since. */
export function translationsOf(exercise) {
  const added = later.get(exercise);
  return added ? { ...exercise.translations, ...added } : exercise.translations || {};
}

/** Check a definition's structure and return the frozen exercise the grader uses (not registered). */
export function normalizeExercise(def) {
  if (!isPlainObject(def))
    throw new ExerciseDefinitionError(null, 'definition', `must be an object; got ${describe(def)}`);
  const rawId = typeof def.id === 'string' ? def.id : null;
  const fail = (field, message) => {
    throw new ExerciseDefinitionError(rawId, field, message);
  };
  const { title, level, prompt } = parseHeading(def, fail);
  const functions = parseFunctions(def, fail);
  const functionNames = Object.freeze(Object.keys(functions));
  const starter = text(def, 'starter', fail);
  const solution = text(def, 'solution', fail);
  const hints = textList(def, 'hints', fail);
  const examples = textList(def, 'examples', fail, { optional: true, min: 0 });
  const tolerance = parseTolerance(def.tolerance, fail);
  checkTestsAndReference(def, functions, fail);
  const variants = parseVariants(def.variants, functions, fail);
  const translations = parseTranslations(def, { hints, examples, variants }, fail);
  const exercise = Object.freeze({
    id: def.id,
    number: def.number ?? null,
    title,
    level,
    prompt,
    functions: Object.freeze(functions),
    functionNames,
    starter,
    solution,
    hints,
    examples,
    tolerance,
    tests: def.tests,
    reference: Object.freeze({ ...def.reference }),
    variants: Object.freeze(variants),
    translations,
  });
  normalized.add(exercise);
  return exercise;
}

/** The definition's known fields, id and number, then its title, level and prompt (checked, in that order). */
function parseHeading(def, fail) {
  for (const k of Object.keys(def))
    if (!KNOWN_FIELDS.has(k))
      fail(k, `is not a field of an exercise definition (fields: ${[...KNOWN_FIELDS].join(', ')})`);
  if (def.id === undefined) fail('id', 'is missing');
  if (typeof def.id !== 'string' || !ID.test(def.id)) {
    fail(
      'id',
      'must be 1 to 64 lower-case letters, digits and dashes (it names the exercise in the exercise attribute ' +
        `and in saved progress); got ${describe(def.id)}`,
    );
  }
  if (def.number !== undefined && !(Number.isInteger(def.number) && def.number > 0 && def.number < 1000))
    fail('number', `must be a positive whole number; got ${describe(def.number)}`);
  const title = text(def, 'title', fail, { max: 200 });
  const level = text(def, 'level', fail, { max: 60 });
  const prompt = text(def, 'prompt', fail, { max: 20000 });
  const { problems } = parsePromptHtml(prompt);
  if (problems.length) fail('prompt', `${problems.join('; ')} (see "Prompt HTML" in web/sandbox/grade/README.md)`);
  return { title, level, prompt };
}

/** def.functions -> { [name]: frozen { params, returns, declared } }. */
function parseFunctions(def, fail) {
  if (def.functions === undefined) fail('functions', 'is missing');
  if (!isPlainObject(def.functions) || !Object.keys(def.functions).length)
    fail(
      'functions',
      `must be an object with one entry per function the learner writes; got ${describe(def.functions)}`,
    );
  const functions = {};
  for (const [name, spec] of Object.entries(def.functions)) functions[name] = parseFunction(name, spec, fail);
  return functions;
}

/** One entry of def.functions: its params (names, shapes, ranges, defaults) and what it returns. */
function parseFunction(name, spec, fail) {
  const field = `functions.${name}`;
  const why = badFunctionName(name);
  if (why) fail(field, why);
  if (!isPlainObject(spec)) fail(field, `must be { params, returns }; got ${describe(spec)}`);
  for (const k of Object.keys(spec))
    if (!['params', 'returns'].includes(k)) fail(`${field}.${k}`, 'is not a field of a function (params, returns)');
  if (!Array.isArray(spec.params))
    fail(
      `${field}.params`,
      spec.params === undefined ? 'is missing' : `must be an array of parameter names; got ${describe(spec.params)}`,
    );
  const params = spec.params.map((p, i) => parseParam(p, (msg) => fail(`${field}.params[${i}]`, msg)));
  const seen = new Set();
  params.forEach((p, i) => {
    if (seen.has(p.name)) fail(`${field}.params[${i}]`, `${p.name} appears twice`);
    seen.add(p.name);
    if (i > 0 && params[i - 1].hasDefault && !p.hasDefault)
      fail(`${field}.params[${i}]`, `${p.name} has no default but follows a parameter that has one`);
  });
  if (spec.returns === undefined) fail(`${field}.returns`, 'is missing');
  const returns = parseKind(spec.returns, (msg) => fail(`${field}.returns`, msg));
  const known = new Set([...params.map((p) => p.name), ...params.flatMap((p) => p.shape || [])]);
  params.forEach((p, i) => {
    for (const bound of p.range || []) {
      if (typeof bound === 'string' && !known.has(bound)) {
        fail(`${field}.params[${i}]`, `the range bound ${bound} is neither a size in a shape nor a parameter`);
      }
    }
  });
  return deepFreeze({
    params,
    returns,
    declared: { params: spec.params.slice(), returns: structuredClone(spec.returns) },
  });
}

/** def.tolerance -> frozen { atol, rtol } (DEFAULT_TOLERANCE when not given). */
function parseTolerance(t, fail) {
  if (t === undefined) return DEFAULT_TOLERANCE;
  if (!isPlainObject(t)) fail('tolerance', `must be { atol, rtol }; got ${describe(t)}`);
  for (const k of ['atol', 'rtol']) {
    if (!(typeof t[k] === 'number' && Number.isFinite(t[k]) && t[k] >= 0))
      fail(`tolerance.${k}`, `must be a finite number >= 0; got ${describe(t[k])}`);
  }
  return Object.freeze({ atol: t.atol, rtol: t.rtol });
}

/** def.tests is a function, and def.reference has a function for each learner function and nothing else. */
function checkTestsAndReference(def, functions, fail) {
  const functionNames = Object.keys(functions);
  if (def.tests === undefined) fail('tests', 'is missing');
  if (typeof def.tests !== 'function')
    fail('tests', `must be a function (rng, api) returning [{ name, fn, args }]; got ${describe(def.tests)}`);
  if (def.reference === undefined) fail('reference', 'is missing');
  if (!isPlainObject(def.reference))
    fail(
      'reference',
      `must be an object with one function (args, api) per learner function; got ${describe(def.reference)}`,
    );
  for (const name of functionNames) {
    if (typeof def.reference[name] !== 'function')
      fail(
        `reference.${name}`,
        def.reference[name] === undefined
          ? 'is missing'
          : `must be a function (args, api); got ${describe(def.reference[name])}`,
      );
  }
  for (const name of Object.keys(def.reference))
    if (!functions[name]) fail(`reference.${name}`, `is not one of the functions (${functionNames.join(', ')})`);
}

/** def.variants -> frozen { id, fn, title, message, compute, anyOf } each (none when not given). */
function parseVariants(list, functions, fail) {
  if (list !== undefined && !Array.isArray(list)) fail('variants', `must be an array; got ${describe(list)}`);
  return (list || []).map((v, i) => parseVariant(v, `variants[${i}]`, functions, fail));
}

function parseVariant(v, field, functions, fail) {
  if (!isPlainObject(v)) fail(field, `must be { id, fn, title, message, compute }; got ${describe(v)}`);
  const vfail = (k, msg) => fail(`${field}.${k}`, msg);
  for (const k of Object.keys(v))
    if (!['id', 'fn', 'title', 'message', 'compute', 'anyOf'].includes(k))
      vfail(k, 'is not a field of a variant (id, fn, title, message, compute, anyOf)');
  if (typeof v.id !== 'string' || !ID.test(v.id))
    vfail('id', `must be lower-case letters, digits and dashes; got ${describe(v.id)}`);
  if (!functions[v.fn])
    vfail('fn', `must name one of the functions (${Object.keys(functions).join(', ')}); got ${describe(v.fn)}`);
  text(v, 'title', (k, msg) => vfail(k, msg), { max: 200 });
  text(v, 'message', (k, msg) => vfail(k, msg), { max: 2000 });
  if (typeof v.compute !== 'function')
    vfail(
      'compute',
      v.compute === undefined ? 'is missing' : `must be a function (args, api); got ${describe(v.compute)}`,
    );
  if (v.anyOf !== undefined && typeof v.anyOf !== 'boolean')
    vfail('anyOf', `must be true or false; got ${describe(v.anyOf)}`);
  const { id, fn, title, message, compute } = v;
  return Object.freeze({ id, fn, title, message, compute, anyOf: v.anyOf === true });
}

function deepFreeze(o) {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/**
 * Generate the hidden tests of `exercise` for `seed`: the definition's cases with their ids and the reference
 * outputs as expected specs. Throws an ExerciseDefinitionError naming the field when a case or a reference is
 * malformed.
 */
export function generateTests(exercise, seed, api) {
  return buildTests(exercise, seed, api).tests;
}

/** generateTests' tests, and the set of ids the cases gave themselves (the others are derived from the names). */
function buildTests(exercise, seed, api) {
  const fail = (field, message) => {
    throw new ExerciseDefinitionError(exercise.id, field, message);
  };
  let cases;
  try {
    cases = exercise.tests(makeRng(hashSeed(exercise.id, seed)), api);
  } catch (e) {
    fail('tests', `threw for seed ${seed}: ${e && e.message}`);
  }
  if (!Array.isArray(cases) || !cases.length)
    fail('tests', `must return a non-empty array of { id, name, fn, args }; got ${describe(cases)}`);
  const names = new Set();
  const given = new Set();
  const tests = cases.map((c, i) => {
    const field = `tests (case ${i}${c && typeof c.name === 'string' ? `, "${c.name.slice(0, 60)}"` : ''})`;
    checkCase(exercise, c, field, fail);
    if (names.has(c.name)) fail(field, 'two cases have this name; names must be unique');
    names.add(c.name);
    if (c.id !== undefined) {
      if (typeof c.id !== 'string' || !ID.test(c.id))
        fail(field, `id must be 1 to 64 lower-case letters, digits and dashes; got ${describe(c.id)}`);
      if (given.has(c.id)) fail(field, `two cases have the id "${c.id}"; ids must be unique`);
      given.add(c.id);
    }
    return { id: c.id, name: c.name, fn: c.fn, args: c.args, expected: expectedSpec(exercise, c, fail, api) };
  });
  const taken = new Set(given);
  for (const t of tests) if (t.id === undefined) taken.add((t.id = derivedId(t.name, taken)));
  return { tests, given };
}

/**
 * A test's id when its case gives none: its name in lower case, runs of other characters as one dash (at most 64
 * characters), then -2, -3, ... if taken. It changes when the name does: a translated test gives its own id.
 */
export function derivedId(name, taken = new Set()) {
  const base =
    name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+/, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'test';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/** A case's form: { id?, name, fn, args } with a known fn and as many args as it takes. */
function checkCase(exercise, c, field, fail) {
  if (!isPlainObject(c)) fail(field, `must be { id, name, fn, args }; got ${describe(c)}`);
  if (typeof c.name !== 'string' || !c.name.trim() || c.name.length > 200)
    fail(field, 'name must be a non-empty string of at most 200 characters');
  const fn = exercise.functions[c.fn];
  if (!fn)
    fail(field, `fn must name one of the functions (${exercise.functionNames.join(', ')}); got ${describe(c.fn)}`);
  if (!Array.isArray(c.args)) fail(field, `args must be an array; got ${describe(c.args)}`);
  const required = fn.params.filter((p) => !p.hasDefault).length;
  if (c.args.length < required || c.args.length > fn.params.length) {
    fail(
      field,
      `${c.fn} takes ${required === fn.params.length ? required : `${required} to ${fn.params.length}`} ` +
        `arguments; the case gives ${c.args.length}`,
    );
  }
}

/** The reference's output on a case, as the spec a learner's value is compared with. */
function expectedSpec(exercise, c, fail, api) {
  let value;
  try {
    value = exercise.reference[c.fn](c.args, api);
  } catch (e) {
    fail(`reference.${c.fn}`, `threw on the case "${c.name.slice(0, 60)}": ${e && e.message}`);
  }
  try {
    return toSpec(value, exercise.functions[c.fn].returns);
  } catch (e) {
    return fail(`reference.${c.fn}`, `on the case "${c.name.slice(0, 60)}": ${e.message}`);
  }
}

/** Each variant's value on each test of its function (null where it throws or has the wrong form). */
export function variantSpecs(exercise, variant, tests, api) {
  const returns = exercise.functions[variant.fn].returns;
  return tests.map((t) => {
    if (t.fn !== variant.fn) return null;
    try {
      return toSpec(variant.compute(t.args, api), returns);
    } catch {
      return null;
    }
  });
}

// exercise -> { all, given }: its tests' ids (seed 1) and those its cases give, known once validateValues ran
const testIds = new WeakMap();

/**
 * Refuse a translation's `tests` entry that names no test id of the exercise, or a test whose id is derived from
 * its name (renaming the test would drop the translation). Needs the tests' ids: a no-op until validateValues ran.
 */
function checkTestIds(exercise, translations) {
  const ids = testIds.get(exercise);
  if (!ids) return;
  for (const [lang, t] of Object.entries(translations)) {
    for (const id of Object.keys(t.tests || {})) {
      if (ids.given.has(id)) continue;
      const some = [...ids.all].slice(0, 6).join(', ') + (ids.all.size > 6 ? ', ...' : '');
      const why = ids.all.has(id)
        ? 'names a test whose id is derived from its name, which changes with the name: give the test an `id`'
        : `names no test of the exercise (test ids: ${some})`;
      throw new ExerciseDefinitionError(exercise.id, `translations.${lang}.${keyField('tests', id)}`, why);
    }
  }
}

/**
 * The checks that need the tests' values (seed 1): every case well formed, every reference output of its
 * declared kind, every translated test id a test's own, and every variant different from the reference on at
 * least one test. Throws the
 * ExerciseDefinitionError of the first problem. Done once per exercise and api.
 */
export function validateValues(exercise, api) {
  let perApi = validated.get(exercise);
  if (!perApi) validated.set(exercise, (perApi = new WeakMap()));
  const key = typeof api === 'object' || typeof api === 'function' ? api : defaultApi;
  const known = perApi.get(key);
  if (known === true) return;
  if (known) throw known;
  try {
    const { tests, given } = buildTests(exercise, 1, api);
    testIds.set(exercise, { all: new Set(tests.map((t) => t.id)), given });
    checkTestIds(exercise, translationsOf(exercise));
    exercise.variants.forEach((v, i) => {
      const specs = variantSpecs(exercise, v, tests, api);
      const mine = tests.filter((t) => t.fn === v.fn);
      if (!mine.length) throw new ExerciseDefinitionError(exercise.id, `variants[${i}]`, `no test calls ${v.fn}`);
      const differs = tests.some((t, j) => specs[j] && !specsAgree(specs[j], t.expected, exercise.tolerance));
      if (!differs) {
        const why = specs.every((s, j) => tests[j].fn !== v.fn || s === null)
          ? 'compute throws or returns the wrong kind on every test'
          : 'never differs from the reference on the hidden tests (seed 1), so a learner who makes this mistake ' +
            'passes; add a test where it differs';
        throw new ExerciseDefinitionError(exercise.id, `variants[${i}] ("${v.id}")`, why);
      }
    });
    perApi.set(key, true);
  } catch (e) {
    perApi.set(key, e);
    throw e;
  }
}

/** Whether `api` can compute now (its wasm is loaded), so value checks can run synchronously. */
function apiReady(api) {
  try {
    api.wasmInfo();
    return true;
  } catch {
    return false;
  }
}

/**
 * Define an exercise: check the definition, register it under its id and return the frozen exercise.
 * Structural problems throw at once (an ExerciseDefinitionError naming the field). The checks that need the
 * tests' values (a variant that never differs from the reference, a reference of the wrong kind) run here too
 * when ffn-lab's wasm is already loaded (await ready() first), or else before the exercise's first grading.
 */
export function defineExercise(definition) {
  return register(definition, true);
}

/**
 * A built-in exercise: defined as defineExercise does, but its value checks (tens of milliseconds each, too long for
 * a page's load) run before its first grading only: a page grades few of the built-ins, most never.
 */
export function defineBuiltInExercise(definition) {
  return register(definition, false);
}

/** defineExercise's work; the value checks at once (when the wasm is loaded) only if `checkNow`. */
function register(definition, checkNow) {
  const existing =
    isPlainObject(definition) && typeof definition.id === 'string' ? registry.get(definition.id) : undefined;
  if (existing && (existing.exercise === definition || existing.source === definition)) return existing.exercise;
  const exercise = normalizeExercise(definition);
  if (existing)
    throw new ExerciseDefinitionError(
      exercise.id,
      'id',
      `"${exercise.id}" is already defined (ids are unique on a page)`,
    );
  if (checkNow && apiReady(defaultApi)) validateValues(exercise, defaultApi);
  registry.set(exercise.id, { exercise, source: definition });
  for (const fn of [...listeners]) {
    try {
      fn(exercise);
    } catch {
      // a listener's failure is its own
    }
  }
  return exercise;
}

/** The exercise with this id (built-in or defined); a RangeError listing the known ids otherwise. */
export function getExercise(id) {
  const entry = typeof id === 'string' ? registry.get(id) : undefined;
  if (!entry)
    throw new RangeError(`unknown exercise "${String(id).slice(0, 80)}"; known: ${[...registry.keys()].join(', ')}`);
  return entry.exercise;
}

/** Accept an exercise id, a defined exercise or a definition; return the exercise. */
export function resolveExercise(what) {
  if (typeof what === 'string') return getExercise(what);
  if (normalized.has(what)) return what;
  if (isPlainObject(what) && typeof what.id === 'string') {
    const entry = registry.get(what.id);
    if (entry && (entry.exercise === what || entry.source === what)) return entry.exercise;
    return normalizeExercise(what);
  }
  throw new TypeError(`expected an exercise id or definition; got ${describe(what)}`);
}

/** Every defined exercise's id, built-ins first. */
export function definedExerciseIds() {
  return [...registry.keys()];
}

/** Call fn(exercise) whenever an exercise is defined; returns a function that stops it. */
export function onExerciseDefined(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The hidden tests of an exercise for a seed, with expected values (for authors inspecting their tests). */
export async function hiddenTests(what, { seed = 1, api = defaultApi, ready } = {}) {
  const exercise = resolveExercise(what);
  await api.ready(ready);
  return generateTests(exercise, seed, api);
}
