// Author-defined exercises in Node: the authoring guide's example and command, refusals by field, checkExercise,
// prompt HTML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertPassed } from '../helpers/report.js';
import { readFileSync, mkdtempSync, mkdirSync, symlinkSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  defineExercise,
  gradeExercise,
  checkExercise,
  getExercise,
  hiddenTests,
  exerciseIds,
  definedExerciseIds,
  ExerciseDefinitionError,
} from 'ffn-lab/sandbox';
import { ready } from 'ffn-lab';
import { parsePromptHtml } from '../../web/sandbox/grade/prompt-html.js';
import { exercises } from 'ffn-lab/sandbox';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(new URL('../../web/sandbox/AUTHORING.md', import.meta.url), 'utf8');
const block = (lang, firstLine) => {
  const m = new RegExp('```' + lang + '\\n(' + firstLine + '[\\s\\S]*?)```').exec(readme);
  assert.ok(m, `web/sandbox/AUTHORING.md has a ${lang} block starting with ${firstLine}`);
  return m[1];
};
const EXAMPLE = block('js', '// squared-relu\\.js');
const COMMAND = block('sh', 'node ').trim();

// An author's project: the example file next to node_modules/ffn-lab (this package).
const project = mkdtempSync(join(tmpdir(), 'ffn-lab-author-'));
mkdirSync(join(project, 'node_modules'));
symlinkSync(ROOT, join(project, 'node_modules', 'ffn-lab'), 'dir');
writeFileSync(join(project, 'squared-relu.js'), EXAMPLE);
writeFileSync(join(project, 'package.json'), '{ "type": "module" }');
process.on('exit', () => rmSync(project, { recursive: true, force: true }));

const { default: squared } = await import(pathToFileURL(join(project, 'squared-relu.js')).href);

/** A valid definition to break one field at a time (plain JS reference, two functions). */
function base(id) {
  return {
    id,
    title: 'Double it',
    level: 'Warm-up',
    prompt: '<p>Write <code>double(x)</code> and <code>count(n, bias = true)</code>.</p>',
    functions: {
      double: { params: ['x'], returns: 'tensor' },
      count: { params: ['n', 'bias = true'], returns: 'integer' },
    },
    starter: 'function double(x) {}\nfunction count(n, bias = true) {}',
    solution:
      'function double(x) { return map(x, (z) => 2 * z) }\n' +
      'function count(n, bias = true) { return n + (bias ? 1 : 0) }',
    hints: ['Multiply by two.'],
    tests: (rng) => [
      { name: 'a vector', fn: 'double', args: [rng.randn([5])] },
      { name: 'count, default bias', fn: 'count', args: [3] },
      { name: 'count without bias', fn: 'count', args: [3, false] },
    ],
    reference: {
      double: ([x]) => ({ data: Float64Array.from(x.data, (z) => 2 * z), shape: x.shape }),
      count: ([n, bias = true]) => n + (bias ? 1 : 0),
    },
    variants: [
      {
        id: 'tripled',
        fn: 'double',
        title: 'Tripled',
        message: 'You multiplied by three.',
        compute: ([x]) => Array.from(x.data, (z) => 3 * z),
      },
    ],
  };
}

test("the authoring guide's worked example passes the documented check command in an author's project", async () => {
  const { stdout } = await promisify(execFile)('bash', ['-c', COMMAND], { cwd: project, timeout: 120000 });
  assert.match(
    stdout,
    /^checkExercise\("squared-relu"\): ok: 3 seeds \(1, 2, 3\), 8\/8\/8 tests per seed, 2 variants$/m,
  );
});

