// The TypeScript declarations, resolved through package.json exports, type-check a consumer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const project = fileURLToPath(new URL('./types/tsconfig.json', import.meta.url));

test('index.d.ts type-checks a consumer of ffn-lab and ffn-lab/url (strict)', () => {
  let out = '';
  try {
    out = execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`);
  }
  assert.equal(out.trim(), '');
});
