// Test helper: which command-line tools are on PATH, and the skip-or-fail rule for tests that need one.
import { spawnSync } from 'node:child_process';

/** True when cmd is found on PATH (a POSIX shell's `command -v`; cmd is passed as an argument, not parsed). */
export function onPath(cmd) {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', cmd], { stdio: 'ignore' }).status === 0;
}

/**
 * null when ok; else a skip reason ('skipped: why'), or, with CI set, an Error (what the tests need is required there).
 */
export function skipUnless(ok, why, what) {
  if (ok) return null;
  if (process.env.CI) throw new Error(`${what} required in CI but ${why}`);
  return `skipped: ${why}`;
}
