// A SCORM package (zip) of one SCO page holding chosen exercises and widgets, with every file the page loads.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { zipSync } from 'fflate';
import { scormManifest, xmlText } from './manifest.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..'); // the package's folder
const PKG = 'ffn-lab/'; // where the package's own files go in the zip
/** Widgets by name: their module under web/components and their tag. */
export const WIDGETS = Object.freeze({
  'memory-widget': 'ffn-memory-widget',
  'activation-plot': 'ffn-activation-plot',
  'param-calculator': 'ffn-param-calculator',
});
/** Bare specifiers the page's import map resolves, where their module is in the package (an author's may use them). */
const IMPORTS = {
  'ffn-lab': `./${PKG}web/index.js`,
  'ffn-lab/sandbox': `./${PKG}web/sandbox/index.js`,
  'ffn-lab/components': `./${PKG}web/components/index.js`,
  fflate: `./${PKG}fflate.js`,
};
const IMPORT_RE =
  /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"\s]+)\1|new URL\(\s*(['"])(\.{1,2}\/[^'"]+)\3\s*,\s*import\.meta\.url/g;

/** Every file the modules `entries` load, statically or by import() or new URL(…, import.meta.url), with themselves. */
export function moduleFiles(entries) {
  const seen = new Set();
  const todo = [...entries];
  while (todo.length) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.m?js$/.test(file)) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT_RE)) {
      const spec = m[2] ?? m[4];
      if (!spec.startsWith('.')) continue; // bare: the import map's (or a Node built-in, never reached in a page)
      const path = resolve(dirname(file), spec);
      if (existsSync(path)) todo.push(path); // a path only named in a comment is left out
    }
  }
  return [...seen];
}

const authorIds = new Map(); // author module path -> the ids it defined (a module runs once per process)

/** Each exercise's module by its id: built-in (undefined) or the author's file that defined it. */
async function resolveExercises(items, cwd) {
  const sandbox = await import('../sandbox/index.js');
  const out = [];
  for (const item of items) {
    if (!/[/\\]|\.m?js$/.test(item)) {
      if (!sandbox.exerciseIds.includes(item)) {
        throw new RangeError(`unknown exercise "${item}"; built in: ${sandbox.exerciseIds.join(', ')} (or a .js path)`);
      }
      out.push({ id: item, title: sandbox.getExercise(item).title });
      continue;
    }
    const file = resolve(cwd, item);
    if (!existsSync(file)) throw new RangeError(`no author module at ${file}`);
    if (!authorIds.has(file)) {
      const before = new Set(sandbox.definedExerciseIds());
      try {
        await import(pathToFileURL(file).href);
      } catch (e) {
        throw new Error(`the author module ${item} threw: ${e?.message ?? e}`, { cause: e });
      }
      authorIds.set(
        file,
        sandbox.definedExerciseIds().filter((id) => !before.has(id)),
      );
    }
    const added = authorIds.get(file);
    if (!added.length) throw new RangeError(`the author module ${item} defined no new exercise (call defineExercise)`);
    for (const id of added) out.push({ id, title: sandbox.getExercise(id).title, module: file });
  }
  return out;
}

