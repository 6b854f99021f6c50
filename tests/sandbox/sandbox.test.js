// Node tests of the exercise sandbox: reference solutions pass, every known-wrong variant is diagnosed as itself,
// learner code is contained and located.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  gradeExercise,
  mountExercise,
  exercises,
  exerciseIds,
  createProgressStore,
  memoryStorage,
  exportProgress,
  importProgress,
  toolkitNames,
  hiddenTests,
  checkExercise,
} from 'ffn-lab/sandbox';
import { variantSources, mutate } from '../helpers/sandbox-variants.js';
import { assertPassed } from '../helpers/report.js';
import { erf, matmul, map } from '../../web/sandbox/run/toolkit.js';
import { compareValue, expect as spec } from '../../web/sandbox/grade/compare.js';
import { readFileSync } from 'node:fs';
import { startServer } from '../../web/serve.js';

const byId = (id) => exercises.find((e) => e.id === id);

test('the catalog has the eight exercises, each with 3 hints, starter, examples and solution', () => {
  assert.deepEqual(exerciseIds, [
    'gelu',
    'ffn',
    'swiglu',
    'swiglu-backward',
    'memories',
    'gqa-budget',
    'value-to-vocab',
    'rank-one-edit',
  ]);
  for (const ex of exercises) {
    assert.equal(ex.hints.length, 3, ex.id);
    assert.ok(ex.starter.length > 0 && ex.solution.length > 0 && ex.examples.length > 0 && ex.prompt.length > 0, ex.id);
  }
});

test('the toolkit never contains an answer', () => {
  for (const banned of [
    'gelu',
    'geluTanh',
    'silu',
    'sigmoid',
    'swigluFfn',
    'ffn',
    'ffnMemories',
    'swigluBackward',
    'llamaHiddenDim',
    'ffnParamCount',
  ]) {
    assert.ok(!toolkitNames.includes(banned), banned);
  }
});

test('toolkit erf matches known values (independent: Abramowitz & Stegun table)', () => {
  // erf(0.5), erf(1), erf(2), erf(3.5) to 10 digits
  const known = [
    [0.5, 0.5204998778],
    [1, 0.8427007929],
    [2, 0.995322265],
    [3.5, 0.9999992569],
    [-1, -0.8427007929],
  ];
  for (const [x, v] of known) assert.ok(Math.abs(erf(x) - v) < 1e-9, `erf(${x})`);
  assert.ok(Number.isNaN(erf(NaN)));
  assert.deepEqual(
    Array.from(
      matmul(
        [
          [1, 2],
          [3, 4],
        ],
        [[1], [1]],
      ).data,
    ),
    [3, 7],
  );
  assert.deepEqual(map([[1, 2, 3]], (v) => v * 2).shape, [1, 3]);
});

for (const ex of exercises) {
  test(`built-in "${ex.id}" passes checkExercise: solution, variants named as themselves, deterministic`, async () => {
    const r = await checkExercise(ex, { seeds: [1, 2, 7] });
    assert.equal(r.ok, true, r.text);
    assert.ok(
      r.tests.every((n) => n >= 6),
      r.text,
    );
    const graded = await gradeExercise(ex.id, ex.solution, { seed: 7 });
    assertPassed(graded);
    assert.equal(graded.passedCount, graded.total);
    assert.deepEqual(graded.diagnoses, []);
  });
}

test("the seeds' figures are among the hidden tests and checked against the reference", async () => {
  const ffn = await hiddenTests('ffn', { seed: 1 });
  const gpt2 = ffn.find((t) => t.name.includes('GPT-2'));
  assert.equal(gpt2.expected.value, 4722432); // the course's figure, not the code under test
  const r = await gradeExercise('gqa-budget', byId('gqa-budget').solution);
  assert.ok(r.tests.some((t) => t.name.includes('14336') && t.pass));
  const wrongShare = await gradeExercise(
    'gqa-budget',
    'function gqaBlockCounts(){ return { attention: 41943040, ' +
      'ffn: 176160768, ffnShare: 0.808 } }\nfunction matchedGatedWidth(m){ return 2*m/3 }',
  );
  assert.equal(wrongShare.tests[0].pass, false); // 0.808 is a rounded figure; the exact share is 0.80769...
  const exact = await gradeExercise(
    'gqa-budget',
    'function gqaBlockCounts(){ return { attention: 41943040, ffn: ' +
      '176160768, ffnShare: 176160768 / 218103808 } }\nfunction matchedGatedWidth(m){ return 2*m/3 }',
  );
  assert.equal(exact.tests[0].pass, true); // the seed's 41,943,040 and 176,160,768
});

