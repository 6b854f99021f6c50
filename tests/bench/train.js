// The training section of the bench: the memory lab's model (createMemoryModel) against the same model, loss and Adam
// in tfjs-core on its wasm (XNNPACK) and cpu backends, interleaved; the step's GEMMs against the peak loop.
import { interleaved, pairedRatio, median } from './ort.js';
import { bestChains, against } from './core.js';
import { peakLoad, peakLoadLines, hostVerdict } from './peak.js';
import { syntheticFacts } from '../helpers/memory-model.js';

const now = () => performance.now();
/** The default lab: d 128, d_ff 512, full batch, AdamW at 0.03 with weight decay 0 (the comparison's). */
export const LAB = Object.freeze({ d: 128, dff: 512, activation: 'relu', seed: 1, lr: 0.03 });
/** The goals of issue 24: steps/s against tfjs-wasm, the step's GEMMs against the engine's peak loop. */
export const GOALS = Object.freeze({ vsTfjsWasm: 8, gemmOfPeak: 0.85 });

/** A synthetic set of the default lab's sizes: 1001 facts, 251 subjects x 4 relations, 479 objects. */
export function syntheticLabFacts() {
  const sizes = { subjects: 251, relations: 4, objects: 479 };
  const facts = syntheticFacts({ n: 1001, ...sizes, seed: 12345 });
  return { facts, nSubjects: sizes.subjects, nRelations: sizes.relations, nObjects: sizes.objects };
}

/**
 * The lab's facts: the countries table of <ffn-memory-lab> (web/components/memory-lab/facts.js) when that module
 * is there, else syntheticLabFacts(); importFacts() imports it (the page and Node resolve it differently).
 */
export async function labFacts(importFacts) {
  try {
    const m = await importFacts();
    const idx = m.indexFacts(m.countryFacts());
    const spec = { nSubjects: idx.subjects.length, nRelations: idx.relations.length, nObjects: idx.objects.length };
    return { facts: Int32Array.from(idx.triples), ...spec, source: 'countries-list (the lab default)' };
  } catch (e) {
    return { ...syntheticLabFacts(), source: `synthetic (the lab's fact table did not load: ${e.message})` };
  }
}

/**
 * The same model in tfjs-core on `backend`, from the weights w of a fresh ffn-lab model: forward, loss and the
 * backward written out in tfjs ops (tfjs-core alone registers no gradients; these are the ops its autodiff runs),
 * then tf.train.adam's applyGradients. step() -> the loss before the update (read, so every op has run).
 */
export function tfjsModel(tf, backend, w, spec) {
  tf.setBackend(backend); // synchronous for a backend already initialized
  const { d, dff } = spec;
  const N = spec.facts.length / 3;
  const V = spec.nObjects;
  const X = new Float32Array(N * d);
  const onehot = new Float32Array(N * V);
  for (let i = 0; i < N; i++) {
    const [s, r, o] = spec.facts.subarray(3 * i, 3 * i + 3);
    for (let k = 0; k < d; k++) X[i * d + k] = w.E_subject[s * d + k] + w.E_relation[r * d + k];
    onehot[i * V + o] = 1;
  }
  const c = {
    X: tf.tensor2d(X, [N, d]),
    U: tf.tensor2d(w.U, [V, d]),
    Y1: tf.tensor2d(onehot, [N, V]),
    W1: tf.variable(tf.tensor2d(w.W1, [d, dff])),
    b1: tf.variable(tf.tensor1d(w.b1)),
    W2: tf.variable(tf.tensor2d(w.W2, [dff, d])),
  };
  const opt = tf.train.adam(spec.lr, 0.9, 0.999, 1e-8);
  const step = () => {
    tf.setBackend(backend);
    const loss = tf.tidy(() => {
      const H = tf.add(tf.matMul(c.X, c.W1), c.b1);
      const A = tf.relu(H);
      const Y = tf.add(c.X, tf.matMul(A, c.W2));
      const Z = tf.matMul(Y, c.U, false, true);
      const lse = tf.logSumExp(Z, 1, true);
      const P = tf.exp(tf.sub(Z, lse));
      const L = tf.div(tf.sum(tf.mul(c.Y1, tf.sub(lse, Z))), N);
      const dZ = tf.div(tf.sub(P, c.Y1), N);
      const dY = tf.matMul(dZ, c.U);
      const dH = tf.mul(tf.matMul(dY, c.W2, false, true), tf.step(H));
      const grads = { W1: tf.matMul(c.X, dH, true, false), b1: tf.sum(dH, 0), W2: tf.matMul(A, dY, true, false) };
      opt.applyGradients(Object.entries(grads).map(([k, tensor]) => ({ name: c[k].name, tensor })));
      return L;
    });
    const v = loss.dataSync()[0];
    loss.dispose();
    return v;
  };
  return { step, dispose: () => (tf.setBackend(backend), tf.dispose(Object.values(c)), opt.dispose()) };
}

