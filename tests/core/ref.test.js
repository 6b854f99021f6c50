// The float64 reference itself (tests/helpers/ref.js) against published values, so the other tests stand on known
// ground.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ref from '../helpers/ref.js';

const rel = (a, b) => Math.abs(a - b) / Math.abs(b);

test('erf/erfc match published values to ~1e-15 relative, including the far tail', () => {
  // Abramowitz & Stegun / DLMF tabulated values.
  const erf = [
    [0.1, 0.1124629160182849],
    [0.5, 0.5204998778130465],
    [1, 0.8427007929497149],
    [1.5, 0.9661051464753108],
    [2, 0.9953222650189527],
    [3, 0.9999779095030014],
  ];
  for (const [x, v] of erf) {
    assert.ok(rel(ref.erf(x), v) < 2e-15, `erf(${x})`);
    assert.ok(rel(ref.erf(-x), -v) < 2e-15, `erf(-${x})`);
  }
  const erfc = [
    [0.5, 0.4795001221869535],
    [2.5, 4.06952017444959e-4],
    [3, 2.209049699858544e-5],
    [5, 1.537459794428035e-12],
    [10, 2.088487583762545e-45],
  ];
  for (const [x, v] of erfc) assert.ok(rel(ref.erfc(x), v) < 4e-15, `erfc(${x}) = ${ref.erfc(x)} vs ${v}`);
  assert.equal(ref.erf(0), 0);
  assert.ok(Number.isNaN(ref.erf(NaN)));
  assert.equal(ref.erfc(-Infinity), 2);
  // continuity at the series / continued-fraction switch
  assert.ok(rel(ref.erfc(2.5 - 1e-12), ref.erfc(2.5)) < 1e-10);
});

test('normal CDF, sigmoid and the activations at known points', () => {
  assert.ok(rel(ref.normCdf(1), 0.8413447460685429) < 1e-15);
  assert.ok(rel(ref.normCdf(-5), 2.866515718791939e-7) < 1e-14);
  assert.equal(ref.sigmoidScalar(-1e4), 0);
  assert.equal(ref.sigmoidScalar(1e4), 1);
  assert.ok(rel(ref.act('silu', 1), 1 / (1 + Math.exp(-1))) < 1e-15);
  // tanh form written differently: 0.5 x (1 + tanh(u)) at a point without cancellation
  const x = 0.7;
  const u = Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3);
  assert.ok(rel(ref.act('gelu_tanh', x), 0.5 * x * (1 + Math.tanh(u))) < 1e-15);
  assert.equal(ref.act('relu2', -3), 0);
  assert.equal(ref.act('relu2', 3), 9);
});

test('reference counts reproduce the seeds', () => {
  assert.equal(ref.ffnParamCount(768, 3072), 4722432);
  assert.equal(ref.attentionParamCount(768), 2362368);
  assert.equal(ref.llamaHiddenDim(4096), 11008);
  assert.equal(ref.llamaHiddenDim(8192, { ffnDimMultiplier: 1.3, multipleOf: 4096 }), 28672);
  assert.equal(ref.llamaHiddenDim(4096, { ffnDimMultiplier: 1.3, multipleOf: 1024 }), 14336);
});