/** The SCO page: the import map, the LMS link first, then the elements' modules, then the elements. */
function scoPage({ title, version, course, lang, exercises, widgets, modules, files }) {
  // only the specifiers whose module is in the package: nothing the page could ask for outside it
  const mapped = Object.entries(IMPORTS).filter(([, path]) => files.has(path.slice(2)));
  const imports = JSON.stringify({ imports: Object.fromEntries(mapped) }).replace(/</g, '\\u003c');
  const settings = JSON.stringify({ version, course }).replace(/</g, '\\u003c');
  const scripts = [`${PKG}web/lms/sco.js`, `${PKG}web/sandbox/index.js`, ...widgets.map((w) => PKG + widgetModule(w))];
  scripts.push(...modules);
  const body = [
    `<h1>${xmlText(title)}</h1>`,
    ...widgets.map((w) => `<${WIDGETS[w]}></${WIDGETS[w]}>`),
    ...exercises.map((e, i) => `<ffn-exercise exercise="${xmlText(e.id)}" number="${i + 1}"></ffn-exercise>`),
  ];
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${xmlText(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="./${PKG}web/lms/sco.css">
<script type="importmap">${imports}</script>
<script type="application/json" id="ffn-lab-sco">${settings}</script>
${scripts.map((s) => `<script type="module" src="./${s}"></script>`).join('\n')}
</head>
<body>
<main>
${body.join('\n')}
</main>
</body>
</html>
`;
}

/** zip path -> bytes for the package's own files the page loads, and the author's modules with theirs. */
function pageFiles(widgets, authorModules) {
  const entries = ['web/lms/sco.js', 'web/lms/sco.css', 'web/sandbox/index.js', ...widgets.map(widgetModule)];
  const files = new Map();
  for (const f of moduleFiles(entries.map((e) => join(ROOT, e)))) {
    files.set(PKG + relative(ROOT, f).split(sep).join('/'), readFileSync(f));
  }
  const fflate = createRequire(import.meta.url)
    .resolve('fflate')
    .replace(/[/\\]lib[/\\][^/\\]+$/, '/esm/browser.js');
  files.set(`${PKG}fflate.js`, readFileSync(fflate));
  const pages = [];
  for (const mod of new Set(authorModules)) {
    const home = dirname(mod);
    for (const f of moduleFiles([mod])) {
      const rel = relative(home, f).split(sep).join('/');
      if (rel.startsWith('../'))
        throw new RangeError(`the author module ${basename(mod)} loads ${f}, outside its folder`);
      files.set(`exercises/${rel}`, readFileSync(f));
    }
    pages.push(`exercises/${basename(mod)}`);
  }
  return { files, modules: pages };
}

const widgetModule = (w) => `web/components/${w}.js`;
/** A BCP 47 language tag as a page's lang takes it: a 2-3 letter language, then subtags of 1-8 letters or digits. */
const LANG_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}$/;

/**
 * Build a SCORM package in memory. options: { version: '1.2' | '2004', exercises: [built-in id or author module path],
 * widgets: [memory-widget | activation-plot | param-calculator], title, lang (the page's language tag), cwd }.
 * Resolves to { zip (Uint8Array), manifest, files: [paths in the zip], exercises: [{ id, title }] }; rejects with a
 * clear error on a bad argument.
 */
export async function buildScormPackage({
  version = '1.2',
  exercises = [],
  widgets = [],
  title,
  lang = 'en',
  cwd = '.',
} = {}) {
  if (version !== '1.2' && version !== '2004') throw new RangeError(`--scorm must be 1.2 or 2004; got ${version}`);
  if (typeof lang !== 'string' || !LANG_TAG.test(lang)) {
    throw new RangeError(`--lang must be a language tag such as en, fr or fr-CA; got ${JSON.stringify(String(lang))}`);
  }
  for (const w of widgets) {
    if (!Object.hasOwn(WIDGETS, w))
      throw new RangeError(`unknown widget "${w}"; known: ${Object.keys(WIDGETS).join(', ')}`);
  }
  if (!exercises.length && !widgets.length) throw new RangeError('choose at least one exercise or widget');
  const chosen = await resolveExercises(exercises, cwd);
  const name = title || (chosen.length ? chosen.map((e) => e.title).join(' · ') : 'ffn-lab').slice(0, 200);
  const { files, modules } = pageFiles(
    widgets,
    chosen.filter((e) => e.module).map((e) => e.module),
  );
  const course =
    chosen
      .map((e) => e.id)
      .join('.')
      .slice(0, 64) || 'widgets';
  files.set(
    'index.html',
    new TextEncoder().encode(
      scoPage({ title: name, version, course, lang, exercises: chosen, widgets, modules, files }),
    ),
  );
  const paths = ['index.html', ...[...files.keys()].filter((p) => p !== 'index.html').sort()];
  const identifier = `ffn-lab-${course.replace(/[^\w.-]/g, '_')}-${version}`;
  const manifest = scormManifest({ version, identifier, title: name, launch: 'index.html', files: paths });
  const entries = { 'imsmanifest.xml': new TextEncoder().encode(manifest) };
  for (const p of paths) entries[p] = files.get(p);
  const zip = zipSync(entries, { level: 9, mtime: new Date('2026-01-01T00:00:00Z') });
  return {
    zip,
    manifest,
    files: ['imsmanifest.xml', ...paths],
    exercises: chosen.map(({ id, title: t }) => ({ id, title: t })),
  };
}