/**
 * The seven GEMMs of one full-batch step (shapes of memory_train_step) on raw exports, operands resident:
 * H = X W1, A W2, Y U^T, dZ U (gemm_forward on packed B), dW2 = A^T dY, dA = dY W2^T, dW1 = X^T dH (gemm_ex).
 * { run(), flops, each: [{ name, flops, call }] (the seven one by one), free() }.
 */
export function stepGemms(raw, N, d, dff, V) {
  const blocks = [];
  const take = (floats) => {
    const p = raw.malloc(floats * 4 + 64) >>> 0;
    if (!p) throw new Error('bench: out of wasm memory for the step GEMMs');
    blocks.push(p);
    const a = ((p + 63) & -64) >>> 0;
    new Float32Array(raw.memory.buffer, a, floats).fill(0.01);
    return a;
  };
  const big = Math.max(dff, V);
  const A = take(N * big);
  const B = take(N * big);
  const C = take(N * big);
  const P = take(raw.gemm_packed_size(big, big));
  const w = take(raw.gemm_work_size(N, big));
  // each [name, M, K, N, call]: five products of N d dff multiply-adds, two of N d V (0.90 GFLOP at the lab's sizes)
  const fwd = (name, M, K, Nn) => [name, M, K, Nn, () => raw.gemm_forward(C, A, P, 0, M, K, Nn, 0, w)];
  const ex = (name, tA, tB, M, K, Nn) => [name, M, K, Nn, () => raw.gemm_ex(C, A, tA, B, tB, M, K, Nn, 0)];
  const gemms = [fwd('X W1', N, d, dff), fwd('A W2', N, dff, d), fwd('Y U^T', N, d, V), fwd('dZ U', N, V, d)];
  gemms.push(ex('A^T dY', 1, 0, dff, N, d), ex('dY W2^T', 0, 1, N, d, dff), ex('X^T dH', 1, 0, d, N, dff));
  const each = gemms.map(([name, M, K, Nn, call]) => ({ name, flops: 2 * M * K * Nn, call }));
  const flops = each.reduce((s, g) => s + g.flops, 0);
  return {
    run() {
      for (const g of each) if (g.call() !== 0) throw new Error('bench: a step GEMM failed');
    },
    flops,
    each,
    free: () => blocks.forEach((p) => raw.free(p)),
  };
}

/** Steps of model.train(1) until evaluate() stores >= 99 %: { steps, ms } (ms: the train calls only). */
function stepsTo99(model, max = 200) {
  let ms = 0;
  for (let s = 1; s <= max; s++) {
    const t0 = now();
    model.train(1);
    ms += now() - t0;
    if (model.evaluate().accuracy >= 0.99) return { steps: s, ms };
  }
  return { steps: Infinity, ms };
}

const f1 = (v) => v.toFixed(1);
const f2 = (v) => v.toFixed(2);

/**
 * The training section. ffn: ffn-lab (ready); raw: its exports; tf: tfjs-core with the 'wasm' and 'cpu' backends
 * registered; probe: probe.wasm's exports (the peak loop); importFacts: () => import of the lab's facts module.
 * Logs the section and returns its figures.
 */
