// The locale tables (web/i18n): French complete and French, pages' tables merged, numbers formatted per locale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineStrings, getStrings } from 'ffn-lab/sandbox';
import * as components from 'ffn-lab/components';
import en from '../../web/i18n/en.js';
import fr from '../../web/i18n/fr.js';
import { translator, errorText, loadStrings, stringsLoaded } from '../../web/i18n/index.js';
import { exercises, exerciseText } from '../../web/sandbox/grade/exercises/index.js';
import { toMessage } from '../../web/sandbox/grade/report-text.js';
import { findEnglish } from '../helpers/english.js';
import { rng } from '../helpers/numeric.js';
import { hostileWorkerUrl, checkHostileReport } from '../helpers/hostile-worker.js';

/** [key, leaf] for every leaf of a table (a plural leaf { one, other } is one leaf). */
function leaves(table, prefix = '') {
  return Object.entries(table).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string' || (v && typeof v.other === 'string')) return [[key, v]];
    return leaves(v, key);
  });
}
const placeholders = (v) =>
  [...new Set((typeof v === 'string' ? v : Object.values(v).join(' ')).match(/\{\w+\}/g) || [])].sort();
const get = (table, key) => key.split('.').reduce((t, k) => (t == null ? undefined : t[k]), table);

// French strings that are rightly the same as the English ones: names, symbols and code.
const SAME = new Set([
  'report.raw', // a text of no key (the learner's own error message), shown as it is
  'exercise.heading',
  'exercise.valueKinds.bigint',
  'progress.problem',
  'memory.sliderText',
  'lab.relation.continent',
  'lab.fact',
  'lab.pause',
  'lab.colActivation',
  'lab.colContribution',
  'lab.err.relation',
  'memory.colPhi',
  'memory.colTop',
  'memory.cellPhi',
  'memory.cellTop',
  'memory.fact',
  'memory.unranked',
  'memory.kLabel',
  'memory.act.relu',
  'memory.act.gelu',
  'memory.act.silu',
  'memory.end',
  'memory.listSep',
  'memory.score',
  'plot.curves.relu',
  'plot.curves.gelu_tanh',
  'plot.curves.silu',
  'plot.colActivation',
  'plot.colValue',
  'plot.colSlope',
  'plot.panels.values',
  'plot.names.gelu',
  'plot.names.silu',
  'plot.names.tanh',
  'plot.logTick',
  'calculator.presetLabels.gpt2',
  'calculator.presetLabels.llama7b',
  'calculator.presetLabels.llama3_8b',
  'calculator.presetLabels.llama2_70b',
  'calculator.presetLabels.qwen3_moe',
  'calculator.multipleOf',
  'calculator.ratio',
  'calculator.key',
  'errors.hashName',
  'errors.factsAttr',
  'errors.distractorsAttr',
  'memory.colBar',
  'storage.entry',
  'storage.types.undefined',
  'storage.types.null',
  'storage.comma',
  'exercise.valueKinds.symbol',
  'exercise.cancel',
  'report.keyed',
  'report.sentences',
  'report.space',
  'report.comma',
  'report.feature.equals',
  'report.nTests',
  'report.worker.bad.null',
]);

test("French is loaded on first use: English until loadStrings('fr'), then the table and exercises", async () => {
  const gelu = exercises.find((e) => e.id === 'gelu');
  assert.equal(stringsLoaded('fr'), false, 'nothing has loaded French yet in this process');
  assert.equal(translator('fr').t('exercise.run'), en.exercise.run);
  assert.equal(translator('fr').locale, 'en', 'English numbers with the English table');
  assert.equal(exerciseText(gelu, 'fr').title, gelu.title);
  assert.equal(getStrings('fr').exercise.run, en.exercise.run);
  const loading = loadStrings('fr-CA');
  assert.equal(loadStrings('fr'), loading, 'one load per language');
  await loading;
  assert.equal(stringsLoaded('fr'), true);
  assert.equal(translator('fr').t('exercise.run'), fr.exercise.run);
  assert.equal(translator('fr').locale, 'fr');
  assert.equal(getStrings('fr-BE').exercise.run, fr.exercise.run);
  assert.notEqual(exerciseText(gelu, 'fr').title, gelu.title);
  assert.equal(exerciseText(gelu, 'fr').title, (await import('../../web/sandbox/grade/exercises/fr.js')).gelu.title);
  // English and a language without a built-in table have nothing to load
  assert.equal(stringsLoaded('en'), true);
  assert.equal(stringsLoaded('de'), true);
  await loadStrings('de');
});

test('the French table has every key of the English one, with the same parameters and plural forms', () => {
  const enLeaves = leaves(en);
  assert.ok(enLeaves.length > 250, `${enLeaves.length} English strings`);
  const missing = [];
  const params = [];
  for (const [key, v] of enLeaves) {
    const f = get(fr, key);
    if (f === undefined) {
      missing.push(key);
      continue;
    }
    if (typeof v !== 'string')
      assert.ok(typeof f.other === 'string' && typeof f.one === 'string', `${key}: plural forms`);
    if (placeholders(f).join() !== placeholders(v).join())
      params.push(`${key}: ${placeholders(f)} vs ${placeholders(v)}`);
  }
  assert.deepEqual(missing, []);
  assert.deepEqual(params, []);
  const extra = leaves(fr)
    .map(([k]) => k)
    .filter((k) => get(en, k) === undefined);
  assert.deepEqual(extra, [], 'French keys unknown to English (typos) are never used');
});

test('every French string is translated: not the English one (but names and symbols), and no English word', () => {
  const same = leaves(en)
    .filter(([k, v]) => JSON.stringify(get(fr, k)) === JSON.stringify(v) && !SAME.has(k))
    .map(([k]) => k);
  assert.deepEqual(same, []);
  const texts = leaves(fr)
    .flatMap(([, v]) => (typeof v === 'string' ? [v] : Object.values(v)))
    .map((s) => s.replace(/\{\w+\}/g, ' '));
  assert.deepEqual(findEnglish(texts), []);
  // the check is not vacuous: the English table is found English
  const enTexts = leaves(en).flatMap(([, v]) => (typeof v === 'string' ? [v] : Object.values(v)));
  assert.ok(findEnglish(enTexts).length > 250);
});

