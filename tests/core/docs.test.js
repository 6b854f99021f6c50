// The design notes fit: every tracked Markdown file is at most 20 KiB (the top README has its own, smaller bound in
// core/readme.test.js), so that a note is read whole; history and run logs go to commit bodies and bench/results/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_BYTES = 20 * 1024;

test('every tracked Markdown file is at most 20 KiB', () => {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  assert.ok(tracked.length >= 8, `found ${tracked.length} Markdown files`);
  const over = tracked
    .map((f) => [f, statSync(join(ROOT, f)).size])
    .filter(([, size]) => size > MAX_BYTES)
    .map(([f, size]) => `${f}: ${size} bytes`);
  assert.deepEqual(over, [], `over ${MAX_BYTES} bytes (split the note, or move history to a commit body)`);
});
