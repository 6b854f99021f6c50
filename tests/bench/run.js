// npm run bench: ffn-lab vs XNNPACK and onnxruntime-web in Node, --browser in Chromium, --engines in jsc, gjs and node.
// --quick for a short run, --no-ort without onnxruntime-web, --act-only the activations, --train only the training
// section (createMemoryModel against tfjs), --pages only the pages' summary (long tasks, Runs); method: README.md here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runBench, runActivationSection, benchOpts } from './core.js';
import { configureOrt } from './ort.js';
import { tfjsWasmNode } from './activations.js';
import { runEngines } from './engines.js';
import { saveRun } from './results.js';
import { runTrainBench } from './train.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const browser = args.has('--browser');
const noOrt = args.has('--no-ort');
const actOnly = args.has('--act-only'); // only the activation section (with its anchors)
const engines = args.has('--engines');
const trainOnly = args.has('--train'); // only the training section (tests/bench/train.js)
const labOnly = args.has('--lab'); // only the memory lab in Chromium (tests/bench/lab.js)
const withTrain = !actOnly && !engines; // the training section runs in every full Node and Chromium run

// everything the run prints, saved to its dated results file at the end
const printed = [];
const log = (s = '') => {
  console.log(s);
  printed.push(s);
};
let config = 'node';

if (labOnly) {
  // <ffn-memory-lab> trained by its Train button in headless Chromium: time to >= 99 % stored, longest task
  const name = await (await import('./lab.js')).runLabBench({ quick, log });
  console.log(`\nbench: saved to ${saveRun(name, printed)}`);
  process.exit(0);
}

// --pages: only the pages' summary (tests/bench/pages.js): the longest task per page, the Runs against both floors
if (args.has('--pages')) {
  await (await import('./pages.js')).runPagesSummary({ quick, log });
  console.log(`\nbench: saved to ${saveRun(`pages-summary${quick ? '-quick' : ''}`, printed)}`);
  process.exit(0);
}