const NUMBERS =
  'numbers: English keeps the formatting the elements had (toFixed, no -0, exponents); French has its own';
test(NUMBERS, async () => {
  await loadStrings('fr');
  const e = translator('en');
  const f = translator('fr');
  // the formatting the widgets used before the tables: toFixed, "-0.00" shown as "0.00", exponent form for tiny values
  const oldFmt = (v, d) => {
    const s = v.toFixed(d);
    return s === '-' + (0).toFixed(d) ? (0).toFixed(d) : s;
  };
  const oldSmall = (v, d) => (v !== 0 && Math.abs(v) < 0.5 * 10 ** -d ? v.toExponential(1) : oldFmt(v, d));
  const rnd = rng(7);
  const values = [0, -0, 0.125, -0.125, 0.005, -0.005, 1e-9, -2.5e-5, 0.7525, 123456.789, -1.7, 2 / 3];
  for (let i = 0; i < 2000; i++) values.push((rnd() - 0.5) * 10 ** Math.floor(rnd() * 12 - 6));
  for (const v of values) {
    for (const d of [0, 1, 2, 3, 4]) {
      assert.equal(e.fixed(v, d), oldFmt(v, d), `${v} to ${d}`);
      assert.equal(e.small(v, d), oldSmall(v, d), `${v} small ${d}`);
    }
  }
  assert.equal(e.int(4722432), '4,722,432');
  assert.equal(f.int(4722432), '4\u202f722\u202f432');
  assert.equal(f.fixed(-0.752, 3), '-0,752');
  assert.equal(f.fixed(-0.0001, 2), '0,00');
  assert.equal(f.small(-2.5e-5, 2), '-2,5e-5');
  assert.equal(f.list(['gelu', 'geluTanh']), 'gelu et geluTanh');
  assert.equal(e.list(['gelu', 'geluTanh']), 'gelu and geluTanh');
  assert.equal(f.date(new Date(Date.UTC(2026, 0, 15, 12))), '15 janvier 2026');
  // plural forms: French has 0 and 1 singular
  assert.equal(f.t('progress.imported', { n: 0 }), 'Progression importée pour 0 exercice.');
  assert.equal(e.t('progress.imported', { n: 0 }), 'Imported progress for 0 exercises.');
  assert.equal(f.t('calculator.billion', { n: 1.5, x: '1,50' }), '1,50 milliard');
});

test("a refused attribute: the model's error in English (as before), the element's line in the reader's", async () => {
  await loadStrings('fr');
  const { memoryModel, paramModel, activationModel } = components;
  const cases = [
    [
      () => memoryModel.parseAttribute('facts', 'Tokyo'),
      /^parseFacts: fact 0 "Tokyo" should look like "Tokyo>Japan"/,
      /^facts : le fait 0 "Tokyo" doit s’écrire/,
    ],
    [
      () => paramModel.parseAttribute('presets', '[{"id":"x","label":"X","d":0}]'),
      /^presets: preset "x": d must be a positive integer up to 131072, got "0"$/,
      /^presets : préréglage "x" : d doit être un entier strictement positif d’au plus 131072, reçu : "0"$/,
    ],
    [
      () => activationModel.parseAttribute('range', 'x'.repeat(100)),
      /^range is 100 characters long; at most 64 are accepted$/,
      /^range fait 100 caractères ; au plus 64 sont acceptés$/,
    ],
    [
      () => memoryModel.parseAttribute('facts', `${'A'.repeat(70)}>B`),
      /^parseFacts: fact 0's key "A{40}"… \(70 characters\) has 70 characters; at most 64$/,
      /^clé du fait 0 "A{40}"… \(70 caractères\) compte 70 caractères ; au plus 64$/,
    ],
  ];
  for (const [fn, english, french] of cases) {
    let err;
    try {
      fn();
    } catch (e) {
      err = e;
    }
    assert.ok(err && err.i18n, String(err));
    assert.match(err.message, english);
    assert.match(plainSpaces(errorText(translator('fr'), err)), french);
  }
  assert.deepEqual(memoryModel.parseHashState('q:1,2;z:3').ignored, [
    '"z:3" (expected q:x,y, k:n, t:threshold or a:activation)',
  ]);
});

const PAGE_TABLES =
  'defineStrings: a page adds a language or overrides keys (object or JSON), bad tags refused; getStrings';
test(PAGE_TABLES, async () => {
  await loadStrings('fr');
  assert.equal(components.defineStrings, defineStrings);
  assert.throws(() => defineStrings('not a tag', {}), /defineStrings: lang must be a language tag/);
  assert.throws(() => defineStrings('de', '{nope'), /defineStrings: the table is not JSON/);
  assert.throws(() => defineStrings('de', ['a']), /defineStrings: table must be an object/);
  defineStrings('de', JSON.stringify({ exercise: { run: 'Tests ausführen' } }));
  defineStrings('de', { exercise: { stop: 'Anhalten' } });
  const de = translator('de-AT');
  assert.equal(de.t('exercise.run'), 'Tests ausführen');
  assert.equal(de.t('exercise.stop'), 'Anhalten');
  assert.equal(de.t('exercise.reset'), 'Reset', 'a key the page did not give falls back to English');
  assert.equal(de.locale, 'de-AT');
  assert.equal(de.fixed(1.5, 2), '1,50', "numbers follow the page's language");
  defineStrings('fr', { exercise: { stop: 'Stopper' } });
  assert.equal(translator('fr').t('exercise.stop'), 'Stopper');
  assert.equal(translator('fr').t('exercise.run'), 'Lancer les tests');
  assert.equal(getStrings('fr').exercise.stop, 'Stopper');
  defineStrings('fr', { exercise: { stop: fr.exercise.stop } });
  assert.equal(translator('ja').t('exercise.run'), 'Run tests');
  assert.equal(translator('ja').locale, 'en');
  assert.equal(getStrings().exercise.run, 'Run tests');
  defineStrings('de', { __proto__: null, constructor: { run: 'x' } });
  assert.equal({}.run, undefined);
});

