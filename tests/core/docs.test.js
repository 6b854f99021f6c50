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
// Notes still being split (issue 27); each leaves this list when its split lands, and the bound then holds it too.
const BEING_SPLIT = new Set([]);

const tracked = execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean);

test('every tracked Markdown file is at most 20 KiB', () => {
  assert.ok(tracked.length >= 8, `found ${tracked.length} Markdown files`);
  const over = tracked
    .filter((f) => !BEING_SPLIT.has(f))
    .map((f) => [f, statSync(join(ROOT, f)).size])
    .filter(([, size]) => size > MAX_BYTES)
    .map(([f, size]) => `${f}: ${size} bytes`);
  assert.deepEqual(over, [], `over ${MAX_BYTES} bytes (split the note, or move history to a commit body)`);
});

test('the notes still being split exist (remove a name from BEING_SPLIT once its split lands)', () => {
  for (const f of BEING_SPLIT) {
    assert.ok(tracked.includes(f), `${f} is no longer tracked: take it out of BEING_SPLIT`);
    assert.ok(statSync(join(ROOT, f)).size > MAX_BYTES, `${f} fits now: take it out of BEING_SPLIT`);
  }
});
