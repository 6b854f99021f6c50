// Test helper: the hand-written JavaScript files of web/ (not web/dist/'s bundles, not web/screenshots/, not the
// generated *-inline.js strings), as paths from the package root.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** webFiles(dir = 'web') -> ['web/index.js', 'web/sandbox/run/worker.js', ...], paths from the package root. */
export function webFiles(dir = 'web') {
  const out = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (p !== 'web/dist' && p !== 'web/screenshots') out.push(...webFiles(p));
    } else if (e.name.endsWith('.js') && !e.name.endsWith('-inline.js')) out.push(p);
  }
  return out;
}