/** The bytes of dir/name after build(dir) writes it, dir a temporary folder removed afterwards. */
function buildInTmp(name, build) {
  const dir = mkdtempSync(join(tmpdir(), 'ffn-bench-'));
  try {
    build(dir);
    return readFileSync(join(dir, name));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const quiet = { stdio: ['ignore', 'ignore', 'inherit'] };

/** probe.wasm (peak and streaming anchors), compiled with the same emcc as the kernels. */
const buildProbe = () =>
  buildInTmp('probe.wasm', (dir) =>
    execFileSync(
      'emcc',
      [
        '-O3',
        '-msimd128',
        join(here, 'probe.c'),
        '-o',
        join(dir, 'probe.wasm'),
        '--no-entry',
        '-sSTANDALONE_WASM',
        '-sALLOW_MEMORY_GROWTH',
        '-sMAXIMUM_MEMORY=1073741824',
        '-sFILESYSTEM=0',
      ],
      quiet,
    ),
  );

/** probe-relaxed.wasm (the relaxed-SIMD madd peak), compiled with clang-16 as build.sh compiles ffn-relaxed.wasm
 * (compile, then wasm-ld-16: the clang driver would run binaryen's wasm-opt, which rejects relaxed SIMD). */
const buildRelaxedProbe = () =>
  buildInTmp('probe-relaxed.wasm', (dir) => {
    const obj = join(dir, 'probe-relaxed.o');
    execFileSync(
      'clang-16',
      ['--target=wasm32', '-O3', '-msimd128', '-mrelaxed-simd', '-c', join(here, 'probe-relaxed.c'), '-o', obj],
      quiet,
    );
    execFileSync('wasm-ld-16', ['--no-entry', obj, '-o', join(dir, 'probe-relaxed.wasm')], quiet);
  });

const probeBytes = buildProbe();
const maddProbeBytes = buildRelaxedProbe();
const cpu = cpus()[0]?.model?.trim() || 'unknown CPU';

if (engines) {
  config = 'engines';
  await runEngines({ probeBytes, quick, log, env: `${cpu}, ${new Date().toISOString().slice(0, 16)}Z` });
} else if (!browser) {
  const ffn = await import('ffn-lab');
  await ffn.ready();
  const { wasm } = await import(pathToFileURL(join(root, 'web/runtime.js')).href);
  const raw = wasm('bench').exports;
  const { tf, tfw } = await tfjsWasmNode();
  await import('@tensorflow/tfjs-backend-cpu'); // the training section's second anchor: tfjs on its cpu backend
  await tf.setBackend('cpu');
  await tf.setBackend('wasm');
  if (!tf.env().getBool('WASM_HAS_SIMD_SUPPORT')) throw new Error('bench: tfjs-wasm has no SIMD here');
  const { instance } = await WebAssembly.instantiate(probeBytes, { env: { emscripten_notify_memory_growth() {} } });
  const maddProbe = WebAssembly.validate(maddProbeBytes)
    ? (await WebAssembly.instantiate(maddProbeBytes)).instance.exports
    : null;
  // onnxruntime-web (devDependency): Node resolves its ort.node build, which loads dist/ort-wasm-simd-threaded.wasm
  let ort = null;
  if (!noOrt && !trainOnly) {
    try {
      ort = await import('onnxruntime-web');
      configureOrt(ort);
    } catch (e) {
      console.error(`bench: onnxruntime-web not available (${e.message}); run npm ci`);
    }
  }
  const ortTxt = ort ? `, onnxruntime-web ${ort.env.versions.web} threads ${ort.env.wasm.numThreads} SIMD on` : '';
  const env =
    `Node ${process.versions.node} (V8 ${process.versions.v8}), ${cpu}, tfjs-wasm ${tfw.version_wasm} threads ` +
    `${tfw.getThreadsCount()} SIMD on${ortTxt}, ${new Date().toISOString().slice(0, 16)}Z`;
  if (actOnly) {
    log(`# ffn-lab activations ${quick ? '(--quick) ' : ''}${env}`);
    await runActivationSection({ ffn, raw, tf, ort, opts: benchOpts(quick), log });
  } else if (trainOnly) log(`# ffn-lab training ${quick ? '(--quick) ' : ''}${env}`);
  else await runBench({ ffn, raw, tf, probe: instance.exports, maddProbe, ort, quick, env, log });
  if (withTrain) {
    const facts = () => import(pathToFileURL(join(root, 'web/components/memory-lab/facts.js')).href);
    await runTrainBench({ ffn, raw, tf, probe: instance.exports, quick, log, importFacts: facts });
  }
  config = `node${process.versions.node.split('.')[0]}${ffn.wasmInfo().simd === 'relaxed' ? '-relaxed' : ''}`;
} else {
  const { startServer } = await import(pathToFileURL(join(root, 'web/serve.js')).href);
  const { launchBrowser } = await import(pathToFileURL(join(root, 'tests/helpers/browser.js')).href);
  const server = await startServer({ root, port: 0, host: '127.0.0.1' });
  const b = await launchBrowser();
  try {
    const page = await b.newPage();
    page.on('console', (m) => log(m.text()));
    page.on('pageerror', (e) => console.error('page error:', e.message));
    page.on('response', (r) => r.status() >= 400 && console.error(`bench page: HTTP ${r.status()} for ${r.url()}`));
    // everything the page loads comes from the local server (no network)
    page.on(
      'request',
      (r) =>
        !r.url().startsWith(server.url) &&
        !r.url().startsWith('data:') &&
        console.error(`bench page: request outside the local server: ${r.url()}`),
    );
    await page.goto(`${server.url}tests/bench/page.html`);
    await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60000 });
    const version = `Chrome/${await b.version()}`;
    config = `chromium${String(version).match(/\d+/)?.[0] ?? ''}`;
    const res = await page.evaluate(
      async ({ probe, madd, quick: q, env, useOrt, act, train }) =>
        window.runBenchInPage(probe, madd, q, env, useOrt, act, train),
      {
        probe: probeBytes.toString('base64'),
        madd: maddProbeBytes.toString('base64'),
        quick,
        env: `headless Chromium (${version}), ${cpu}`,
        useOrt: !noOrt && !trainOnly,
        act: actOnly,
        train: trainOnly ? 'only' : withTrain,
      },
    );
    if (res && res.error) throw new Error(res.error);
  } finally {
    await b.close();
    await server.close();
  }
}
// Course sites (tests/bench/sites.js): bytes to ready and Run-to-verdict per site; inline vs file sandbox frame.
if (browser && !actOnly && !trainOnly) await (await import('./sites.js')).runSitesBench({ quick, log });
// The course page and the embed pages (tests/bench/pages.js): the first second, and Runs against the floor.
if (browser && !actOnly && !trainOnly) await (await import('./pages.js')).runPagesBench({ quick, log });
// The memory lab (tests/bench/lab.js): Train to >= 99 % stored, the longest main-thread task meanwhile.
if (browser && !actOnly && !trainOnly) await (await import('./lab.js')).runLabBench({ quick, log });
if (printed.length) {
  const name = `${config}${actOnly ? '-act' : ''}${trainOnly ? '-train' : ''}${quick ? '-quick' : ''}`;
  console.log(`\nbench: saved to ${saveRun(name, printed)}`);
}