test('a custom exercise grades as a built-in one: reference passes, a hand-written mistake fails, named', async () => {
  assert.equal(getExercise('squared-relu'), squared);
  assert.ok(definedExerciseIds().includes('squared-relu'));
  // an author's exercise does not join the built-ins (their list is checked in sandbox.test.js)
  assert.ok(!exerciseIds.includes('squared-relu') && exerciseIds.length === 8);
  const ok = await gradeExercise('squared-relu', squared.solution, { seed: 4 });
  assertPassed(ok);
  assert.equal(ok.total, 8);
  assert.equal(ok.exercise, 'squared-relu');
  // Learners' code, written here (not taken from the variants): a square with no clamp, a derivative without the 2.
  const noClamp = await gradeExercise(
    'squared-relu',
    `function reluSquared(x) {
  return { data: x.data.map((v) => v * v), shape: x.shape };
}
function reluSquaredGrad(x) {
  return map(x, (z) => Math.max(0, 2 * z));
}`,
  );
  assert.equal(noClamp.passed, false);
  assert.deepEqual(
    noClamp.diagnoses.map((d) => [d.id, d.title?.text]),
    [['squared-without-clamp', 'Squared without the clamp']],
  );
  assert.ok(noClamp.tests.filter((t) => t.fn === 'reluSquaredGrad').every((t) => t.pass));
  const halfGrad = await gradeExercise(
    'squared-relu',
    `function reluSquared(x) { return map(x, (z) => Math.max(z, 0) ** 2) }
function reluSquaredGrad(x) { return map(x, (z) => (z < 0 ? 0 : z)) }`,
  );
  assert.deepEqual(
    halfGrad.diagnoses.map((d) => d.id),
    ['grad-missing-two'],
  );
  assert.match(halfGrad.diagnoses[0].message?.text, /half the right one/);
  // hiddenTests shows an author their cases with the expected values
  const cases = await hiddenTests('squared-relu', { seed: 1 });
  const large = cases.find((c) => c.name === 'reluSquared: large inputs (±1000)');
  assert.deepEqual(Array.from(large.expected.data), [1e6, 0, 250.5 ** 2]);
  // the same object defined again is the same exercise; another object with the id is refused
  assert.equal(defineExercise(squared), squared);
});

const refusals = [
  ['missing id', (d) => delete d.id, 'id'],
  ['an id with spaces', (d) => (d.id = 'my exercise'), 'id'],
  ['missing title', (d) => delete d.title, 'title'],
  ['missing prompt', (d) => delete d.prompt, 'prompt'],
  ['missing hints', (d) => delete d.hints, 'hints'],
  ['missing solution', (d) => delete d.solution, 'solution'],
  ['missing tests', (d) => delete d.tests, 'tests'],
  ['missing functions', (d) => delete d.functions, 'functions'],
  [
    'a function name that is not an identifier',
    (d) => (d.functions['double-it'] = d.functions.double),
    'functions.double-it',
  ],
  ['a reserved word as a function name', (d) => (d.functions.class = d.functions.double), 'functions.class'],
  ['a toolkit name as a function name', (d) => (d.functions.map = d.functions.double), 'functions.map'],
  ['an unknown return kind', (d) => (d.functions.double.returns = 'matrix'), 'functions.double.returns'],
  [
    'a parameter that is not a name',
    (d) => (d.functions.count.params = ['n', 'bias = maybe']),
    'functions.count.params[1]',
  ],
  [
    'a required parameter after a default',
    (d) => (d.functions.count.params = ['bias = true', 'n']),
    'functions.count.params[1]',
  ],
  ['a reference missing for a function', (d) => delete d.reference.count, 'reference.count'],
  ['a reference for no function', (d) => (d.reference.triple = () => 1), 'reference.triple'],
  ['a variant of no function', (d) => (d.variants[0].fn = 'triple'), 'variants[0].fn'],
  ['a variant without compute', (d) => delete d.variants[0].compute, 'variants[0].compute'],
  ['a negative tolerance', (d) => (d.tolerance = { atol: -1, rtol: 0 }), 'tolerance.atol'],
  ['an unknown field', (d) => (d.hint = 'x'), 'hint'],
  ['a script in the prompt', (d) => (d.prompt = '<p>x</p><script>alert(1)</script>'), 'prompt'],
  ['an event handler in the prompt', (d) => (d.prompt = '<p onclick="alert(1)">x</p>'), 'prompt'],
  ['a javascript: link in the prompt', (d) => (d.prompt = '<a href=" java\tscript:alert(1)">x</a>'), 'prompt'],
];

