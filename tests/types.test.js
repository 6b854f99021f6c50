// The TypeScript declarations of every entry point, resolved through package.json exports, type-check consumers (strict).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const project = fileURLToPath(new URL('./types/tsconfig.json', import.meta.url));

test('the .d.ts of ffn-lab, ffn-lab/url, ffn-lab/components and ffn-lab/sandbox type-check their consumers (strict)', () => {
  let out = '';
  try {
    out = execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`);
  }
  assert.equal(out.trim(), '');
});