test("every known-wrong variant has a learner source, and the issue's required variants exist", () => {
  const ids = new Set(exercises.flatMap((e) => e.variants.map((v) => v.id)));
  assert.deepEqual([...ids].sort(), Object.keys(variantSources).sort());
  const required = [
    'gelu-swapped',
    'gelu-sigmoid-form',
    'gelu-missing-half',
    'gelu-missing-cubic',
    'ffn-exact-gelu',
    'ffn-missing-b1',
    'ffn-missing-b2',
    'count-without-biases',
    'count-gated-ungated-biases',
    'llama-rounded-down',
    'llama-not-rounded',
    'llama-without-two-thirds',
    'llama-multiplier-after-rounding',
    'swiglu-silu-on-up',
    'swiglu-sigmoid',
    'backward-dx-missing-up',
    'backward-dx-missing-gate',
    'backward-silu-prime-sigma',
    'backward-product-rule',
    'backward-dw-transposed',
    'memories-ascending',
    'memories-no-relu',
    'memories-partial-all',
  ];
  for (const id of required) assert.ok(ids.has(id), id);
});

for (const [id, { exercise, source }] of Object.entries(variantSources)) {
  test(`known-wrong variant "${id}" fails and is diagnosed as itself`, async () => {
    const r = await gradeExercise(exercise, source);
    assert.equal(r.status, 'done');
    assert.equal(r.passed, false);
    assert.deepEqual(
      r.diagnoses.map((d) => d.id),
      [id],
    );
    assert.ok(r.diagnoses[0].message?.text.length > 20);
    assert.ok(r.diagnoses[0].tests.length >= 1);
  });
}

test('generic diagnoses when no catalog variant fits: constant factor, sign, transposed output', async () => {
  const sol = (id) => byId(id).solution;
  let r = await gradeExercise(
    'swiglu',
    mutate(sol('swiglu'), 'return matmul(mul(A, U), Wd);', 'return map(matmul(mul(A, U), Wd), (v) => 3 * v);'),
  );
  assert.deepEqual(
    r.diagnoses.map((d) => d.id),
    ['generic-scaled'],
  );
  assert.match(r.diagnoses[0].message?.text, /3 times the expected/);
  r = await gradeExercise(
    'swiglu-backward',
    mutate(
      sol('swiglu-backward'),
      'return { dX, dWGate, dWUp, dWDown };',
      'return { dX: map(dX, (v) => -v), dWGate, dWUp, dWDown };',
    ),
  );
  assert.deepEqual(
    r.diagnoses.map((d) => d.id),
    ['generic-scaled'],
  );
  assert.match(r.diagnoses[0].message?.text, /dX values are the negatives/);
  r = await gradeExercise(
    'ffn',
    mutate(sol('ffn'), 'return add(matmul(H, W2), b2);', 'return transpose(add(matmul(H, W2), b2));'),
  );
  assert.deepEqual(
    r.diagnoses.map((d) => d.id),
    ['generic-transposed'],
  );
  // an unrelated bug gets no diagnosis rather than a wrong one
  r = await gradeExercise(
    'swiglu',
    mutate(
      sol('swiglu'),
      'return matmul(mul(A, U), Wd);',
      'return map(matmul(mul(A, U), Wd), (v) => v + Math.sin(v));',
    ),
  );
  assert.equal(r.passed, false);
  assert.deepEqual(
    r.diagnoses.filter((d) => d.fn === 'swigluFfn'),
    [],
  );
});

test('an infinite loop times out and the report says why', async () => {
  const t0 = Date.now();
  const r = await gradeExercise('gelu', 'function gelu(x) {\n  while (true) {}\n}\nfunction geluTanh(x) { return x }', {
    timeout: 300,
  });
  assert.ok(Date.now() - t0 < 3000);
  assert.equal(r.status, 'timeout');
  assert.equal(r.passed, false);
  assert.match(r.summary?.text, /more than 300 ms/);
  assert.match(r.summary?.text, /infinite loop/);
  assert.equal(r.tests[0].status, 'timeout');
  assert.equal(r.tests.at(-1).status, 'not-run');
});

