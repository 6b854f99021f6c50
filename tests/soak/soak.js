// Soak: N mixed ffn-lab calls (default 1,000,000; tiny to medium shapes, failing calls, resident layers created and
// disposed), then the wasm and JS heap bounds.
//
//   node --expose-gc tests/soak/soak.js [--calls N] [--json]
//
// Bounds (checked at the end, exit 1 if broken), measured from the end of a warm-up (the first 2% of calls):
//   - wasm heap in use (ffn_heap_in_use) back to exactly its start value: nothing is held between calls;
//   - wasm memory does not grow at all after warm-up (0 bytes): no leak, no fragmentation creep;
//   - JS heap after a full GC grows by less than 8 MiB;
//   - every 1,000th call's result is bit-identical to the first run of the same call.
import * as ffn from 'ffn-lab';
import { rng, randTensor } from '../helpers/numeric.js';

const args = process.argv.slice(2);
const CALLS = Number(args[args.indexOf('--calls') + 1]) || 1_000_000;
const JSON_OUT = args.includes('--json');
const JS_HEAP_BOUND = 8 * 2 ** 20;

if (typeof globalThis.gc !== 'function') {
  console.error('soak: run with node --expose-gc');
  process.exit(2);
}

const r = rng(7);
const T = (shape) => randTensor(r, shape);

await ffn.ready();

// a fixed menu of calls over a few shapes from tiny (1 token, d = 3) to medium (16 tokens, d = 64, d_ff = 256)
const sizes = [
  { t: 1, d: 3, f: 5 },
  { t: 4, d: 8, f: 32 },
  { t: 7, d: 17, f: 45 },
  { t: 16, d: 64, f: 256 },
];
const menu = [];
for (const { t, d, f } of sizes) {
  const X = T([t, d]),
    W1 = T([d, f]),
    b1 = T([f]),
    W2 = T([f, d]),
    b2 = T([d]),
    Wu = T([d, f]),
    x = T([d]);
  const nested = Array.from({ length: t }, (_, i) => Array.from(X.data.subarray(i * d, (i + 1) * d)));
  // reused result arrays ({ out }), one per menu item: each call overwrites its own
  const outA = new Float32Array(t * d),
    outB = new Float32Array(t * d);
  menu.push(
    () => ffn.gelu(X),
    () => ffn.geluTanh(X, { out: outA }),
    () => ffn.activationGrad('silu', X, { out: outB }),
    () => ffn.silu(nested),
    () => ffn.activationGrad('gelu_tanh', X),
    () => ffn.matmul(X, W1),
    () => ffn.ffn(X, W1, b1, W2, b2),
    () => ffn.ffn(X, W1, null, W2, null, { activation: 'relu' }),
    () => ffn.gatedFfn(X, W1, Wu, W2, { activation: 'gelu' }),
    () => ffn.swigluFfn(X, W1, Wu, W2),
    () => ffn.swigluBackward(X, X, W1, Wu, W2),
    () => ffn.ffnMemories(x, W1, b1, W2, Math.min(3, f)),
  );
}
const failing = [
  () => ffn.ffn(T([2, 3]), T([4, 5]), null, T([5, 3]), null),
  () => ffn.matmul([[1, 2], [3]], T([2, 2])),
  () => ffn.ffnMemories(T([3]), T([3, 5]), null, T([5, 3]), 9),
  () => ffn.gelu('not a tensor'),
  () => ffn.silu(T([3]), { out: new Float32Array(2) }),
  () =>
    ffn.matmul(
      { data: new Float32Array(60000), shape: [60000, 1] },
      { data: new Float32Array(60000), shape: [1, 60000] },
    ),
];
const counts = [
  () => ffn.ffnParamCount(768, 3072),
  () => ffn.llamaHiddenDim(4096),
  () => ffn.ffnFlops(4096, 11008, { gated: true }),
];

// resident layers: created, used a few times and disposed every 2,000 calls
let layerCount = 0;
function layerRound() {
  const { d, f } = sizes[layerCount++ % sizes.length];
  const layers = [
    ffn.createLinear({ W: T([d, f]), b: T([f]), activation: 'relu' }),
    ffn.createFfn({ W1: T([d, f]), b1: T([f]), W2: T([f, d]), b2: T([d]) }),
    ffn.createGatedFfn({ Wg: T([d, f]), Wu: T([d, f]), Wd: T([f, d]) }),
  ];
  const X = T([5, d]);
  for (const L of layers) for (let i = 0; i < 3; i++) L.forward(X);
  for (const L of layers) L.dispose();
  return 9 + 6; // forwards + creates/disposes counted as calls
}

