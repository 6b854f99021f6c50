// The sandbox's three wings (web/sandbox/run, grade, element): imports cross wings only through a wing's face
// (its index.js) and only downward (element -> grade -> run), and no module of web/ closes a circle of imports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import { ROOT, webFiles } from '../helpers/web-files.js';

const WINGS = { run: 1, grade: 2, element: 3 }; // an import may go from a higher rank to a lower one only
// The worker's one import (worker.js and frame.html allow it and nothing else): a leaf that imports nothing, so
// any module may name it; web/i18n/en.js takes the worker's English from it.
const LEAF = 'web/sandbox/run/toolkit.js';

/** The imports of web/'s files as esbuild reads them: Map file -> [{ path, dynamic }], paths from the root. */
async function readGraph() {
  const files = webFiles();
  const r = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: files,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    metafile: true,
    outdir: join(ROOT, 'tests/artifacts/structure'),
    logLevel: 'silent',
    plugins: [
      {
        name: 'inline-external',
        setup(b) {
          // generated files, packages and built-ins: not web/'s own modules
          b.onResolve({ filter: /-inline\.js$|^[^./]/ }, (a) => ({ path: a.path, external: true }));
        },
      },
    ],
  });
  const graph = new Map();
  for (const [file, input] of Object.entries(r.metafile.inputs)) {
    if (!file.startsWith('web/')) continue;
    const imports = input.imports.filter((i) => !i.external && i.path.startsWith('web/'));
    graph.set(
      file,
      imports.map((i) => ({ path: i.path, dynamic: i.kind === 'dynamic-import' })),
    );
  }
  return graph;
}

let graphOnce = null;
const importGraph = () => (graphOnce ??= readGraph());

/** The wing of a file ('run', 'grade', 'element') or null. */
function wingOf(file) {
  const m = /^web\/sandbox\/(run|grade|element)\//.exec(file);
  return m ? m[1] : null;
}

/** What is wrong with one import from `from` to `to`, or null. */
function crossingProblem(from, to) {
  const a = wingOf(from);
  const b = wingOf(to);
  if (!b || a === b) return null;
  if (to === LEAF) return null;
  if (to !== `web/sandbox/${b}/index.js`) return `${from} imports ${to}: another wing only through its face`;
  if (a && WINGS[a] <= WINGS[b]) return `${from} imports ${to}: up from ${a} to ${b}`;
  return null;
}

/** Circles of static imports, each as the list of files around it. */
function circles(graph) {
  const found = [];
  const state = new Map(); // file -> 1 (on the path) | 2 (done)
  const path = [];
  const visit = (f) => {
    state.set(f, 1);
    path.push(f);
    for (const { path: to, dynamic } of graph.get(f) || []) {
      if (dynamic) continue;
      if (state.get(to) === 1) found.push([...path.slice(path.indexOf(to)), to]);
      else if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(f, 2);
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

/** Every problem of a graph: crossings of wings and circles. */
function problems(graph) {
  const out = [];
  for (const [from, imports] of graph) {
    for (const { path: to } of imports) {
      const p = crossingProblem(from, to);
      if (p) out.push(p);
    }
  }
  for (const c of circles(graph)) out.push(`a circle of imports: ${c.join(' -> ')}`);
  return out;
}

test('web/: imports cross the sandbox wings only through faces and only downward, and close no circle', async () => {
  const graph = await importGraph();
  for (const w of Object.keys(WINGS)) assert.ok(graph.has(`web/sandbox/${w}/index.js`), `the ${w} wing has a face`);
  assert.ok(graph.size > 40, `the graph holds web/'s modules (${graph.size})`);
  assert.deepEqual(problems(graph), []);
  assert.deepEqual(graph.get(LEAF), [], `${LEAF} imports nothing`);
});

test('the run wing imports nothing of grade or element, nor any exercise', async () => {
  const graph = await importGraph();
  for (const [from, imports] of graph) {
    if (wingOf(from) !== 'run') continue;
    for (const { path: to } of imports) {
      assert.ok(!/^web\/sandbox\/(grade|element)\//.test(to), `${from} imports ${to}`);
      assert.ok(!/exercise/.test(relative('web/sandbox/run', to)), `${from} imports ${to}`);
    }
  }
});

test('the checks find an import that goes up a wing, one past a face, and a circle', () => {
  const g = (edges) => new Map(Object.entries(edges).map(([f, to]) => [f, to.map((p) => ({ path: p }))]));
  const up = g({ 'web/sandbox/run/runner.js': ['web/sandbox/grade/index.js'], 'web/sandbox/grade/index.js': [] });
  assert.match(problems(up).join('\n'), /up from run to grade/);
  const past = g({
    'web/sandbox/element/element.js': ['web/sandbox/grade/grade.js'],
    'web/sandbox/grade/grade.js': [],
  });
  assert.match(problems(past).join('\n'), /only through its face/);
  const fromOutside = g({
    'web/sandbox/index.js': ['web/sandbox/grade/compare.js'],
    'web/sandbox/grade/compare.js': [],
  });
  assert.match(problems(fromOutside).join('\n'), /only through its face/);
  const circle = g({ 'web/a.js': ['web/b.js'], 'web/b.js': ['web/c.js'], 'web/c.js': ['web/a.js'] });
  assert.deepEqual(problems(circle), ['a circle of imports: web/a.js -> web/b.js -> web/c.js -> web/a.js']);
  const downOk = g({ 'web/sandbox/element/element.js': ['web/sandbox/run/index.js'], 'web/sandbox/run/index.js': [] });
  assert.deepEqual(problems(downOk), []);
});
