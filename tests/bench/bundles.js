// Bundle sizes of ffn-lab's own pages (node tests/bench/bundles.js [--root DIR]): every file of web/dist/ raw, gzip and
// brotli, and per page the JavaScript its scripts import at load and what they import later, read from the files.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import * as acorn from 'acorn';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const root = resolve(arg('--root') ?? join(here, '../..'));

// The pages as web/serve.js serves them; each loads boot.js (the kernels) and its elements' scripts.
const PAGES = [
  'web/index.html',
  'web/embed/exercise.html',
  'web/embed/memory-widget.html',
  'web/embed/memory-lab.html',
  'web/embed/activation-plot.html',
  'web/embed/param-calculator.html',
];

/** { raw, gz, br } in bytes of one file (gzip at zlib's default level 6, brotli at its default quality 11). */
const sizesCache = new Map();
function sizes(file) {
  if (!sizesCache.has(file)) {
    const b = readFileSync(file);
    sizesCache.set(file, { raw: b.length, gz: gzipSync(b).length, br: brotliCompressSync(b).length });
  }
  return sizesCache.get(file);
}

/** The relative imports of a module: { static: [files], dynamic: [files] } (import(), string literals only). */
function importsOf(file) {
  const ast = acorn.parse(readFileSync(file, 'utf8'), { ecmaVersion: 'latest', sourceType: 'module' });
  const out = { static: [], dynamic: [] };
  const add = (list, spec) => {
    if (typeof spec === 'string' && /^\.\.?\//.test(spec)) list.push(resolve(dirname(file), spec));
  };
  const visit = (n) => {
    if (!n || typeof n.type !== 'string') return;
    if (/^(Import|ExportNamed|ExportAll)Declaration$/.test(n.type) && n.source) add(out.static, n.source.value);
    if (n.type === 'ImportExpression' && n.source.type === 'Literal') add(out.dynamic, n.source.value);
    for (const v of Object.values(n)) (Array.isArray(v) ? v : [v]).forEach(visit);
  };
  visit(ast);
  return out;
}

/** Files reachable from `entries` through static imports only (at load), and through any import (ever). */
function closure(entries) {
  const atLoad = new Set();
  const ever = new Set();
  const walk = (f, lazy) => {
    if (!existsSync(f) || (lazy ? ever.has(f) : atLoad.has(f))) return;
    if (!lazy) atLoad.add(f);
    ever.add(f);
    const { static: s, dynamic: d } = importsOf(f);
    for (const x of s) walk(x, lazy);
    for (const x of d) walk(x, true);
  };
  for (const e of entries) walk(e, false);
  return { atLoad, ever };
}

/** The module scripts of a page, as files. */
function scriptsOf(page) {
  const html = readFileSync(join(root, page), 'utf8');
  return [...html.matchAll(/<script type="module"[^>]*src="([^"]+)"/g)].map((m) =>
    resolve(dirname(join(root, page)), m[1]),
  );
}

const sum = (files) =>
  [...files].reduce(
    (s, f) => {
      const z = sizes(f);
      return { raw: s.raw + z.raw, gz: s.gz + z.gz, br: s.br + z.br };
    },
    { raw: 0, gz: 0, br: 0 },
  );
const row = (cells, widths) =>
  cells.map((c, i) => (i ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join('  ');

let commit = '?';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
} catch {
  /* not a git checkout */
}
const dist = join(root, 'web/dist');
const files = readdirSync(dist)
  .filter((f) => f.endsWith('.js'))
  .sort();
console.log(`# web/dist of ${commit}: ${files.length} files; bytes raw, gzip -6, brotli -11`);
const W = [28, 9, 9, 9];
console.log(row(['file', 'raw', 'gzip', 'brotli'], W));
for (const f of files) {
  const z = sizes(join(dist, f));
  console.log(row([f, z.raw, z.gz, z.br], W));
}
const all = sum(files.map((f) => join(dist, f)));
console.log(row(['total', all.raw, all.gz, all.br], W));
for (const w of ['web/ffn.wasm', 'web/ffn-relaxed.wasm']) {
  if (existsSync(join(root, w))) console.log(row([w, ...Object.values(sizes(join(root, w)))], W));
}

console.log('\n# per page: its module scripts and their static imports (at load), then what they import later');
console.log('# (import(): the grader, the runner, the sandbox sources; not the *-wasm-inline.js fallback of boot.js)');
const P = [32, 5, 9, 9, 9, 5, 9, 9, 9];
console.log(row(['page', 'files', 'raw', 'gzip', 'brotli', 'later', 'raw', 'gzip', 'brotli'], P));
for (const page of PAGES) {
  if (!existsSync(join(root, page))) continue;
  const { atLoad, ever } = closure(scriptsOf(page));
  const later = [...ever].filter((f) => !atLoad.has(f) && !f.endsWith('-wasm-inline.js'));
  const a = sum(atLoad);
  const l = sum(later);
  console.log(row([page, atLoad.size, a.raw, a.gz, a.br, later.length, l.raw, l.gz, l.br], P));
  if (process.argv.includes('--files')) {
    for (const f of atLoad) console.log(`#   load  ${relative(root, f)}`);
    for (const f of later) console.log(`#   later ${relative(root, f)}`);
  }
}