test('invalid definitions are refused at definition time with the field named; nothing is registered', () => {
  let n = 0;
  for (const [what, breakIt, field] of refusals) {
    const def = base(`refused-${++n}`);
    breakIt(def);
    assert.throws(
      () => defineExercise(def),
      (e) => {
        assert.ok(e instanceof ExerciseDefinitionError && e instanceof TypeError, what);
        assert.equal(e.field, field, `${what}: ${e.message}`);
        assert.ok(e.message.includes(`${field}:`), `${what}: the message names the field: ${e.message}`);
        return true;
      },
      what,
    );
    assert.ok(!definedExerciseIds().includes(def.id), what);
  }
  assert.throws(
    () => defineExercise(base('squared-relu')),
    (e) => e.field === 'id' && /already defined/.test(e.message),
  );
  assert.throws(
    () => defineExercise(null),
    (e) => e.field === 'definition',
  );
});

test('a variant that never differs is refused: at definition with the wasm ready, else at first grading', async () => {
  await ready();
  const same = base('never-differs');
  same.variants.push({
    id: 'doubled-again',
    fn: 'double',
    title: 'Same',
    message: 'Identical.',
    compute: ([x]) => Array.from(x.data, (z) => z + z),
  });
  assert.throws(
    () => defineExercise(same),
    (e) => e.field === 'variants[1] ("doubled-again")' && /never differs from the reference/.test(e.message),
  );
  const wrongKind = base('wrong-kind');
  wrongKind.reference.count = () => 2.5;
  assert.throws(
    () => defineExercise(wrongKind),
    (e) => e.field === 'reference.count' && /not an integer/.test(e.message),
  );
  // A page that defines before the wasm is loaded learns it at the first grading (a fresh process: nothing loaded).
  writeFileSync(
    join(project, 'late.mjs'),
    `import { defineExercise, gradeExercise } from 'ffn-lab/sandbox';
const double = ([x]) => ({ data: Float64Array.from(x.data, (z) => 2 * z), shape: x.shape });
defineExercise({
  id: 'late', title: 'Late', level: 'Core', prompt: '<p>Double it.</p>', starter: '//', hints: ['Twice.'],
  solution: 'function double(x) { return map(x, (z) => 2 * z) }',
  functions: { double: { params: ['x'], returns: 'tensor' } },
  tests: () => [{ name: 'a vector', fn: 'double', args: [{ data: Float32Array.of(1, 2), shape: [2] }] }],
  reference: { double },
  variants: [{ id: 'same', fn: 'double', title: 'Same', message: 'The reference itself.', compute: double }],
});
console.log('defined');
await gradeExercise('late', 'function double(x) { return x }').then(
  () => console.log('graded'),
  (e) => console.log(e.name, e.field),
);
`,
  );
  const { stdout } = await promisify(execFile)(process.execPath, ['late.mjs'], { cwd: project, timeout: 60000 });
  assert.deepEqual(stdout.trim().split('\n'), ['defined', 'ExerciseDefinitionError variants[0] ("same")']);
});