test('a throw reports its line and column in the learner code', async () => {
  const src = 'function gelu(x) {\n  const y = 1;\n  throw new Error("boom");\n}\nfunction geluTanh(x) { return x }';
  const r = await gradeExercise('gelu', src);
  const t = r.tests[0];
  assert.equal(t.status, 'error');
  assert.equal(t.error.line, 3);
  assert.equal(t.error.column, 9);
  assert.match(t.message?.text, /boom \(line 3, column 9\)/);
  // an error inside a toolkit call is located at the learner's call site
  const r2 = await gradeExercise(
    'ffn',
    'function ffn(X, W1, b1, W2, b2) {\n  return matmul(W1, X);\n}\nfunction ffnParamCount() { return 0 }',
  );
  assert.equal(r2.tests[0].error.line, 2);
  assert.match(r2.tests[0].error.message, /matmul/);
});

test('a syntax error reports its line and column', async () => {
  const r = await gradeExercise('gelu', 'function gelu(x) {\n  return map(x, z => z *);\n}\n');
  assert.equal(r.status, 'error');
  assert.equal(r.error.name, 'SyntaxError');
  assert.equal(r.error.line, 2);
  assert.equal(r.error.column, 25);
  assert.match(r.summary?.text, /syntax error.*line 2, column 25/);
  const eof = await gradeExercise('gelu', 'function gelu(x) {\n  return x;\n');
  assert.equal(eof.error.name, 'SyntaxError');
  assert.ok(eof.error.line >= 2 && eof.error.line <= 3);
  const top = await gradeExercise('gelu', 'const a = 1;\nnull.x;\nfunction gelu(x) { return x }');
  assert.equal(top.status, 'error');
  assert.equal(top.error.line, 2);
});

test('a missing function and wrong shapes or types are reported plainly', async () => {
  const r = await gradeExercise('gelu', 'function gelu(x) { return { data: x.data, shape: [x.data.length] } }');
  const batch = r.tests.find((t) => t.name === 'gelu: a batch, shape [2,3,5]');
  assert.equal(batch.problem?.text, 'returned shape [30], expected [2,3,5]');
  assert.match(r.tests.find((t) => t.fn === 'geluTanh').message.text, /geluTanh is not defined/);
  const s = await gradeExercise('gelu', 'function gelu(x) { return "no" }\nfunction geluTanh(x) { return undefined }');
  assert.match(s.tests[0].problem?.text, /returned a string "no"/);
  assert.match(s.tests.find((t) => t.fn === 'geluTanh').problem.text, /undefined/);
  const c = compareValue(
    { k: 'typed', type: 'Float32Array', data: new Float64Array(24) },
    spec.tensor({ data: new Float32Array(48), shape: [2, 3, 8] }),
    { atol: 0, rtol: 0 },
  );
  assert.equal(String(c.problem), 'returned shape [24], expected [2,3,8]');
  const d = compareValue(
    {
      k: 'object',
      entries: {
        data: { k: 'typed', type: 'Float64Array', data: new Float64Array(24) },
        shape: {
          k: 'array',
          items: [
            { k: 'number', v: 3 },
            { k: 'number', v: 8 },
          ],
        },
      },
    },
    spec.tensor({ data: new Float32Array(48), shape: [2, 3, 8] }),
    { atol: 0, rtol: 0 },
  );
  assert.equal(String(d.problem), 'returned shape [3,8], expected [2,3,8]');
});

