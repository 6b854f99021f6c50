// The sandbox's TypeScript declarations, resolved through package.json exports, type-check a consumer (strict).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const root = fileURLToPath(new URL('..', import.meta.url));

const consumer = `
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
`;

test('web/sandbox/index.d.ts type-checks a consumer of ffn-lab/sandbox (strict)', () => {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp', 'sandbox-types-'));
  try {
    writeFileSync(join(dir, 'consumer.ts'), consumer);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], skipLibCheck: false },
      files: ['consumer.ts'],
    }));
    try {
      execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    } catch (e) {
      assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