const firstResult = new Map();
const sameBits = (a, b) => {
  const ta = a.data || a.dX?.data || a.coef?.data,
    tb = b.data || b.dX?.data || b.coef?.data;
  if (typeof a === 'number') return a === b;
  if (!ta || ta.length !== tb.length) return false;
  const ua = new Uint32Array(ta.buffer, ta.byteOffset, ta.length),
    ub = new Uint32Array(tb.buffer, tb.byteOffset, tb.length);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return false;
  return true;
};

let calls = 0,
  errors = 0,
  checked = 0;
const warmup = Math.max(1000, Math.floor(CALLS * 0.02));
let start = null;
const t0 = Date.now();
function step(i) {
  const k = i % 100;
  if (i % 2000 === 1999) {
    calls += layerRound();
    return;
  }
  if (k < 3) {
    try {
      failing[((i / 100) | 0) % failing.length]();
      throw new Error('soak: a failing call succeeded');
    } catch (e) {
      if (!(e instanceof RangeError || e instanceof TypeError)) throw e;
      errors++;
    }
  } else if (k < 6) {
    counts[k - 3]();
  } else {
    const m = i % menu.length;
    const res = menu[m]();
    // re-check every 997th call: 997 is prime, so over the run it lands on every menu item (every 1000th
    // call would only ever land on items whose index is a multiple of gcd(1000, menu length))
    if (i % 997 === 0 || !firstResult.has(m)) {
      // a snapshot: an { out } result is the reused array itself, which later calls overwrite
      if (!firstResult.has(m)) firstResult.set(m, res.data ? { data: res.data.slice() } : res);
      else if (!sameBits(res, firstResult.get(m))) throw new Error(`soak: call ${i} (menu ${m}) changed its result`);
      checked++;
    }
  }
  calls++;
}

const samples = [];
for (let i = 0; i < CALLS;) {
  step(i);
  i++;
  if (i === warmup) {
    globalThis.gc();
    const h = ffn.heapStats();
    start = { heapInUse: h.heapInUse, memoryBytes: h.memoryBytes, jsHeap: process.memoryUsage().heapUsed };
  }
  if (i % Math.max(1, Math.floor(CALLS / 10)) === 0) {
    globalThis.gc();
    samples.push({
      call: i,
      heapInUse: ffn.heapStats().heapInUse,
      memoryBytes: ffn.heapStats().memoryBytes,
      jsHeap: process.memoryUsage().heapUsed,
    });
  }
}
globalThis.gc();
const h = ffn.heapStats();
const end = { heapInUse: h.heapInUse, memoryBytes: h.memoryBytes, jsHeap: process.memoryUsage().heapUsed };
const result = {
  build: ffn.wasmInfo().simd,
  calls,
  seconds: (Date.now() - t0) / 1000,
  refusedCalls: errors,
  layersCreated: layerCount * 3,
  resultsRechecked: checked,
  wasmHeapInUse: { start: start.heapInUse, end: end.heapInUse },
  wasmMemoryBytes: { start: start.memoryBytes, end: end.memoryBytes },
  jsHeapGrowthBytes: end.jsHeap - start.jsHeap,
  jsHeapBoundBytes: JS_HEAP_BOUND,
  samples,
};
const problems = [];
if (end.heapInUse !== start.heapInUse) problems.push(`wasm heap in use ${start.heapInUse} -> ${end.heapInUse}`);
if (end.memoryBytes !== start.memoryBytes) problems.push(`wasm memory grew ${start.memoryBytes} -> ${end.memoryBytes}`);
if (!(result.jsHeapGrowthBytes < JS_HEAP_BOUND)) problems.push(`JS heap grew ${result.jsHeapGrowthBytes} bytes`);
result.ok = problems.length === 0;
result.problems = problems;
if (JSON_OUT) console.log(JSON.stringify(result));
else {
  console.log(
    `soak: ${new Date().toISOString().slice(0, 10)} ` +
      `${result.build === 'relaxed' ? 'ffn-relaxed.wasm' : 'ffn.wasm'}: ${calls} calls in ` +
      `${result.seconds.toFixed(0)} s (${errors} refused, ${result.layersCreated} layers created and disposed); ` +
      `wasm heap in use ${start.heapInUse} -> ${end.heapInUse} B, ` +
      `wasm memory ${start.memoryBytes} -> ${end.memoryBytes} B, ` +
      `JS heap ${(result.jsHeapGrowthBytes / 2 ** 20).toFixed(2)} MiB (bound 8 MiB): ` +
      `${result.ok ? 'flat' : problems.join('; ')}`,
  );
}
process.exit(result.ok ? 0 : 1);
