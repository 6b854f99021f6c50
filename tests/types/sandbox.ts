// Type-level use of ffn-lab/sandbox, checked by tsc in tests/core/types.test.js.
import {
  gradeExercise,
  mountExercise,
  exercises,
  createProgressStore,
  memoryStorage,
  exportProgress,
  importProgress,
  FfnExerciseElement,
  defineExercise,
  checkExercise,
  hiddenTests,
  ExerciseDefinitionError,
  type GradeReport,
  type ReportText,
  type ExerciseDefinition,
  type Exercise,
  type ExerciseCheckReport,
} from 'ffn-lab/sandbox';

const squared: ExerciseDefinition = {
  id: 'types-squared',
  title: 'Squared ReLU',
  level: 'Warm-up',
  prompt: '<p>Write <code>reluSquared(x)</code>.</p>',
  functions: {
    reluSquared: { params: ['x'], returns: 'tensor' },
    count: { params: ['n', 'bias = true'], returns: { n: 'integer', top: { kind: 'integers', item: 'unit' } } },
  },
  starter: 'function reluSquared(x) {}',
  solution: 'function reluSquared(x) { return map(x, (z) => z > 0 ? z * z : 0) }',
  hints: ['Square the positive part.'],
  tolerance: { atol: 1e-6, rtol: 1e-6 },
  tests: (rng) => [{ name: 'a vector', fn: 'reluSquared', args: [rng.randn([4])] }],
  reference: { reluSquared: ([x], api) => api.relu2(x), count: ([n]) => ({ n, top: [0] }) },
  variants: [
    { id: 'relu', fn: 'reluSquared', title: 'ReLU', message: 'Square it.', compute: ([x], api) => api.relu(x) },
  ],
};
async function main(): Promise<number> {
  const r: GradeReport = await gradeExercise('ffn', 'function ffn() {}', { timeout: 500, seed: 3 });
  const first = r.tests[0];
  const line: number | null = first.error ? first.error.line : null;
  const idx: number[] | undefined = first.mismatch?.index;
  const ids: string[] = r.diagnoses.map((d) => d.id);
  // a report's texts: key and params for any language, the English in text
  const summary: ReportText = r.summary;
  const english: string = summary.text + (first.message?.text ?? '') + (r.diagnoses[0]?.title.text ?? '');
  const key: string = summary.key;
  const m = mountExercise(document.body, 'memories', { timeout: 1000, storage: memoryStorage() });
  const again: GradeReport | null = await m.run();
  const el = document.createElement('ffn-exercise');
  el.timeout = 3000;
  el.number = 2; // a heading number, read back as text
  const heading: string = el.number;
  el.addEventListener('ffn-exercise-passed', () => {});
  const store = createProgressStore({ key: 'x:v1' });
  store.update('gelu', { code: 'x', status: 'passed' });
  const unread: string | undefined = store.problemWith('gelu')?.text ?? store.problem?.key;
  console.log(unread);
  importProgress(exportProgress());
  const ok: boolean = el instanceof FfnExerciseElement;
  console.log(line, idx, ids, english, key, again, ok, exercises[0].hints[2], heading);
  const ex: Exercise = defineExercise(squared);
  const names: readonly string[] = ex.functionNames;
  const check: ExerciseCheckReport = await checkExercise(ex, { seeds: [1, 2] });
  const fields: string[] = check.problems.map((p) => p.field);
  const cases = await hiddenTests('types-squared', { seed: 2 });
  const custom: GradeReport = await gradeExercise('types-squared', 'function reluSquared(x) { return x }');
  try {
    defineExercise(squared);
  } catch (e) {
    if (e instanceof ExerciseDefinitionError) console.log(e.field);
  }
  const notes: string[] = custom.notes.map((n) => n.text);
  const explained: number | undefined = custom.diagnoses[0]?.explained;
  const shape: (string | number)[] | undefined = ex.functions.reluSquared.params[0].shape;
  console.log(names, fields, cases[0].expected, custom.passed, notes, explained, shape);
  // @ts-expect-error: not a return kind
  defineExercise({ ...squared, functions: { f: { params: [], returns: 'matrix' } } });
  // @ts-expect-error: the source must be a string
  await gradeExercise('relu', 42);
  // @ts-expect-error: not a status
  store.update('gelu', { status: 'done' });
  return r.passedCount;
}
void main();
// the interface language, from the sandbox entry too
import { defineStrings as defineSandboxStrings } from 'ffn-lab/sandbox';
defineSandboxStrings('fr', { exercise: { run: (p, locale) => `Lancer (${locale})` } });
// editors: the built-in one, and a site's CodeMirror through the adapter (modules typed by the site's own package)
import { codeMirrorEditor, textareaEditor, type ExerciseEditor } from 'ffn-lab/sandbox';
declare const cmView: object;
declare const cmState: object;
const cm: ExerciseEditor = codeMirrorEditor({ view: cmView, state: cmState, extensions: [] });
const exerciseEl = document.createElement('ffn-exercise');
exerciseEl.editor = cm;
exerciseEl.editor = textareaEditor;
// @ts-expect-error: an editor is an adapter, not a string
exerciseEl.editor = 'codemirror';
// an exercise's text in another language
import type { ExerciseTranslation } from 'ffn-lab/sandbox';
const inGerman: ExerciseTranslation = {
  title: 'Quadrierte ReLU',
  hints: ['a', 'b'],
  variants: { 'gelu-swapped': { title: 'x', message: { gelu: 'y', geluTanh: 'z' } } },
  tests: { 'gelu-zeros': 'Nullen' },
};
void inGerman;