test('checkExercise finds a wrong solution, a variant named as another, one a seed misses, random tests', async () => {
  const good = await checkExercise(base('check-good'), { seeds: [1, 2] });
  assert.equal(good.ok, true, good.text);
  assert.deepEqual(good.tests, [3, 3]);

  const wrongSolution = base('check-solution');
  wrongSolution.solution = wrongSolution.solution.replace('(bias ? 1 : 0)', '1');
  let r = await checkExercise(wrongSolution, { seeds: [1, 2] });
  assert.equal(r.ok, false);
  assert.deepEqual(
    r.problems.map((p) => [p.field, p.seed]),
    [
      ['solution', 1],
      ['solution', 2],
    ],
  );
  assert.match(r.problems[0].message, /"count without bias"/);

  const twins = base('check-twins');
  twins.variants.push({
    id: 'tripled-too',
    fn: 'double',
    title: 'Also tripled',
    message: 'Same mistake, another id.',
    compute: ([x]) => Array.from(x.data, (z) => 3 * z),
  });
  r = await checkExercise(twins, { seeds: [1] });
  assert.deepEqual(
    r.problems.map((p) => p.field),
    ['variants[1] ("tripled-too")'],
  );
  assert.match(r.problems[0].message, /diagnosed as tripled, not as itself/);

  const lucky = base('check-lucky');
  // A mistake that shows only on seed 1's count input: a seed whose count input differs lets it through.
  lucky.tests = (rng) => [
    { name: 'a vector', fn: 'double', args: [rng.randn([5])] },
    { name: 'count', fn: 'count', args: [rng.next() < 0.5 ? -3 : 3] },
    { name: 'count without bias', fn: 'count', args: [2, false] },
  ];
  const countArg = async (seed) => (await hiddenTests(lucky, { seed }))[1].args[0];
  const n1 = await countArg(1);
  let other = 2;
  while ((await countArg(other)) === n1) other++;
  lucky.variants.push({
    id: 'off',
    fn: 'count',
    title: 'off',
    message: 'Off by five.',
    compute: ([n, bias = true]) => (n === n1 ? n + 5 : n) + (bias ? 1 : 0),
  });
  r = await checkExercise(lucky, { seeds: [1, other] });
  assert.deepEqual(
    r.problems.map((p) => [p.field, p.seed]),
    [['variants[1] ("off")', other]],
  );
  assert.match(r.problems[0].message, /passes every hidden test/);

  const random = base('check-random');
  random.tests = () => [
    { name: 'a vector', fn: 'double', args: [{ data: Float32Array.of(Math.random(), 1), shape: [2] }] },
    { name: 'count', fn: 'count', args: [2] },
    { name: 'count without bias', fn: 'count', args: [2, false] },
  ];
  r = await checkExercise(random, { seeds: [1] });
  assert.deepEqual(
    r.problems.map((p) => p.field),
    ['tests'],
  );
  assert.match(r.problems[0].message, /not deterministic.*"a vector"/);
  assert.match(r.text, /^checkExercise\("check-random"\): 1 problem/);
});

test('prompt HTML: the built-ins are within the allow-list; hostile prompts are refused, naming what was found', () => {
  for (const ex of exercises) assert.deepEqual(parsePromptHtml(ex.prompt).problems, [], ex.id);
  const hostile = [
    ['<img src=x onerror="alert(1)">', /<img> is not allowed/],
    ['<p onmouseover="alert(1)">x</p>', /attribute "onmouseover" on <p>/],
    ['<a href="javascript:alert(1)">x</a>', /link "javascript:alert\(1\)" is not allowed/],
    ['<a href="jav&#x61;script:alert(1)">x</a>', /link "javascript:alert\(1\)"/],
    ['<a href="data:text/html,<script>alert(1)</script>">x</a>', /link "data:text\/html/],
    ['<svg><script>alert(1)</script></svg>', /<svg> is not allowed/],
    ['<p style="background:url(x)">x</p>', /attribute "style"/],
    ['<iframe srcdoc="<script>alert(1)</script>"></iframe>', /<iframe> is not allowed/],
    ['<p>a</p><!-- x', /comment <!-- is never closed/],
    ['<p>open', /<p> is not closed/],
    ['<math><mi>x</mi></math>', /<math> is not allowed/],
    ['<form action="https://evil.example"><button>go</button></form>', /<form> is not allowed/],
  ];
  for (const [html, problem] of hostile) {
    const { problems } = parsePromptHtml(html);
    assert.ok(
      problems.some((p) => problem.test(p)),
      `${html}: ${problems.join(' | ')}`,
    );
  }
  // what is allowed comes out as nodes: decoded text, safe links
  const { nodes, problems } = parsePromptHtml(
    '<p>a &lt; b &amp;&amp; <a href="https://example.org/x?a=1&amp;b=2">c</a> < d</p>',
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(nodes, [
    {
      tag: 'p',
      attrs: [],
      children: [
        'a < b && ',
        { tag: 'a', attrs: [['href', 'https://example.org/x?a=1&b=2']], children: ['c'] },
        ' < d',
      ],
    },
  ]);
});
