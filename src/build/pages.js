// build.sh: web/dist/, what ffn-lab's own pages load, bundled and minified by esbuild (rewritten only when the output
// changes).
import { readFile, readdir, rm, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
const out = resolve('web/dist');
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // a copy of the package without its devDependencies (npm pack of a copy, a rebuild of the wasm in node_modules)
  if (existsSync(`${out}/boot.js`)) {
    console.log('build.sh: esbuild is not installed here; web/dist/ is left as it is');
    process.exit(0);
  }
  console.error('build.sh: esbuild is missing (it bundles the pages into web/dist/): run npm ci first');
  process.exit(1);
}
const runtime = resolve('web/runtime.js');
const fromDist = (file) => relative(out, file).replace(/^(?!\.)/, './');
const plugin = (shareRuntime) => ({
  name: 'ffn-lab-pages',
  setup(b) {
    // *-inline.js: large, and loaded by the code only where it needs them: left as the package's files
    b.onResolve({ filter: /-inline\.js$/ }, (a) => ({ path: fromDist(resolve(a.resolveDir, a.path)), external: true }));
    if (shareRuntime) {
      b.onResolve({ filter: /runtime\.js$/ }, (a) =>
        resolve(a.resolveDir, a.path) === runtime ? { path: './boot.js', external: true } : undefined,
      );
    }
    b.onLoad({ filter: /\.js$/ }, async (a) => ({
      loader: 'js',
      contents: (await readFile(a.path, 'utf8')).replace(
        /new URL\((['"])(\.\.?\/[^'"]+)\1, import\.meta\.url\)/g,
        (m, q, rel) => `new URL(${q}${fromDist(resolve(dirname(a.path), rel))}${q}, import.meta.url)`,
      ),
    }));
  },
});
const common = {
  outdir: out,
  bundle: true,
  format: 'esm',
  minify: true,
  legalComments: 'none',
  write: false,
  target: 'es2022',
  charset: 'utf8',
  logLevel: 'warning',
};
const entries = {
  embed: 'web/embed/embed.js',
  'activation-plot': 'web/components/activation-plot.js',
  'param-calculator': 'web/components/param-calculator.js',
  'memory-widget': 'web/components/memory-widget.js',
  'memory-lab': 'web/components/memory-lab/index.js',
  'ffn-exercise': 'web/sandbox/ffn-exercise.js',
};
// an element's module that the boot imports later (page-boot.js): its bundle beside boot.js, not a copy inside it
const bundled = new Map(Object.entries(entries).map(([name, file]) => [resolve(file), `./${name}.js`]));
const laterPlugin = {
  name: 'ffn-lab-later',
  setup(b) {
    b.onResolve({ filter: /\.js$/ }, (a) => {
      const name = a.kind === 'dynamic-import' && bundled.get(resolve(a.resolveDir, a.path));
      return name ? { path: name, external: true } : undefined;
    });
  },
};
const boot = await esbuild.build({
  ...common,
  entryPoints: { boot: 'web/page-boot.js' },
  plugins: [laterPlugin, plugin(false)],
});
const rest = await esbuild.build({
  ...common,
  entryPoints: entries,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  plugins: [plugin(true)],
});
const want = new Map([...boot.outputFiles, ...rest.outputFiles].map((f) => [f.path, f.contents]));
const have = existsSync(out) ? await readdir(out) : [];
const same =
  have.length === want.size &&
  (
    await Promise.all([...want].map(async ([p, c]) => existsSync(p) && Buffer.compare(await readFile(p), c) === 0))
  ).every(Boolean);
if (!same) {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  for (const [p, c] of want) await writeFile(p, c);
  const bytes = [...want.values()].reduce((s, c) => s + c.length, 0);
  console.log(`build.sh: wrote web/dist/ (${want.size} files, ${bytes} bytes)`);
}
