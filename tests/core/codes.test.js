// web/codes.js (written by build.sh) holds src/ffn.h's activation, status and GEMM microkernel codes, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ACT_CODES, STATUS, GEMM_KERNELS } from '../../web/codes.js';
import { activations } from 'ffn-lab';

/** every `FFN_NAME = value` of the header, in the order it lists them (comments removed) */
const header = readFileSync(new URL('../../src/ffn.h', import.meta.url), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
const constants = [...header.matchAll(/\b(FFN_[A-Z0-9_]+)\s*=\s*(-?\d+)/g)].map((m) => [m[1], Number(m[2])]);
const withPrefix = (p) => constants.filter(([n]) => n.startsWith(p));

test('web/codes.js has the codes of src/ffn.h, in its order', () => {
  const acts = withPrefix('FFN_ACT_').filter(([n]) => n !== 'FFN_ACT_COUNT');
  assert.deepEqual(
    Object.entries(ACT_CODES),
    acts.map(([n, v]) => [n.slice(8).toLowerCase(), v]),
  );
  assert.equal(acts.length, constants.find(([n]) => n === 'FFN_ACT_COUNT')[1]);
  const status = [['FFN_OK', 0], ...withPrefix('FFN_E')];
  assert.deepEqual(
    Object.entries(STATUS),
    status.map(([n, v]) => [n.slice(4), v]),
  );
  const kernels = withPrefix('FFN_GEMM_');
  assert.deepEqual(
    [...GEMM_KERNELS],
    kernels.map(([n]) => n.slice(9).toLowerCase()),
  );
  kernels.forEach(([, v], i) => assert.equal(v, i, 'GEMM_KERNELS is indexed by code'));
  // the figures the kernels' callers rely on
  assert.equal(ACT_CODES.gelu_tanh, 6);
  assert.equal(STATUS.ENOMEM, -2);
});

test('the public activation list is every code of src/ffn.h, identity last', () => {
  assert.deepEqual([...activations].sort(), Object.keys(ACT_CODES).sort());
  assert.equal(activations.at(-1), 'identity');
});
