// The package as course sites load it, checked in Node: every specifier and path the README names resolves (exports,
// files), the registration entries are side effects bundlers keep, and build.sh's sandbox-inline.js holds today's
// frame, worker and toolkit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

test('every ffn-lab specifier the README imports resolves through package.json exports', async () => {
  const specs = new Set();
  for (const m of README.matchAll(/(?:from |import\(|import )'(ffn-lab(?:\/[^']*)?)'/g)) specs.add(m[1]);
  for (const s of ['ffn-lab', 'ffn-lab/url', 'ffn-lab/sandbox', 'ffn-lab/components'])
    assert.ok(specs.has(s), `README imports ${s}`);
  for (const s of specs) {
    const url = import.meta.resolve(s); // self-reference: resolved through "exports" as a site's bundler would
    assert.ok(existsSync(fileURLToPath(url)), `${s} -> ${url}`);
  }
});

test('every node_modules/ffn-lab/... and embed path the README names is a file the package ships', () => {
  const paths = new Set();
  for (const m of README.matchAll(/node_modules\/ffn-lab\/(web\/[\w./-]*\w)/g)) paths.add(m[1]);
  for (const m of README.matchAll(/ffn-lab\/embed\/([\w-]+\.(?:html|js))/g)) paths.add(`web/embed/${m[1]}`);
  for (const m of README.matchAll(/`(web\/sandbox\/[\w./-]+\.(?:html|js))`/g)) paths.add(m[1]);
  assert.ok(
    paths.has('web/sandbox/run/frame.html') && paths.has('web/embed/host.js') && paths.has('web/embed/exercise.html'),
  );
  assert.ok(PKG.files.includes('web/'));
  for (const p of paths) {
    const generated = p === 'web/sandbox/run/sandbox-inline.js'; // built by build.sh (prepack), git-ignored
    assert.ok(existsSync(join(ROOT, p)) || generated, `README names ${p}, which does not exist`);
  }
});

test(
  'the registration entries are side effects (bundlers that honour "sideEffects" keep ' + "`import 'ffn-lab/sandbox'`)",
  () => {
    // exercises/index.js defines the eight built-ins as it is evaluated: without it a Vite build drops them
    for (const f of ['./web/sandbox/index.js', './web/sandbox/grade/exercises/index.js', './web/components/*.js']) {
      assert.ok(PKG.sideEffects.includes(f), f);
    }
    assert.equal(PKG.exports['./sandbox'].default, './web/sandbox/index.js');
    assert.equal(PKG.exports['./components'].default, './web/components/index.js');
  },
);

test(
  'web/sandbox/run/sandbox-inline.js (build.sh) holds the current frame.html, worker.js and ' +
    'toolkit.js, with no "<" in it',
  async () => {
    const file = join(ROOT, 'web/sandbox/run/sandbox-inline.js');
    const mod = await import(`${new URL(`file://${file}`).href}?t=${Date.now()}`);
    const read = (f) => readFileSync(join(ROOT, 'web/sandbox/run', f), 'utf8');
    assert.equal(mod.FRAME_HTML, read('frame.html'), 'stale: run bash build.sh');
    assert.equal(mod.WORKER_SOURCE, read('worker.js'), 'stale: run bash build.sh');
    assert.equal(mod.TOOLKIT_SOURCE, read('toolkit.js'), 'stale: run bash build.sh');
    assert.doesNotMatch(
      readFileSync(file, 'utf8'),
      /</,
      'a </script> in it would end an inline <script> that holds a bundle',
    );
    assert.match(readFileSync(join(ROOT, '.gitignore'), 'utf8'), /^web\/sandbox\/run\/sandbox-inline\.js$/m);
  },
);
