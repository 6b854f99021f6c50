// The package as a site uses it: npm pack of a copy (prepack builds the wasm afresh), install the tarball offline into
// a temp project, import 'ffn-lab' and 'ffn-lab/sandbox' by name.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync, cpSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ref from '../helpers/ref.js';
import { relaxedByDefault, relaxedNodeArgs } from '../helpers/relaxed-node.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(join(tmpdir(), 'ffn-lab-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));

function run(cmd, args, cwd) {
  return new Promise((done, fail) => {
    execFile(
      cmd,
      args,
      { cwd, timeout: 120000, maxBuffer: 16 << 20, env: { ...process.env, npm_config_update_notifier: 'false' } },
      (err, stdout, stderr) => {
        if (err) fail(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`));
        else done(stdout);
      },
    );
  });
}

test(
  'npm pack -> offline install -> import ffn-lab by name -> forward pass ' + 'matches the float64 reference',
  async () => {
    // Pack from a copy of the package, so prepack's build never rewrites files other processes may be reading.
    const src = join(work, 'src-pkg');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    for (const entry of ['package.json', 'README.md', 'LICENSE', ...pkg.files.filter((f) => !f.startsWith('!'))]) {
      const from = join(ROOT, entry);
      if (existsSync(from))
        cpSync(from, join(src, entry), { recursive: true, filter: (f) => !f.includes('node_modules') });
    }
    // every file build.sh writes, so the tarball shows that prepack makes them (web/codes.js is also committed)
    const built = [
      'ffn.wasm',
      'ffn-wasm-inline.js',
      'ffn-relaxed.wasm',
      'ffn-relaxed-wasm-inline.js',
      'sandbox/run/sandbox-inline.js',
      'codes.js',
    ];
    for (const f of built) {
      rmSync(join(src, 'web', f), { force: true });
    }
    const packOut = await run('npm', ['pack', '--json', '--pack-destination', work], src);
    // stdout holds build.sh's log (prepack) followed by the JSON report
    const start = packOut.search(/^\[\s*\{/m);
    assert.ok(start >= 0, `npm pack --json printed no report:\n${packOut}`);
    const info = JSON.parse(packOut.slice(start));
    const files = info[0].files.map((f) => f.path);
    const shipped = [
      'package.json',
      'web/index.js',
      'web/ffn.js',
      'web/runtime.js',
      'web/inline-wasm.js',
      'web/heap.js',
      'web/args.js',
      'web/codes.js',
      'web/index.d.ts',
      'web/ffn.wasm',
      'web/ffn-wasm-inline.js',
      'web/ffn-relaxed.wasm',
      'web/ffn-relaxed-wasm-inline.js',
      'web/serve.js',
      'web/sandbox/run/sandbox-inline.js',
      'web/dist/boot.js',
    ];
    for (const f of shipped) {
      assert.ok(files.includes(f), `tarball ships ${f}`);
    }
    assert.ok(!files.some((f) => f.startsWith('tests/')), 'tests are not shipped');
    // what a user rebuilding the wasm needs ships; the programs that fitted the coefficients (src/fit/) do not
    const sources = readdirSync(join(ROOT, 'src')).filter((f) => /\.[ch]$/.test(f));
    assert.ok(sources.length >= 5, `src/ holds the kernels' sources: ${sources}`);
    for (const f of ['build.sh', ...sources.map((f) => `src/${f}`)]) assert.ok(files.includes(f), `tarball ships ${f}`);
    const fit = files.filter((f) => f.startsWith('src/fit/'));
    assert.deepEqual(fit, [], 'the coefficient fitting programs are not shipped');
    const tgz = join(work, info[0].filename);
    assert.ok(existsSync(tgz));

    const app = join(work, 'app');
    await run('mkdir', ['-p', app], work);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'site', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tgz], app);

    // The site's code: fixed small weights, GPT-2 style FFN (gelu_tanh) and a SwiGLU FFN, through both entries.
    const X = [
      [0.5, -1.25, 2],
      [-0.75, 0.25, 1],
    ];
    const W1 = [
      [0.2, -0.1, 0.4, 0.3],
      [-0.5, 0.6, 0.1, -0.2],
      [0.3, 0.2, -0.4, 0.5],
    ];
    const b1 = [0.1, -0.2, 0.05, 0];
    const W2 = [
      [0.1, 0.2, -0.3],
      [0.4, -0.5, 0.6],
      [-0.7, 0.8, 0.9],
      [0.15, -0.25, 0.35],
    ];
    const b2 = [0.01, 0.02, -0.03];
    const Wu = W1.map((r) => r.map((v) => -v / 2));
    const site = `
    import * as ffn from 'ffn-lab';
    import * as ffnUrl from 'ffn-lab/url';
    import { gradeExercise, getExercise } from 'ffn-lab/sandbox';
    await ffn.ready();
    const X = ${JSON.stringify(X)}, W1 = ${JSON.stringify(W1)}, b1 = ${JSON.stringify(b1)};
    const W2 = ${JSON.stringify(W2)}, b2 = ${JSON.stringify(b2)}, Wu = ${JSON.stringify(Wu)};
    const y = ffn.ffn(X, W1, b1, W2, b2);
    const s = ffnUrl.swigluFfn(X, W1, Wu, W2);
    const graded = await gradeExercise('ffn', getExercise('ffn').solution);
    console.log(JSON.stringify({
      y: Array.from(y.data), shape: y.shape, s: Array.from(s.data), params: ffn.ffnParamCount(768, 3072),
      graded: { passed: graded.passed, total: graded.total, worker: graded.status },
      url: import.meta.resolve('ffn-lab'), simd: ffn.wasmInfo().simd,
    }));
  `;
    writeFileSync(join(app, 'site.js'), site);
    // the same site in a Node running relaxed SIMD loads the tarball's ffn-relaxed.wasm
    const [out, outRelaxed] = await Promise.all([
      run(process.execPath, ['site.js'], app),
      run(process.execPath, [...(relaxedNodeArgs ?? []), 'site.js'], app),
    ]).then((outs) => outs.map((o) => JSON.parse(o)));
    assert.equal(out.simd, relaxedByDefault ? 'relaxed' : 'simd128');
    if (relaxedNodeArgs) assert.equal(outRelaxed.simd, 'relaxed');
    assert.equal(outRelaxed.graded.passed, true, 'the sandbox grades the reference solution on the relaxed build too');
    assert.ok(out.url.includes(join('node_modules', 'ffn-lab')), `resolved from node_modules: ${out.url}`);
    assert.deepEqual(out.shape, [2, 3]);
    assert.equal(out.params, 4722432);
    assert.equal(
      out.graded.passed,
      true,
      `the sandbox from the tarball grades the reference solution: ${JSON.stringify(out.graded)}`,
    );
    assert.ok(out.graded.total > 5);
    const y = ref.ffn(X, W1, b1, W2, b2, { activation: 'gelu_tanh' }).data;
    const s = ref.swigluFfn(X, W1, Wu, W2).data;
    for (let i = 0; i < y.length; i++) {
      assert.ok(Math.abs(out.y[i] - y[i]) < 1e-6, `ffn[${i}] ${out.y[i]} vs ${y[i]}`);
      assert.ok(Math.abs(out.s[i] - s[i]) < 1e-6, `swiglu[${i}] ${out.s[i]} vs ${s[i]}`);
      assert.ok(Math.abs(outRelaxed.y[i] - y[i]) < 1e-6, `relaxed ffn[${i}] ${outRelaxed.y[i]} vs ${y[i]}`);
      assert.ok(Math.abs(outRelaxed.s[i] - s[i]) < 1e-6, `relaxed swiglu[${i}] ${outRelaxed.s[i]} vs ${s[i]}`);
    }
  },
);
