// Every bench run's output goes to its own dated file: tests/bench/results/<UTC date>-<HHMM>-<configuration>.txt.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'results');

/** Writes a run's printed lines to a new dated file named after config (e.g. 'node20', 'engines'); returns its path. */
export function saveRun(config, lines, date = new Date()) {
  mkdirSync(DIR, { recursive: true });
  const stamp = date.toISOString().slice(0, 16).replace('T', '-').replace(':', '');
  const file = join(DIR, `${stamp}-${config.replace(/[^a-z0-9.-]+/gi, '-')}.txt`);
  writeFileSync(file, lines.join('\n') + '\n', { flag: 'wx' }); // never overwrite an earlier run
  return relative(process.cwd(), file);
}