test('the eight built-ins are in French too: title, level, prompt, hints, examples, variants, test names', async () => {
  await loadStrings('fr');
  const api = await import('ffn-lab');
  await api.ready();
  const { generateTests } = await import('../../web/sandbox/grade/exercises/index.js');
  const { exerciseText } = await import('../../web/sandbox/grade/exercises/index.js');
  const memories = (await import('ffn-lab/sandbox')).exercises.find((x) => x.id === 'memories');
  assert.deepEqual(
    { ...exerciseText(memories, 'fr').words },
    { memory: 'mémoire', strongest: 'par force décroissante' },
  );
  const { exercises } = await import('ffn-lab/sandbox');
  const prose = (html) => html.replace(/<code>[\s\S]*?<\/code>/g, ' ').replace(/<[^>]+>/g, ' ');
  for (const ex of exercises) {
    const f = exerciseText(ex, 'fr');
    const e = exerciseText(ex, 'en');
    assert.equal(e.title, ex.title, 'English is the original');
    for (const k of ['title', 'level', 'prompt']) assert.notEqual(f[k], e[k], `${ex.id}: ${k}`);
    for (const k of ['hints', 'examples', 'variants']) assert.equal(f[k].length, e[k].length, `${ex.id}: ${k}`);
    f.hints.forEach((h, i) => assert.notEqual(h, e.hints[i], `${ex.id}: hint ${i}`));
    f.variants.forEach((v, i) => {
      assert.notEqual(v.title, e.variants[i].title, `${ex.id}: variant ${i} title`);
      assert.notEqual(v.message, e.variants[i].message, `${ex.id}: variant ${i} message`);
    });
    // the learner's parameter names and result keys are code, whatever the language (bias, gated, partial)
    const names = Object.values(ex.functions).flatMap((fn) => [
      ...fn.params.map((p) => p.name),
      ...Object.keys(fn.returns.entries || {}),
    ]);
    const code = new RegExp(`\\b(${names.join('|')})\\b`, 'g');
    const texts = [
      f.title,
      f.level,
      prose(f.prompt),
      ...f.hints,
      ...f.variants.flatMap((v) => [v.title, v.message]),
    ].map((s) => s.replace(code, ' '));
    assert.deepEqual(findEnglish(texts), [], ex.id);
    // every hidden test's name (by the test's id), for two seeds, and the words of the reports' index lines
    const generated = [1, 9].flatMap((seed) => generateTests(ex, seed, api));
    const testNames = generated.map((t) => t.name);
    const untranslated = generated.filter((t) => !f.tests[t.id] || f.tests[t.id] === t.name).map((t) => t.id);
    assert.deepEqual(untranslated, [], `${ex.id}: test names without French`);
    const french = generated.map((t) => f.tests[t.id].replace(code, ' '));
    assert.deepEqual(findEnglish(french), [], `${ex.id}: test names`);
    assert.ok(findEnglish(testNames).length > 0, `${ex.id}: the check sees English names`);
    assert.ok(
      findEnglish([e.title, e.level, prose(e.prompt), ...e.hints]).length > 5,
      `${ex.id}: the check sees English`,
    );
    assert.equal(exerciseText(ex, 'fr-CA').title, f.title, 'a regional tag uses its language');
    assert.equal(exerciseText(ex, 'ja').title, ex.title, 'no translation: the original');
  }
});