test('a failing test reports max error and the first mismatching index with got and expected', async () => {
  const r = await gradeExercise('gelu', byId('gelu').solution.replace('0.5 * z * (1 + erf', '0.5 * z * (1.001 + erf'));
  const t = r.tests.find((x) => x.name === 'gelu: a 3×5 matrix');
  assert.equal(t.status, 'fail');
  assert.equal(t.mismatch.index.length, 2);
  assert.ok(t.maxError > 1e-5);
  assert.equal(typeof t.mismatch.got, 'number');
  assert.equal(typeof t.mismatch.expected, 'number');
  assert.match(t.message?.text, /first mismatch at \[\d+,\d+\]: got .*, expected .* \(max error/);
});

test('network, code-loading and page APIs are unavailable inside the worker', async () => {
  const probe = (expr) => `function gelu(x) {\n  ${expr};\n  return x;\n}\nfunction geluTanh(x) { return x }`;
  for (const expr of [
    'fetch("http://127.0.0.1:1/")',
    'new XMLHttpRequest()',
    'new WebSocket("ws://127.0.0.1:1")',
    'new EventSource("x")',
    'importScripts("x.js")',
    'new Worker("x.js")',
    'eval("1")',
    'Function("return 1")()',
    '(function(){}).constructor("return 1")()',
    '(async function(){}).constructor("return 1")()',
    'setTimeout("1", 0)',
    'process.exit(1)',
  ]) {
    const r = await gradeExercise('gelu', probe(expr));
    assert.equal(r.tests[0].status, 'error', expr);
    assert.equal(r.tests[0].error.line, 2, expr);
  }
  for (const name of ['document', 'localStorage', 'parent', 'top', 'window', 'require', 'navigator', 'indexedDB']) {
    const r = await gradeExercise(
      'gelu',
      `function gelu(x) { if (typeof ${name} !== 'undefined') throw new Error('${name} is reachable'); return x }`,
    );
    assert.notEqual(r.tests[0].status, 'error', `${name}: ${r.tests[0].message?.text}`);
  }
  const imp = await gradeExercise(
    'gelu',
    'function gelu(x) {\n  return x;\n}\nconst m = import("http://127.0.0.1:1/x.js");',
  );
  assert.equal(imp.status, 'error');
  assert.equal(imp.error.line, 4);
  assert.match(imp.error.message, /import is not available/);
});

test(
  'import: the word is allowed in // and /* */ comments and in quoted strings, refused as ' +
    'code with its line and column',
  async () => {
    const sol = byId('gelu').solution;
    const allowed = [
      `// import numpy as np\n${sol}`,
      `/* import torch\n   import math */\n${sol}`,
      `${sol}\nconst a = 'import';\nconst b = "don't import it";\nconst c = '\\'import\\'';`,
      `${sol}\nconst d = 1 / 2; // it's an import-free division, then a comment`,
    ];
    for (const src of allowed) {
      const r = await gradeExercise('gelu', src);
      assertPassed(r, JSON.stringify(src.slice(0, 40)));
    }
    // A quoted string that really holds the word reaches the code unchanged.
    const echo = await gradeExercise('gelu', `${sol}\nconsole.log('import' + "import".length);`);
    assertPassed(echo);
    assert.ok(
      echo.logs.some((l) => String(l.text ?? l).includes('import6')),
      JSON.stringify(echo.logs),
    );

    const lines = sol.split('\n').length;
    const refused = [
      [`import('http://127.0.0.1:1/x.js');\n${sol}`, 1, 1],
      [`${sol}\nasync function f() {\n  return await import("http://127.0.0.1:1/x.js");\n}`, lines + 2, 16],
      [`${sol}\nconst t = \`a \${import('http://127.0.0.1:1/x.js')} b\`;`, lines + 1, 16],
      [`${sol}\nconst t = \`\${'\`'} \${ {a: 1}.a + import('x') }\`;`, lines + 1, 33],
      [`${sol}\nconst m = import.meta;`, lines + 1, 11],
      [`${sol}\nconst e = im\\u0070ort('x');`, lines + 1, 11],
      [`${sol}\nconst e = \\u{69}mport('x');`, lines + 1, 11],
      [`${sol}\nconst w = /'/; import('x'); '/';`, lines + 1, 16],
      // A regular expression after a block's `}` reads as a division to the scanner; the parse check catches it.
      [`${sol}\nif (1) {} /'/; import('x'); '/';`, lines + 1, 16],
      [`${sol}\nconst s = 'a\\\nimport' + import('x');`, lines + 2, 11],
    ];
    for (const [src, line, column] of refused) {
      const r = await gradeExercise('gelu', src);
      assert.equal(r.status, 'error', src);
      assert.match(r.error.message, /import is not available/, src);
      assert.deepEqual([r.error.line, r.error.column], [line, column], src);
    }
    // A learner's own syntax error is still reported where it is, even with the word in a comment.
    const syn = await gradeExercise('gelu', `// import numpy\nfunction gelu(x) {\n  return x +;\n}`);
    assert.equal(syn.status, 'error');
    assert.doesNotMatch(syn.error.message, /import is not available/);
    assert.equal(syn.error.line, 3);
  },
);

test('forged messages cannot pass a test: the verdict comes from the page', async () => {
  const src = `
    function gelu(x) {
      try { postMessage({ type: 'done', compileError: null }); } catch {}
      try { postMessage({ type: 'result', index: 0, result: { ok: true, value: { k: 'number', v: 1 } } }); } catch {}
      return { data: new Float32Array(x.data.length), shape: x.shape };
    }
    function geluTanh(x) { return gelu(x) }`;
  const r = await gradeExercise('gelu', src);
  assert.equal(r.passed, false);
  assert.equal(r.tests.find((t) => t.name === 'gelu: 7 values in [-4, 4]').status, 'fail');
});

test('oversized, cyclic, non-cloneable and hostile results are refused with a message', async () => {
  const grade = (body) => gradeExercise('gelu', `function gelu(x) { ${body} }\nfunction geluTanh(x) { return x }`);
  let r = await grade('return new Float64Array(5e6)');
  assert.equal(r.tests[0].status, 'refused');
  assert.match(r.tests[0].message?.text, /more than/);
  r = await grade('const a = [1]; a.push(a); return a');
  assert.match(r.tests[0].message?.text, /cycle/);
  r = await grade('return () => 1');
  assert.match(r.tests[0].message?.text, /a function/);
  r = await grade('return { get data() { throw new Error("gotcha") }, shape: [1] }');
  assert.match(r.tests[0].message?.text, /reading your result threw: gotcha/);
  r = await grade('return new Proxy(map(x, (z) => 0.5 * z * (1 + erf(z / Math.SQRT2))), {})');
  assert.equal(r.tests[0].status, 'pass'); // a transparent proxy is read like the object it wraps
  r = await grade('return Promise.resolve(x)');
  assert.match(r.tests[0].message?.text, /Promise/);
  r = await grade('return { data: x.data.map(() => NaN), shape: x.shape }');
  assert.equal(r.tests[1].status, 'fail');
  assert.match(r.tests[1].message?.text, /got NaN/);
});

test('learner code that mutates its inputs does not change the reference', async () => {
  const src = byId('gelu').solution.replace(
    'function gelu(x) {',
    'function gelu(x) {\n  const y = map(x, (z) => ' +
      '0.5 * z * (1 + erf(z / Math.SQRT2)));\n  x.data.fill(0);\n  return y;\n}\nfunction unused(x) {',
  );
  const r = await gradeExercise('gelu', src);
  assertPassed(r);
});

test('console output is captured and bounded', async () => {
  const r = await gradeExercise(
    'gelu',
    'for (let i = 0; i < 1000; i++) console.log("line", i);\n' + byId('gelu').solution,
  );
  assertPassed(r);
  assert.equal(r.logs.length, 200);
  assert.equal(r.logs[0].text, 'line 0');
});

test('deep recursion and runaway allocation are contained', async () => {
  const rec = await gradeExercise('gelu', 'function gelu(x) {\n  return gelu(x);\n}');
  assert.equal(rec.tests[0].error.name, 'RangeError');
  assert.equal(rec.tests[0].error.line, 2);
  const oom = await gradeExercise(
    'gelu',
    'function gelu(x) { const a = []; while (true) a.push(new Array(1e6).fill(1.5)); }',
    { timeout: 10000 },
  );
  assert.equal(oom.status, 'crashed');
  assert.match(oom.summary?.text, /memory/);
  const after = await gradeExercise('gelu', byId('gelu').solution);
  assertPassed(after); // the grader keeps working
});

test('mountExercise needs a DOM; in Node it refuses clearly', () => {
  assert.throws(() => mountExercise(null, 'gelu'), /container must be a DOM element/);
  assert.throws(() => mountExercise({ appendChild() {}, ownerDocument: {} }, 'nope'), /unknown exercise "nope"/);
  assert.throws(
    () => mountExercise({ appendChild() {}, ownerDocument: {} }, 'gelu'),
    /custom elements are not available/,
  );
});

test('an aborted run stops the worker', async () => {
  const ac = new AbortController();
  const p = gradeExercise('gelu', 'function gelu(x) { while (true) {} }', { signal: ac.signal, timeout: 10000 });
  setTimeout(() => ac.abort(), 100);
  const r = await p;
  assert.equal(r.status, 'aborted');
});

test('an oversized source is refused before it reaches a worker', async () => {
  const r = await gradeExercise('gelu', `// ${'x'.repeat(100001)}`);
  assert.equal(r.status, 'refused');
  assert.match(r.summary?.text, /the limit is 100000/);
  assert.ok(r.tests.every((t) => t.status === 'not-run'));
});

test(
  'the sandbox frame: one inline script and nothing else that runs or loads; its CSP allows inline script, eval ' +
    'and blob: workers, and no network; web/serve.js sends the same policy plus sandbox',
  async () => {
    const html = readFileSync(new URL('../../web/sandbox/run/frame.html', import.meta.url), 'utf8');
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    assert.equal(scripts.length, 1, 'one inline script');
    assert.equal((html.match(/<script\b/g) || []).length, 1, 'no other script element');
    // 'unsafe-inline' (a bundler may minify the script, which would break a hash) allows only what the document holds:
    // so no element besides the script, the head's metas and the title, no event handler, nothing with a URL
    const tags = [
      ...html
        .replace(/<script>[\s\S]*?<\/script>/, '')
        .replace(/<!--[\s\S]*?-->/g, '')
        .matchAll(/<([a-z][\w-]*)/gi),
    ].map((m) => m[1].toLowerCase());
    assert.deepEqual([...new Set(tags)].sort(), ['body', 'head', 'html', 'meta', 'title']);
    assert.doesNotMatch(html.replace(/<script>[\s\S]*?<\/script>/, ''), /\s(on\w+|src|href|srcset|action|data)=/i);
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)[1];
    const directives = Object.fromEntries(
      meta
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v]),
    );
    assert.deepEqual(directives['script-src'].sort(), ["'unsafe-inline'", "'unsafe-eval'", 'blob:'].sort());
    assert.deepEqual(directives['default-src'], ["'none'"]);
    assert.deepEqual(directives['connect-src'], ["'none'"]);
    assert.deepEqual(directives['worker-src'], ['blob:']);
    assert.ok(
      !('img-src' in directives) && !('font-src' in directives) && !('media-src' in directives),
      'everything else falls back to none',
    );
    // The frame checks worker.js's one import line by exact text: it must be the line worker.js has.
    const worker = readFileSync(new URL('../../web/sandbox/run/worker.js', import.meta.url), 'utf8');
    const line = /const IMPORT_LINE = "([^"]+)";/.exec(scripts[0])[1];
    assert.deepEqual(
      worker.split('\n').filter((l) => /^\s*import\b/.test(l)),
      [line],
    );
    const server = await startServer({ port: 0 });
    try {
      const res = await fetch(new URL('web/sandbox/run/frame.html', server.url));
      assert.equal(res.headers.get('content-security-policy'), `${meta}; sandbox allow-scripts`);
    } finally {
      await server.close();
    }
  },
);

