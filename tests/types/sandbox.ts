// Type-level use of ffn-lab/sandbox, checked by tsc in tests/types.test.js.
import { gradeExercise, mountExercise, exercises, createProgressStore, memoryStorage, exportProgress, importProgress, FfnExerciseElement, type GradeReport } from 'ffn-lab/sandbox';
async function main(): Promise<number> {
  const r: GradeReport = await gradeExercise('ffn', 'function ffn() {}', { timeout: 500, seed: 3 });
  const first = r.tests[0];
  const line: number | null = first.error ? first.error.line : null;
  const idx: number[] | undefined = first.mismatch?.index;
  const ids: string[] = r.diagnoses.map((d) => d.id);
  const m = mountExercise(document.body, 'memories', { timeout: 1000, storage: memoryStorage() });
  const again: GradeReport | null = await m.run();
  const el = document.createElement('ffn-exercise');
  el.timeout = 3000;
  el.addEventListener('ffn-exercise-passed', () => {});
  const store = createProgressStore({ key: 'x:v1' });
  store.update('gelu', { code: 'x', status: 'passed' });
  importProgress(exportProgress());
  const ok: boolean = el instanceof FfnExerciseElement;
  console.log(line, idx, ids, again, ok, exercises[0].hints[2]);
  // @ts-expect-error: not an exercise id
  await gradeExercise('relu', '');
  // @ts-expect-error: not a status
  store.update('gelu', { status: 'done' });
  return r.passedCount;
}
void main();