test('translations in a definition are checked like the originals, naming the field at fault', async () => {
  const { defineExercise } = await import('ffn-lab/sandbox');
  const { exerciseText } = await import('../../web/sandbox/grade/exercises/index.js');
  const base = {
    id: 'i18n-check',
    title: 'Double',
    level: 'Warm-up',
    prompt: '<p>Double it.</p>',
    functions: { twice: { params: ['x'], returns: 'number' } },
    starter: 'function twice(x) {}',
    solution: 'function twice(x) { return 2 * x; }',
    hints: ['Multiply.', 'By two.'],
    tests: () => [{ name: 'one', fn: 'twice', args: [1] }],
    reference: { twice: ([x]) => 2 * x },
    variants: [{ id: 'same', fn: 'twice', title: 'Unchanged', message: 'You returned x.', compute: ([x]) => x }],
  };
  const refused = [
    [{ 'not a tag': {} }, /translations\.not a tag: "not a tag" is not a language tag/],
    [{ fr: { colour: 'x' } }, /translations\.fr\.colour: is not a field of a translation/],
    [{ fr: { hints: ['Multipliez.'] } }, /translations\.fr\.hints: needs one entry per original \(2\); got 1/],
    [{ fr: { prompt: '<p>Doublez.</p><script>x</script>' } }, /translations\.fr\.prompt: <script> is not allowed/],
    [{ fr: { variants: [] } }, /translations\.fr\.variants: must be an object keyed by the variants' ids \(same\)/],
    [{ fr: { variants: { same: { title: '' } } } }, /translations\.fr\.variants\["same"\]\.title: must be a non-empty/],
    [{ fr: { variants: { sam: { title: 'Inchangé' } } } }, /variants\["sam"\]: names no variant of the exercise/],
    [{ fr: { variants: { same: { message: { thrice: 'x' } } } } }, /\["same"\]\.message\.thrice: names no function/],
    [{ fr: { tests: { One: 'un' } } }, /translations\.fr\.tests\["One"\]: is not a test's id/],
    [{ fr: { title: 7 } }, /translations\.fr\.title: must be a non-empty string/],
    [{ fr: { tests: ['un'] } }, /translations\.fr\.tests: must be an object of at most 500/],
    [{ fr: { tests: { one: '' } } }, /translations\.fr\.tests\["one"\]: must be a non-empty string/],
    [{ fr: { words: { memory: 5 } } }, /translations\.fr\.words\["memory"\]: must be a non-empty string/],
  ];
  for (const [translations, re] of refused) {
    assert.throws(
      () => defineExercise({ ...base, translations }),
      (e) => e.name === 'ExerciseDefinitionError' && re.test(e.message),
      JSON.stringify(translations),
    );
  }
  const ex = defineExercise({
    ...base,
    translations: { 'pt-BR': { title: 'Dobro', variants: {} }, fr: { hints: ['Multipliez.', 'Par deux.'] } },
  });
  assert.equal(exerciseText(ex, 'pt-br').title, 'Dobro');
  assert.equal(exerciseText(ex, 'pt-BR').prompt, '<p>Double it.</p>', 'what a translation leaves out stays original');
  assert.equal(exerciseText(ex, 'pt-BR').variants[0].message, 'You returned x.');
  assert.deepEqual(exerciseText(ex, 'fr').hints, ['Multipliez.', 'Par deux.']);
  assert.equal(exerciseText(ex, 'pt').title, 'Double', 'pt-BR is not pt');
  // a test id no test has, or one derived from the test's name (it would change with the name), is refused: with
  // the wasm loaded (the test above awaited it), by defineExercise at once
  const one = () => [{ id: 'one', name: 'one', fn: 'twice', args: [1] }];
  assert.throws(
    () =>
      defineExercise({
        ...base,
        id: 'i18n-typo',
        tests: one,
        translations: { fr: { tests: { one: 'un', onne: 'un' } } },
      }),
    /translations\.fr\.tests\["onne"\]: names no test of the exercise \(test ids: one\)/,
  );
  assert.throws(
    () => defineExercise({ ...base, id: 'i18n-derived', translations: { fr: { tests: { one: 'un' } } } }),
    /translations\.fr\.tests\["one"\]: names a test whose id is derived from its name/,
  );
  // a word that names nothing is a typo: checkExercise says so
  const { checkExercise } = await import('ffn-lab/sandbox');
  const typo = defineExercise({
    ...base,
    id: 'i18n-check-typo',
    translations: { fr: { words: { memory: 'mémoire' } } },
  });
  const r = await checkExercise(typo, { seeds: [1] });
  assert.deepEqual(
    r.problems.filter((p) => p.field.startsWith('translations')).map((p) => `${p.field}: ${p.message}`),
    ['translations.fr.words: "memory" is no return kind\'s item or order'],
  );
});

/** Every text of a report ({ key, params, text }) as [its English, the message it says (toMessage)]. */
function reportTexts(report) {
  const pair = (t) => [t.text, toMessage(t)];
  const out = [pair(report.summary)];
  report.tests.forEach((t) => t.message && out.push(pair(t.message)));
  report.notes.forEach((n) => out.push(pair(n)));
  // grading's own diagnoses (an exercise's mistakes are the exercise's text, translated by the exercise)
  for (const d of report.diagnoses) {
    for (const t of [d.title, d.message]) if (t.key !== 'report.raw') out.push(pair(t));
  }
  return out;
}

test("the sandbox's own crash reasons are said in French, the English report unchanged", async () => {
  await loadStrings('fr');
  const { reportRun } = await import('../../web/sandbox/grade/grade.js');
  const { generateTests } = await import('../../web/sandbox/grade/exercises/index.js');
  const { FRAME_HTML } = await import('../../web/sandbox/run/sandbox-inline.js');
  const api = await import('ffn-lab');
  await api.ready();
  const gelu = exercises.find((e) => e.id === 'gelu');
  const tests = generateTests(gelu, 1, api);
  const fr = translator('fr');
  // the frame's own text for a worker that cannot load is the one grading knows
  assert.ok(FRAME_HTML.includes("'the exercise worker failed to load'"));
  const reasons = [
    'the exercise worker failed to load',
    'the exercise worker failed',
    'the exercise worker did not start',
    'its process ended, most likely because your code used too much memory',
    'the sandbox frame was removed from the page',
  ];
  for (const crash of reasons) {
    const run = { status: 'crashed', crash, compileError: null, results: tests.map(() => null), logs: [] };
    const report = await reportRun(gelu, tests, run, { api });
    assert.ok(report.summary.text.includes(crash), report.summary.text);
    const m = toMessage(report.summary);
    const french = fr.t(m.key, m.params);
    assert.deepEqual(findEnglish([french]), [], french);
  }
});

test("a grading report's texts are messages: the report's English, and French with no English left", async () => {
  await loadStrings('fr'); // French loads on first use: this test must not rely on an earlier one
  const { gradeExercise, exercises } = await import('ffn-lab/sandbox');
  const sol = (id) => exercises.find((e) => e.id === id).solution;
  const swap = (src, from, to) => {
    assert.ok(src.includes(from), from);
    return src.replace(from, to);
  };
  const gelu = sol('gelu');
  const ffn = sol('ffn');
  // wrong solutions written as learners write them, one per kind of text grading makes
  const cases = [
    ['gelu', 'function gelu(x) {\n  return x;\n}\nfunction geluTanh(x) {\n  return x;\n}\n', /^\d+ of \d+ tests/],
    [
      'gelu',
      swap(
        gelu,
        'Math.tanh(c * (z + 0.044715 * z * z * z))',
        '(Math.exp(2 * c * (z + 0.044715 * z ** 3)) - 1) / (Math.exp(2 * c * (z + 0.044715 * z ** 3)) + 1)',
      ),
      /NaN or Infinity/,
    ],
    ['gelu', swap(gelu, 'return map(x, (z) => 0.5 * z', 'return map(x, (z) => 1.5 * z'), /Off by a constant factor/],
    ['ffn', swap(ffn, 'bias = true, gated = false) {', 'bias, gated = false) {'), /give bias its default/],
    [
      'ffn',
      swap(ffn, 'return add(matmul(H, W2), b2);', 'return transpose(add(matmul(H, W2), b2));'),
      /transposed layout/,
    ],
    [
      'swiglu-backward',
      swap(sol('swiglu-backward'), 'return { dX, dWGate,', 'return { dX, dW_gate: dWGate,'),
      /expected keys dX, dWGate, dWUp, dWDown; got/,
    ],
    [
      'gelu',
      swap(gelu, '(1 + erf(z / Math.SQRT2)));', '(1 + erf(z / Math.SQRT2)));\n  x.data.fill(0);\n  return y;').replace(
        'return map(x, (z) => 0.5 * z * (1 + erf',
        'const y = map(x, (z) => 0.5 * z * (1 + erf',
      ),
      /in place/,
    ],
    ['gelu', 'function gelu(x) {\n  return {};\n}\n', /returned an object with keys \{\}/],
    ['gelu', 'function gelu(x) {\n  while (true) {}\n}\n', /ran for more than 500 ms/],
    ['gelu', 'function gelu(x) {\n  throw new Error(x.shape.length ? "non" : "");\n}\n', /line 2/],
    ['gelu', 'function gelu(x) {\n  return (;\n}\n', /syntax error/],
    ['gelu', gelu, /^All \d+ tests passed\.$/],
  ];
  const fr = translator('fr');
  const texts = [];
  for (const [id, source, expected] of cases) {
    const report = await gradeExercise(id, source, { timeout: 500 });
    const all = reportTexts(report);
    assert.match(all.map(([e]) => e).join('\n'), expected, id);
    for (const [english, m] of all) {
      assert.ok(m && typeof m.key === 'string', `no message for ${JSON.stringify(english)}`);
      assert.equal(String(m).slice(0, english.length - 1), english.replace(/…$/, '').slice(0, english.length - 1));
      const french = fr.t(m.key, m.params);
      assert.notEqual(french, english);
      texts.push(french);
    }
  }
  // Left out of the check: what is not grading's own text: an error's message (the engine's, or the toolkit's,
  // which runs in the worker: see web/sandbox/README.md), a built-in test's name (the exercise's text), and the
  // parameter name bias (code).
  const own = (t) =>
    plainSpaces(t)
      .replace(/\w*Error : .*?(?= \(ligne|$)/g, ' ')
      .replace(/« [^»]* »/g, ' ')
      .replace(/\bbias\b/g, ' ');
  assert.deepEqual(findEnglish(texts.map(own)), []);
  // a function not written yet is said by the page, in French too
  const missing = /^ReferenceError : geluTanh n’est pas définie : écrivez sa définition, geluTanh\(\.\.\.\)/;
  assert.ok(texts.some((t) => missing.test(plainSpaces(t))));
  assert.ok(findEnglish(texts).length > 0, 'the check reads what the left-out parts say');
  // numbers are written the French way: 1 000 ms, a decimal comma
  assert.ok(texts.some((t) => /plus de 500 ms/.test(t)));
  assert.ok(
    texts.some((t) => /\d,\d/.test(t)),
    'a decimal comma',
  );
});

test('results the page refuses (runner.js) are messages: the English kept, French with no English', async () => {
  await loadStrings('fr'); // French loads on first use: this test must not rely on an earlier one
  const { gradeExercise } = await import('ffn-lab/sandbox');
  const report = await gradeExercise('gelu', 'function f() {}', { workerUrl: hostileWorkerUrl(), timeout: 2000 });
  // each test refused as its payload says (helpers/hostile-worker.js), the report bounded
  checkHostileReport(report);
  const refused = report.tests.map((t) => [t, toMessage(t.message)]).filter(([t]) => t.status === 'refused');
  const kinds = new Set();
  for (const [t, m] of refused) {
    // the report's English as before (hardening/bounds.test.js checks its words), and the message it was made of
    assert.match(t.message.text, /^Refused: the result could not be read: it /);
    assert.equal(String(m), t.message.text);
    const french = frenchOf(m);
    assert.match(french, /^Refusé : le résultat n’a pas pu être lu : il /, french);
    assert.deepEqual(findEnglish([french]), [], french);
    kinds.add(m.params.message.params.why.key);
  }
  // every kind of refusal the payloads reach: too many items, malformed, buffers, depth, keys
  for (const k of ['array', 'malformedValue', 'buffer', 'deep', 'keys', 'longKey']) {
    assert.ok(kinds.has(`report.refused.${k}`), k);
  }
});

test('a long shape or key list, cut in a report, says "sizes" and "keys" in the reader\'s language', async () => {
  await loadStrings('fr'); // French loads on first use: this test must not rely on an earlier one
  const { gradeExercise } = await import('ffn-lab/sandbox');
  const source =
    'function gelu(x) {\n  return { data: [0], shape: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1] };\n}\n' +
    'function geluTanh(x) {\n  const o = {};\n  for (let i = 0; i < 20; i++) o["k" + i] = 0;\n  return o;\n}\n';
  const report = await gradeExercise('gelu', source);
  const texts = report.tests.filter((t) => !t.pass).map((t) => [t, toMessage(t.message)]);
  const gelu = texts.find(([t]) => t.fn === 'gelu');
  const tanh = texts.find(([t]) => t.fn === 'geluTanh');
  assert.match(gelu[0].message.text, /^returned shape \[1,1,1,1,1,1,1,1,… \(10 sizes\)\], expected \[\d+\]$/);
  assert.match(tanh[0].message.text, /keys \{k0, k1, .*, k11, … \(20 keys\)\}/);
  const said = frenchOf;
  assert.match(said(gelu[1]), /^renvoie la forme \[1,1,1,1,1,1,1,1,… \(10 tailles\)\], attendue : \[\d+\]$/);
  assert.match(said(tanh[1]), /\{k0, k1, .*, k11, … \(20 clés\)\}/);
});

test("the toolkit's errors carry a key: English as before, French on the page; learners' keep their text", async () => {
  await loadStrings('fr'); // French loads on first use: this test must not rely on an earlier one
  const { gradeExercise } = await import('ffn-lab/sandbox');
  const source = [
    // a toolkit error, as learners meet it
    'function gelu(x) {\n  return transpose(reshape(x, [1, 1, -1]));\n}',
    // the learner's own error, dressed as a toolkit one, and a toolkit error whose message the learner changed
    'function geluTanh(x) {\n  if (x.data.length % 2) {\n    const e = new RangeError("mine");\n' +
      '    Object.assign(e, { key: "notTwoD", params: { fn: "a", shape: "b" }, text: "mine" });\n    throw e;\n  }\n' +
      '  try { transpose(reshape(x, [1, 1, -1])); } catch (e) { e.message = "changed"; throw e; }\n}',
  ].join('\n');
  const report = await gradeExercise('gelu', source);
  const shown = report.tests.map((t) => [t, toMessage(t.message)]);
  const said = frenchOf;
  const gelu = shown.filter(([t]) => t.fn === 'gelu');
  assert.ok(gelu.length > 0);
  for (const [t, m] of gelu) {
    assert.match(
      t.message.text,
      /^RangeError: transpose: expected a 2-D tensor, got shape \[1,1,\d+\] \(line 2, column/,
    );
    assert.equal(String(m), t.message.text);
    const french = /^RangeError : transpose : un tenseur à 2 dimensions était attendu, forme reçue : \[1,1,\d+\]/;
    assert.match(said(m), french);
  }
  const tanh = shown.filter(([t]) => t.fn === 'geluTanh').map(([, m]) => said(m));
  assert.ok(
    tanh.some((s) => /^RangeError : mine \(ligne 6,/.test(s)),
    tanh.join('\n'),
  );
  assert.ok(
    tanh.some((s) => /^RangeError : changed \(ligne 10,/.test(s)),
    tanh.join('\n'),
  );
});

/*
 * The worker's own words (web/sandbox/run/worker.js): why it refuses a result, what a value that is no result is, and
 * its refusals of the learner's code. Each case: learner code, the report's English (written here, as it read before
 * the keys: it must not change), and French the page must say instead.
 */
const WORKER_RESULTS = [
  ['const a = {}; a.self = a; return a;', 'Refused: the result contains a cycle (at result.self)', 'contient un cycle'],
  [
    'let w = 1; for (let i = 0; i < 12; i++) w = [w]; return w;',
    'Refused: the result is nested deeper than 8 levels (at result[0][0][0][0][0][0][0][0][0])',
    'imbriqué sur plus de 8 niveaux (en result[0]',
  ],
  ['return new Float64Array(200001);', 'Refused: the result holds more than 200000 numbers', 'plus de 200 000 nombres'],
  [
    'const o = {}; for (let i = 0; i < 40; i++) o["k" + i] = 1; return o;',
    'Refused: the result object has 40 keys, more than 32',
    'l’objet résultat a 40 clés, plus de 32',
  ],
  [
    'return { ["k".repeat(65)]: 1 };',
    'Refused: the result object has a key longer than 64 characters',
    'une clé de plus de 64 caractères',
  ],
  [
    'return new Proxy([], { get: (t, p) => (p === "length" ? 2 ** 40 : t[p]) });',
    'Refused: the result is an array of 1099511627776 items, more than 200000',
    'un tableau de 1 099 511 627 776 éléments, plus de 200 000',
  ],
  [
    'return new Proxy([], { get: (t, p) => (p === "length" ? "beaucoup" : t[p]) });',
    'Refused: the result is an array of beaucoup items, more than 200000',
    'un tableau de beaucoup éléments',
  ],
  [
    'return { get data() { throw new Error("boum"); }, shape: [1] };',
    /^Error: reading your result threw: boum \(line \d+, column \d+\)$/,
    'la lecture de votre résultat a levé une erreur : boum',
  ],
  ['return undefined;', /^returned undefined \(did you forget to return\?\); expected a tensor/, 'oublié return'],
  ['return null;', /^returned null; expected a tensor/, 'renvoie null'],
  ['return "<b>x</b>";', /^returned a string "<b>x<\/b>"; expected a tensor/, 'une chaîne "<b>x</b>"'],
  ['return true;', /^returned the boolean true; expected a tensor/, 'le booléen true'],
  ['return 1n;', /^returned a BigInt; expected a tensor/, 'un BigInt'],
  ['return Symbol("s");', /^returned a Symbol; expected a tensor/, 'un Symbol'],
  ['return () => 1;', /^returned a function; expected a tensor/, 'une fonction'],
  [
    'return Promise.resolve(1);',
    /^returned a Promise \(exercise functions must be synchronous\); expected/,
    'synchrones',
  ],
  ['return new DataView(new ArrayBuffer(8));', /^returned a DataView; expected a tensor/, 'un DataView'],
  ['return new BigInt64Array(2);', /^returned a BigInt64Array; expected a tensor/, 'un BigInt64Array'],
  [
    'return fetch("x");',
    /^Error: fetch is disabled inside exercises: your code runs offline, in a sandbox \(line \d+/,
    'fetch est désactivé dans les exercices : votre code s’exécute hors ligne, dans un bac à sable (ligne',
  ],
  [
    'return new Function("return 1")();',
    /^Error: the Function constructor is disabled inside exercises: your code runs offline, in a sandbox \(line/,
    'new Function(...) (le constructeur de fonctions) est désactivé dans les exercices',
  ],
  [
    'return setTimeout("1");',
    /^TypeError: setTimeout: pass a function, not a string of code \(line \d+/,
    'setTimeout : passez une fonction, pas une chaîne de code',
  ],
];

/** The French text of a message, its French spaces (narrow and no-break) made plain. */
const frenchOf = (m) => plainSpaces(translator('fr').t(m.key, m.params));
function plainSpaces(text) {
  return text.replace(/[\u00a0\u202f]/g, ' ');
}

/** A report's failing tests: [English message, the page's French for it (French spaces made plain)]. */
function frenchOfTests(report) {
  return report.tests
    .filter((t) => t.message)
    .map((t) => {
      const m = toMessage(t.message);
      assert.equal(String(m), t.message.text, 'the message is the English');
      return [t.message.text, frenchOf(m)];
    });
}

test("the worker's reasons for refusing a result and its words for a value: English as before, French", async () => {
  await loadStrings('fr');
  const { gradeExercise } = await import('ffn-lab/sandbox');
  // call k returns case k's value (the report's tests run in order, 18 of them: the cases in runs of 18)
  const shown = [];
  for (let from = 0; from < WORKER_RESULTS.length; from += 18) {
    const codes = WORKER_RESULTS.slice(from, from + 18).map(([code]) => `  () => { ${code} },`);
    const source =
      `let k = 0;\nconst cases = [\n${codes.join('\n')}\n];\n` +
      'function gelu(x) {\n  return cases[k++ % cases.length]();\n}\n' +
      'function geluTanh(x) {\n  return cases[k++ % cases.length]();\n}\n';
    const report = await gradeExercise('gelu', source);
    assert.equal(report.tests.length, 18);
    shown.push(...frenchOfTests(report));
  }
  for (const [code, english, french] of WORKER_RESULTS) {
    const hit = shown.find(([e]) => (typeof english === 'string' ? e === english : english.test(e)));
    assert.ok(hit, `${code}: no test reads ${english}:\n${shown.map(([e]) => e).join('\n')}`);
    assert.ok(hit[1].includes(french), `${code}: ${hit[1]}`);
    // what is left is code: a tensor's fields in braces, an Error, the path to a part of the result (result.self)
    const own = hit[1].replace(/\bError\b/g, ' ').replace(/\bresult[.[]\S*/g, ' ');
    assert.deepEqual(findEnglish([own]), [], hit[1]);
    if (english instanceof RegExp) continue;
    assert.match(hit[1], /^Refusé : /);
  }
});

test("the worker's refusals of the learner's code are said in French; the report's English is unchanged", async () => {
  await loadStrings('fr');
  const { gradeExercise } = await import('ffn-lab/sandbox');
  const cases = [
    [
      'function gelu(x) { return import("x"); }',
      'Your code could not run: import is not available in exercises (no modules or network); remove it ' +
        '(the word is fine only in comments and in \'...\' or "..." strings) (line 1, column 27)',
      'l’instruction "import" n’est pas disponible dans les exercices',
    ],
    [
      'return 5;',
      'Your code could not run: your code closes the exercise wrapper early (an unmatched } or ))',
      'votre code ferme trop tôt l’enveloppe de l’exercice',
    ],
    [
      'throw 5;',
      'Your code threw while it was being set up: your code threw 5 (throw an Error to get a line number)',
      'votre code a levé 5 (levez une erreur, new Error(...), pour avoir un numéro de ligne)',
    ],
    [
      'throw "non";',
      'Your code threw while it was being set up: your code threw "non" (throw an Error to get a line number)',
      'votre code a levé "non" (levez une erreur',
    ],
    [
      'throw new Proxy({}, { get() { throw new Error("x"); } });',
      'Your code threw while it was being set up: your code threw an object that could not be read',
      'votre code a levé un objet illisible',
    ],
  ];
  for (const [source, english, french] of cases) {
    const report = await gradeExercise('gelu', source);
    assert.equal(report.summary.text, english);
    const m = toMessage(report.summary);
    assert.equal(String(m), english);
    const said = frenchOf(m);
    assert.ok(said.includes(french), said);
    assert.deepEqual(findEnglish([said.replace(/\bError\b/g, ' ')]), [], said);
  }
});

/** A stand-in worker (Node) answering call i with results[i % length] and ending with compileError. */
function forgingWorkerUrl(results, compileError = null) {
  const src = `import { parentPort } from 'node:worker_threads';
const results = ${JSON.stringify(results)};
parentPort.once('message', (msg) => {
  for (let i = 0; i < msg.calls.length; i++) {
    parentPort.postMessage({ type: 'result', nonce: msg.nonce, index: i, result: results[i % results.length] });
  }
  parentPort.postMessage({ type: 'done', nonce: msg.nonce, compileError: ${JSON.stringify(compileError)}, logs: [] });
});
parentPort.postMessage({ type: 'ready' });
`;
  return new URL(`data:text/javascript,${encodeURIComponent(src)}`);
}

test('what a worker says beside its text is checked: a forged key or param leaves the English text', async () => {
  await loadStrings('fr');
  const { gradeExercise } = await import('ffn-lab/sandbox');
  const cycle = (path) => `the result contains a cycle (at ${path})`;
  // the wire's form of a text: a message { key, params, text }
  const refused = (text, { key, params }) => ({
    ok: false,
    refused: true,
    error: { name: 'Refused', message: { key, params, text }, line: null, column: null },
  });
  const html = '<img src=x onerror=alert(1)>';
  const long = `result.${'p'.repeat(3000)}`;
  const nine = Object.fromEntries('abcdefghi'.split('').map((c) => [c, c]));
  // [result, French expected (else the English text is kept)]
  const cases = [
    [
      refused(cycle('result.a'), { key: 'worker.cycle', params: { path: 'result.a' } }),
      'contient un cycle (en result.a)',
    ],
    [refused(cycle(html), { key: 'worker.cycle', params: { path: html } }), `contient un cycle (en ${html})`],
    [refused(cycle('result.a'), { key: 'worker.nope', params: { path: 'result.a' } })],
    [refused('it is nested deeper than 8 levels', { key: 'refused.deep', params: { max: 8 } })],
    [refused(cycle('result.a'), { key: 'worker.__proto__', params: {} })],
    [refused(cycle('result.a'), { key: 'worker.constructor', params: {} })],
    [refused(cycle('result.a'), { key: 'worker.cycle', params: { path: 'result.b' } })],
    [refused(cycle(long), { key: 'worker.cycle', params: { path: long } })],
    [refused(cycle('result.a'), { key: 'worker.cycle', params: { path: ['result.a'] } })],
    [refused(cycle('result.a'), { key: 'worker.cycle', params: { path: 'result.a', ...nine } })],
    [refused('the result holds more than 1.5 numbers', { key: 'worker.numbers', params: { max: 1.5 } })],
    [{ ok: true, value: { k: 'bad', what: { key: 'worker.bad.function', params: {}, text: 'a rose' } } }],
    [{ ok: true, value: { k: 'bad', what: { key: 'worker.bad.symbol', params: {}, text: 'a Symbol' } } }, 'un Symbol'],
    // a value the worker did not say: "an unreadable value", said by the page
    [{ ok: true, value: { k: 'bad', what: '' } }, 'renvoie une valeur illisible'],
  ];
  const report = await gradeExercise('gelu', 'function f() {}', {
    workerUrl: forgingWorkerUrl(cases.map(([r]) => r)),
  });
  const shown = frenchOfTests(report);
  assert.equal(shown.length, report.tests.length);
  shown.forEach(([english, french], i) => {
    const [result, expected] = cases[i % cases.length];
    const sent = result.ok ? (result.value.what.text ?? '') : result.error.message.text;
    if (expected) assert.ok(french.includes(expected), `case ${i}: ${french}`);
    else {
      // the text as the worker sent it (runner.js cuts a long one), inside the page's French frame
      assert.ok(french.includes(sent.slice(0, 1000)), `case ${i}: ${french.slice(0, 300)}`);
      assert.ok(english.includes(sent.slice(0, 1000)), `case ${i}: ${english.slice(0, 300)}`);
      assert.doesNotMatch(french, /contient un cycle|une fonction|imbriqué sur/, `case ${i}`);
    }
  });
  // a compile error: the sandbox's failure in French; with another text, that text
  const failed = 'the sandbox failed: an internal error stopped the run';
  for (const [message, french] of [
    [failed, 'le bac à sable a échoué : une erreur interne a arrêté l’exécution'],
    ['the sandbox failed: <b>another</b> reason', 'the sandbox failed: <b>another</b> reason'],
  ]) {
    const compileError = {
      name: 'InternalError',
      message: { key: 'worker.failed', params: {}, text: message },
      line: null,
      column: null,
    };
    const r = await gradeExercise('gelu', 'function f() {}', { workerUrl: forgingWorkerUrl([], compileError) });
    assert.equal(r.summary.text, `Your code could not run: ${message}`);
    const said = frenchOf(toMessage(r.summary));
    assert.equal(said, `Votre code n’a pas pu s’exécuter : ${french}`);
  }
});

test("the embed pages' lines about their URL query: the English as before, French with no English", async () => {
  await loadStrings('fr');
  const { readEmbedParams } = await import('../../web/embed/params.js');
  const french = (r) => r.problems.map(frenchOf);
  const english = (r) => r.problems.map(String);
  const r = readEmbedParams(`?theme=violet&id=${'<'.repeat(70)}&lang=${encodeURIComponent('pas une langue')}`, []);
  assert.deepEqual(english(r), [
    'theme="violet" is not "dark" or "light"; it was ignored.',
    `id="${'<'.repeat(40)}"… (70 characters) is not 1 to 64 letters, digits, "_", ".", ":" or "-"; ` +
      'the height messages carry no id.',
    'lang="pas une langue" is not a language tag such as "fr" or "pt-BR"; it was ignored.',
  ]);
  assert.deepEqual(french(r), [
    'theme="violet" ne vaut ni "dark" ni "light" ; il a été ignoré.',
    `id="${'<'.repeat(40)}"… (70 caractères) ne compte pas de 1 à 64 lettres, chiffres, "_", ".", ":" ou "-" ; ` +
      'les messages de hauteur ne portent pas d’id.',
    'lang="pas une langue" n’est pas une étiquette de langue comme "fr" ou "pt-BR" ; il a été ignoré.',
  ]);
  assert.deepEqual(findEnglish(french(r)), []);
  const long = readEmbedParams(`?lang=fr&x=${'a'.repeat(70_000)}`, []);
  assert.deepEqual(english(long), [
    "The URL's query is 70011 characters long; at most 65536 are read: its parameters were ignored.",
  ]);
  assert.deepEqual(french(long), [
    'La requête de l’URL compte 70 011 caractères ; au plus 65 536 sont lus : ses paramètres ont été ignorés.',
  ]);
  assert.equal(readEmbedParams('?lang=fr-CA', []).lang, 'fr-CA');
  assert.equal(readEmbedParams(`?lang=${'a'.repeat(36)}`, []).lang, null);
});

test("getters learner code puts on Object.prototype for a message's fields never reach the worker", async () => {
  const { gradeExercise } = await import('ffn-lab/sandbox');
  const trap = (name) =>
    `Object.defineProperty(Object.prototype, "${name}", { get() { throw new Error("got"); }, set() { throw 1; } });\n`;
  const source = ['key', 'params', 'text', 'message'].map(trap).join('') + 'throw new RangeError("boom");\n';
  const report = await gradeExercise('gelu', source);
  assert.equal(report.summary.text, 'Your code threw while it was being set up: boom (line 5, column 7)');
});

test("the shipped locales' marks and numbers, worked out without Intl, are Intl's", async () => {
  await loadStrings('fr');
  const r = rng(28);
  const values = [0, -0, 999, 1000, -1000, 2 ** 53 - 1, -(2 ** 53), 1e21, NaN, -Infinity, 0.5, -0.5, 2.5, -1234.5678];
  for (let i = 0; i < 300; i++) {
    const whole = Math.round((r() - 0.5) * 10 ** Math.floor(r() * 17));
    values.push(whole, whole / 10 ** Math.floor(r() * 9), (r() - 0.5) * 1e6);
  }
  for (const lang of ['en', 'en-US', 'en-GB', 'fr', 'fr-FR', 'fr-CA', 'en-ZA', 'en-IN']) {
    const tr = translator(lang);
    const parts = new Intl.NumberFormat(tr.locale).formatToParts(-1234.5);
    assert.equal(tr.decimal, parts.find((p) => p.type === 'decimal').value, lang);
    assert.equal(tr.minus, parts.find((p) => p.type === 'minusSign').value, lang);
    const whole = new Intl.NumberFormat(tr.locale, { maximumFractionDigits: 0 });
    const six = new Intl.NumberFormat(tr.locale, { maximumFractionDigits: 6 });
    for (const v of values) {
      assert.equal(tr.int(v), whole.format(Math.round(v)), `${lang} int(${v})`);
      assert.equal(tr.num(v), Number.isInteger(v) ? whole.format(v) : six.format(v), `${lang} num(${v})`);
    }
  }
});

test("the shipped locales' lists, joined without Intl, are Intl's", () => {
  const items = ['gelu', 'geluTanh', 'silu', 'relu2', 'swiglu'];
  for (const lang of ['en', 'en-US', 'en-GB', 'fr', 'fr-FR', 'fr-CA', 'en-ZA', 'de']) {
    const tr = translator(lang);
    const intl = new Intl.ListFormat(tr.locale, { type: 'conjunction' });
    for (let n = 0; n <= items.length; n++) {
      assert.equal(tr.list(items.slice(0, n)), intl.format(items.slice(0, n)), `${lang}, ${n} items`);
    }
  }
});