test('bad grader arguments throw clear errors', async () => {
  await assert.rejects(() => gradeExercise('nope', ''), /unknown exercise "nope"/);
  await assert.rejects(() => gradeExercise('gelu', 42), TypeError);
  await assert.rejects(() => gradeExercise('gelu', '', { timeout: -1 }), RangeError);
});

test('progress store: versioned key, update, reset, export/import, blocked storage', () => {
  const mem = memoryStorage();
  const store = createProgressStore({ storage: mem });
  assert.equal(store.key, 'ffn-lab:sandbox:v1');
  store.update('gelu', { code: 'x', status: 'passed' });
  store.update('ffn', { code: 'y', status: 'attempted', hintsShown: 2 });
  assert.deepEqual(store.get('gelu'), { code: 'x', status: 'passed' });
  const json = exportProgress({ storage: mem });
  assert.equal(JSON.parse(json).format, 'ffn-lab-sandbox-progress');
  store.reset('gelu');
  assert.deepEqual(store.get('gelu'), {});
  assert.equal(store.get('ffn').hintsShown, 2);
  const other = memoryStorage();
  assert.equal(importProgress(json, { storage: other }), 2);
  assert.equal(createProgressStore({ storage: other }).get('gelu').status, 'passed');
  assert.throws(() => importProgress('{"format":"x"}', { storage: other }), /not an ffn-lab progress export/);
  assert.throws(() => importProgress('nope', { storage: other }), /not JSON/);
  // corrupted stored text is ignored, not fatal
  mem.setItem('ffn-lab:sandbox:v1', '{broken');
  assert.deepEqual(createProgressStore({ storage: mem }).get('ffn'), {});
  // a storage that throws on every access (blocked) falls back to memory and keeps working
  const blocked = {
    getItem() {
      throw new Error('SecurityError');
    },
    setItem() {
      throw new Error('SecurityError');
    },
    removeItem() {
      throw new Error('SecurityError');
    },
  };
  const b = createProgressStore({ storage: blocked, key: 'ffn-lab:sandbox:v1:blocked-test' });
  b.update('gelu', { code: 'z' });
  assert.equal(b.get('gelu').code, 'z');
  assert.equal(b.persistent, false);
});
