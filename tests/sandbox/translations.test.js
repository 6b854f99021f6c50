// Exercise translations keyed by stable ids: every built-in translation names only ids its exercise has, a test
// keeps its French when its English name changes, and an id nothing has is refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from 'ffn-lab';
import { exercises, defineExercise } from 'ffn-lab/sandbox';
import { loadStrings } from '../../web/i18n/index.js';
import {
  generateTests,
  translationsOf,
  exerciseText,
  validateValues,
} from '../../web/sandbox/grade/exercises/index.js';
import { addTranslations } from '../../web/sandbox/grade/exercises/define.js';
import gelu from '../../web/sandbox/grade/exercises/gelu.js';
import * as fr from '../../web/sandbox/grade/exercises/fr.js';

const SEEDS = [1, 2, 3, 9];

test('every built-in translation names only test and variant ids its exercise has, for several seeds', async () => {
  await api.ready();
  await loadStrings('fr');
  let named = 0;
  for (const ex of exercises) {
    const variantIds = new Set(ex.variants.map((v) => v.id));
    const testIds = SEEDS.map((seed) => new Set(generateTests(ex, seed, api).map((t) => t.id)));
    const langs = Object.entries(translationsOf(ex));
    assert.ok(langs.length > 0, `${ex.id} has a translation`);
    for (const [lang, t] of langs) {
      for (const id of Object.keys(t.tests || {})) {
        testIds.forEach((ids, i) => assert.ok(ids.has(id), `${ex.id} ${lang}: test "${id}" at seed ${SEEDS[i]}`));
        named++;
      }
      for (const id of Object.keys(t.variants || {})) assert.ok(variantIds.has(id), `${ex.id} ${lang}: variant ${id}`);
    }
  }
  assert.ok(named >= 70, `the check saw the built-ins' translated tests (${named})`);
});

test("renaming a test's English name keeps its French: the translation is keyed by the test's id", async () => {
  await api.ready();
  // gelu with every test renamed (its ids unchanged), translated with the built-in French as it is
  const renamed = defineExercise({
    ...gelu,
    id: 'gelu-renamed',
    tests: (rng, a) => gelu.tests(rng, a).map((c) => ({ ...c, name: `${c.name} (renamed)` })),
    translations: { fr: fr.gelu },
  });
  const text = exerciseText(renamed, 'fr');
  const tests = generateTests(renamed, 1, api);
  assert.equal(tests.length, 18);
  for (const t of tests) {
    assert.match(t.name, /\(renamed\)$/);
    assert.equal(text.tests[t.id], fr.gelu.tests[t.id], t.id);
    assert.match(text.tests[t.id], /^gelu(Tanh)? : /, t.id);
  }
  // a variant shared by two functions takes each function's French message
  const swapped = renamed.variants.filter((v) => v.id === 'gelu-swapped');
  assert.deepEqual(
    swapped.map((v) => text.variants[renamed.variants.indexOf(v)].message),
    [fr.gelu.variants['gelu-swapped'].message.gelu, fr.gelu.variants['gelu-swapped'].message.geluTanh],
  );
});

test('a translation naming an id the exercise does not have is refused, naming the field', async () => {
  await api.ready();
  const ex = exercises.find((e) => e.id === 'gelu');
  validateValues(ex, api); // the tests' ids known: a translation's are checked as it is added
  const refuses = (translations, re) =>
    assert.throws(
      () => addTranslations(ex, translations),
      (e) => e.name === 'ExerciseDefinitionError' && re.test(e.message),
      JSON.stringify(translations),
    );
  refuses({ de: { tests: { 'gelu-zero': 'Nullen' } } }, /translations\.de\.tests\["gelu-zero"\]: names no test/);
  refuses({ de: { tests: { 'gelu: zeros': 'Nullen' } } }, /tests\["gelu: zeros"\]: is not a test's id/);
  refuses({ de: { variants: { 'gelu-swap': { title: 'Vertauscht' } } } }, /variants\["gelu-swap"\]: names no variant/);
  refuses({ de: { variants: [{ title: 'Vertauscht' }] } }, /variants: must be an object keyed by the variants' ids/);
  assert.equal(exerciseText(ex, 'de').title, ex.title, 'nothing was added');
  // an unknown test id in a definition whose tests are known only at grading: refused there, by the same name
  const gen = { ...gelu, id: 'gelu-typo', translations: { fr: { tests: { 'gelu-onee': 'un' } } } };
  assert.throws(() => defineExercise(gen), /translations\.fr\.tests\["gelu-onee"\]: names no test of the exercise/);
});