export async function runTrainBench({ ffn, raw, tf, probe, quick = false, log = console.log, importFacts }) {
  const spec0 = await labFacts(importFacts);
  const spec = { ...spec0, d: LAB.d, dff: LAB.dff, lr: LAB.lr };
  const N = spec.facts.length / 3;
  const V = spec.nObjects;
  const opts = {
    facts: spec.facts,
    nSubjects: spec.nSubjects,
    nRelations: spec.nRelations,
    nObjects: V,
    d: LAB.d,
    dff: LAB.dff,
    activation: LAB.activation,
    seed: LAB.seed,
    optimizer: { lr: LAB.lr, weightDecay: 0 },
  };
  log('');
  log(`## Training: the memory lab's model, ${N} facts over ${V} objects (${spec.source})`);
  log(`d ${LAB.d}, d_ff ${LAB.dff}, ReLU, full batch, Adam lr ${LAB.lr} (weight decay 0), seed ${LAB.seed}`);
  const model = ffn.createMemoryModel(opts);
  const w = model.copyWeights();
  // the same model: tfjs's first losses from the same weights agree with ffn-lab's to float32 accuracy
  const tfw = tfjsModel(tf, 'wasm', w, spec);
  const tfc = tfjsModel(tf, 'cpu', w, spec);
  const first = [model.train(1).loss, tfw.step(), tfc.step()];
  const agree = Math.max(Math.abs(first[1] - first[0]), Math.abs(first[2] - first[0])) / first[0];
  log(
    `first-step loss: ffn-lab ${first[0].toFixed(6)}, tfjs-wasm ${first[1].toFixed(6)}, tfjs-cpu ` +
      `${first[2].toFixed(6)} (relative difference ${agree.toExponential(1)})`,
  );
  if (!(agree < 1e-4)) throw new Error('bench: tfjs and ffn-lab do not compute the same first loss');
  const ours = () => model.train(1);
  const reps = quick ? 3 : 7;
  const m = await interleaved([ours, tfw.step, tfc.step], { batchMs: 200, reps, warmMs: 300 });
  const vsWasm = pairedRatio(m, 0, 1);
  const vsCpu = pairedRatio(m, 0, 2);
  log(
    `steps/s: ffn-lab ${f1(1 / m[0])} (${f1(1e3 * m[0])} ms), tfjs-wasm ${f2(1 / m[1])} (${f1(1e3 * m[1])} ms), ` +
      `tfjs-cpu ${f2(1 / m[2])} (${f1(1e3 * m[2])} ms), medians of ${reps} interleaved rounds`,
  );
  log(`ratio: ${f1(vsWasm)}x tfjs-wasm, ${f1(vsCpu)}x tfjs-cpu (round by round)`);
  // the fastest round of each: the least load any round saw (the medians carry the host's load)
  const best = m.rounds.map((r) => Math.min(...r));
  log(
    `fastest rounds: ffn-lab ${f1(1e3 * best[0])} ms (${f1(1 / best[0])} steps/s), ` +
      `tfjs-wasm ${f1(1e3 * best[1])} ms, tfjs-cpu ${f1(1e3 * best[2])} ms; ` +
      `ratios ${f1(best[1] / best[0])}x and ${f1(best[2] / best[0])}x`,
  );
  tfw.dispose();
  tfc.dispose();
  const gemm = await gemmShare({ raw, probe, model, N, V, quick, log });
  const fresh = ffn.createMemoryModel(opts);
  const to99 = stepsTo99(fresh);
  fresh.dispose();
  model.dispose();
  log(
    `to store >= 99 % from seed ${LAB.seed}: ${to99.steps} steps, ${f1(to99.ms)} ms of training ` +
      `(${f1(to99.ms / to99.steps)} ms a step)`,
  );
  const met = (ok) => (ok ? 'met' : 'NOT met');
  log(
    `targets: >= ${GOALS.vsTfjsWasm}x tfjs-wasm ${met(vsWasm >= GOALS.vsTfjsWasm)}; GEMMs >= ${GOALS.gemmOfPeak} ` +
      `of peak ${met(gemm.gemmOfPeak >= GOALS.gemmOfPeak)}; host: ${hostVerdict(gemm.host)}`,
  );
  return { stepsPerS: 1 / m[0], vsWasm, vsCpu, ...gemm, to99 };
}

/** The step's GEMMs timed with the step and the peak loop: their share of the step and of the peak. */
async function gemmShare({ raw, probe, model, N, V, quick, log }) {
  probe._initialize?.();
  const ch = await bestChains((c) => probe[`peak${c}`]);
  const iters = 100000;
  const peakFn = () => probe[`peak${ch}`](iters, 0.999);
  const g = stepGemms(raw, N, LAB.d, LAB.dff, V);
  try {
    const m = await interleaved([() => model.train(1), g.run, peakFn], {
      batchMs: 100,
      reps: quick ? 5 : 11,
      warmMs: 100,
    });
    const share = median(m.rounds[1].map((t, r) => t / m.rounds[0][r]));
    const peakFlops = ch * 8 * iters;
    const ofPeak = (g.flops * pairedRatio(m, 1, 2)) / peakFlops;
    const load = peakLoad(m.rounds[2].map((t) => peakFlops / t / 1e9));
    log(
      `GEMMs of a step: ${f1(1e3 * m[1])} ms of ${f1(1e3 * m[0])} (share ${f2(share)}), ` +
        `${f1(g.flops / m[1] / 1e9)} GFLOPS = ${against(ofPeak, GOALS.gemmOfPeak)} of the peak loop ` +
        `(${f1(load.median)} GFLOPS)`,
    );
    log(`the step: ${f2(g.flops / 1e9)} GFLOP in its GEMMs, ${f1(g.flops / m[0] / 1e9)} GFLOPS overall`);
    for (const l of peakLoadLines(load)) log(l);
    // each product alone, repeated (its operands stay in cache between calls): where the step's GEMMs lose
    const one = await interleaved([...g.each.map((e) => e.call), peakFn], {
      batchMs: 50,
      reps: quick ? 3 : 7,
      warmMs: 50,
    });
    const ofEach = g.each.map((e, i) => `${e.name} ${f2((e.flops * pairedRatio(one, i, g.each.length)) / peakFlops)}`);
    log(`each GEMM alone, of the peak loop: ${ofEach.join(', ')}`);
    return { gemmShare: share, gemmOfPeak: ofPeak, host: load };
  } finally {
    g.free();
  }
}
