// Type-level use of the core entry points (ffn-lab, ffn-lab/url), checked by tsc in tests/core/types.test.js.
import * as ffn from 'ffn-lab';
import { ready as readyUrl } from 'ffn-lab/url';

async function main(): Promise<void> {
  await ffn.ready();
  await readyUrl({ wasm: new URL('file:///tmp/ffn.wasm') });
  const x: ffn.Tensor = ffn.tensor([1, 2, 3, 4], [2, 2]);
  const y: ffn.Tensor = ffn.gelu(x);
  const g: ffn.Tensor = ffn.activationGrad('gelu_tanh', [[0.5, -1]]);
  const buf = new Float32Array(4);
  const y2: Float32Array = ffn.geluTanh(x, { out: buf }).data;
  const g2: ffn.Tensor = ffn.activationGrad('silu', x, { out: buf });
  void [y2, g2, ffn.relu(x, {}), ffn.silu(buf, { out: buf })];
  const W1 = ffn.tensor(new Float32Array(8), [2, 4]);
  const W2 = ffn.tensor(new Float32Array(8), [4, 2]);
  const out: ffn.Tensor = ffn.ffn(x, W1, null, W2, null, { activation: 'relu' });
  const gated: ffn.Tensor = ffn.gatedFfn(x, W1, W1, W2, { activation: 'gelu' });
  const back = ffn.swigluBackward(x, x, W1, W1, W2);
  const dWg: ffn.Tensor = back.dWGate;
  const mem = ffn.ffnMemories([1, 0], W1, [0, 0, 0, 0], W2, 2);
  const top: Int32Array = mem.top;
  const n: number =
    ffn.ffnParamCount(768, 3072, { bias: true, gated: false }) +
    ffn.llamaHiddenDim(4096, { multipleOf: 256, ffnDimMultiplier: null }) +
    ffn.ffnFlops(768, 3072, { gated: true });
  const layer = ffn.createLinear({ W: W1, b: null, activation: 'silu' });
  const z: ffn.Tensor = layer.forward(x);
  const z2: Float32Array = layer.forward(x, { out: new Float32Array(z.data.length) }).data;
  void z2;
  layer.dispose();
  void [y, g, out, gated, dWg, top, n, z];
}
void main;

/** The resident trainer: options, results and views as a consumer uses them. */
function trainer(): number {
  const model: ffn.MemoryModel = ffn.createMemoryModel({
    facts: { subjects: [0, 1], relations: [0, 0], objects: [1, 0] },
    d: 8,
    dff: 16,
    optimizer: { lr: 0.01, weightDecay: 0 },
  });
  const r: ffn.MemoryStepResult = model.train(2, { batch: new Int32Array([0, 1]) });
  const ev: Int32Array = model.evaluate().predictions;
  const W2: Float32Array = model.weights().W2;
  const token: ffn.MemorySnapshot = model.snapshot();
  model.setWeights({ b1: new Float32Array(16) });
  model.restore(token);
  const X: ffn.Tensor = ffn.spdSolve(
    [
      [2, 0],
      [0, 2],
    ],
    [1, 1],
  );
  const W: ffn.Tensor = ffn.rankOneUpdate([[1, 0]], [1], [0, 1], 0.5);
  model.dispose();
  return r.loss + ev.length + W2.length + model.hidden(0).length + X.data[0] + W.data[1] + ffn.MEMORY_LIMITS.dff;
}
void trainer;

// @ts-expect-error: unknown activation names are rejected at compile time
ffn.activationGrad('tanh', [1]);

// @ts-expect-error: opts.out must be a Float32Array
ffn.gelu([1], { out: new Float64Array(1) });
