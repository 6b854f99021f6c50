// Bad input through 'ffn-lab': errors before ready(), every bad-input class with its documented message, and the module
// still working after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import * as ref from '../helpers/ref.js';

// This file runs in its own process (node --test), so the first test really runs before ready().
test('every function throws a clear Error before ready()', () => {
  const calls = {
    heapStats: () => ffn.heapStats(),
    relu: () => ffn.relu([1]),
    relu2: () => ffn.relu2([1]),
    sigmoid: () => ffn.sigmoid([1]),
    silu: () => ffn.silu([1]),
    gelu: () => ffn.gelu([1]),
    geluTanh: () => ffn.geluTanh([1]),
    geluSigmoid: () => ffn.geluSigmoid([1]),
    activationGrad: () => ffn.activationGrad('gelu', [1]),
    matmul: () => ffn.matmul([[1]], [[1]]),
    ffn: () => ffn.ffn([[1]], [[1]], null, [[1]], null),
    gatedFfn: () => ffn.gatedFfn([[1]], [[1]], [[1]], [[1]]),
    swigluFfn: () => ffn.swigluFfn([[1]], [[1]], [[1]], [[1]]),
    swigluBackward: () => ffn.swigluBackward([[1]], [[1]], [[1]], [[1]], [[1]]),
    ffnMemories: () => ffn.ffnMemories([1], [[1]], null, [[1]], 1),
    ffnParamCount: () => ffn.ffnParamCount(768, 3072),
    llamaHiddenDim: () => ffn.llamaHiddenDim(4096),
    ffnFlops: () => ffn.ffnFlops(768, 3072),
  };
  for (const [name, call] of Object.entries(calls)) {
    assert.throws(call, (e) => {
      assert.equal(e.constructor, Error, name);
      assert.match(e.message, /call await ready\(\) first/, name);
      assert.ok(e.message.includes(name), `${name}: message names the function: ${e.message}`);
      return true;
    });
  }
  // Even bad input reports "not ready" first: the caller's problem is the missing await.
  assert.throws(() => ffn.matmul('nope', 1), /ready\(\) first/);
  // tensor() needs no wasm.
  assert.deepEqual(ffn.tensor([1, 2], [2]).shape, [2]);
});

test('ready() rejects a bad source with a TypeError, stays retryable, and is memoized', async () => {
  await assert.rejects(ffn.ready({ wasm: 42 }), (e) => e instanceof TypeError && /opts\.wasm/.test(e.message));
  await assert.rejects(ffn.ready({ wasm: new Uint8Array([1, 2, 3]) }), /could not instantiate/);
  assert.throws(() => ffn.ready('fast'), TypeError);
  const p1 = ffn.ready();
  const p2 = ffn.ready();
  assert.equal(p1, p2, 'one memoized promise');
  await p1;
  assert.equal(ffn.ready({ wasm: 42 }), p1, 'options are ignored once loaded');
  assert.deepEqual(Array.from(ffn.relu([-1, 2]).data), [0, 2]);
});

function expectError(fn, Type, pieces) {
  let caught;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught, `expected a ${Type.name} containing ${JSON.stringify(pieces)}`);
  assert.equal(caught.constructor, Type, `${caught.constructor.name}: ${caught.message}`);
  for (const p of pieces) {
    assert.ok(
      caught.message.includes(p),
      `message ${JSON.stringify(caught.message)} should contain ${JSON.stringify(p)}`,
    );
  }
}

const m = (r, c, v = 0.1) => ({ data: new Float32Array(r * c).fill(v), shape: [r, c] });

// After every error the module must still compute correctly and hold no heap.
function stillWorks() {
  const X = [
    [0.5, -1, 2],
    [1, 0, -0.25],
  ];
  const W1 = [
    [0.1, 0.2],
    [0.3, -0.4],
    [0.5, 0.6],
  ];
  const W2 = [
    [1, 0, -1],
    [0.5, 0.5, 0.5],
  ];
  const y = ffn.ffn(X, W1, [0.1, -0.1], W2, [0, 1, 0]).data;
  const want = ref.ffn(X, W1, [0.1, -0.1], W2, [0, 1, 0]).data;
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(y[i] - want[i]) < 1e-6);
  assert.equal(ffn.heapStats().heapInUse, 0, 'no heap held after an error');
}

const CASES = [
  // [description, call, error type, message pieces]
  [
    'the issue example',
    () => ffn.ffn(m(1, 8), m(7, 16), null, m(16, 8), null),
    RangeError,
    ["ffn: W1 has shape [7,16] but X's last dimension is 8"],
  ],
  [
    'matmul inner dims',
    () => ffn.matmul(m(2, 4), m(3, 2)),
    RangeError,
    ['matmul', 'B', '[3,2]', "A's last dimension is 4"],
  ],
  ['matmul B not 2-D', () => ffn.matmul(m(2, 4), [1, 2, 3, 4]), RangeError, ['matmul', 'B', '[4]', '2 dimensions']],
  ['matmul A scalar', () => ffn.matmul({ data: [1], shape: [] }, m(1, 1)), RangeError, ['matmul', 'A', '[]']],
  ['ffn W1 not 2-D', () => ffn.ffn(m(1, 4), [1, 2, 3, 4], null, m(4, 4), null), RangeError, ['ffn', 'W1', '[4]']],
  ['ffn b1', () => ffn.ffn(m(2, 4), m(4, 6), [1, 2, 3], m(6, 4), null), RangeError, ['ffn', 'b1', '[3]', '[6]']],
  ['ffn W2', () => ffn.ffn(m(2, 4), m(4, 6), null, m(4, 6), null), RangeError, ['ffn', 'W2', '[4,6]', '[6,4]']],
  ['ffn b2', () => ffn.ffn(m(2, 4), m(4, 6), null, m(6, 4), [1, 2]), RangeError, ['ffn', 'b2', '[2]', '[4]']],
  [
    'ffn unknown activation',
    () => ffn.ffn(m(1, 2), m(2, 2), null, m(2, 2), null, { activation: 'swish' }),
    RangeError,
    ['ffn', "'swish'", "'gelu_tanh'"],
  ],
  [
    'ffn activation not a string',
    () => ffn.ffn(m(1, 2), m(2, 2), null, m(2, 2), null, { activation: 3 }),
    TypeError,
    ['ffn', 'activation'],
  ],
  [
    'ffn options not an object',
    () => ffn.ffn(m(1, 2), m(2, 2), null, m(2, 2), null, 'gelu'),
    TypeError,
    ['ffn', 'options'],
  ],
  [
    'gatedFfn Wg',
    () => ffn.gatedFfn(m(2, 4), m(5, 6), m(4, 6), m(6, 4)),
    RangeError,
    ['gatedFfn', 'Wg', '[5,6]', "X's last dimension is 4"],
  ],
  [
    'gatedFfn Wu',
    () => ffn.gatedFfn(m(2, 4), m(4, 6), m(4, 5), m(6, 4)),
    RangeError,
    ['gatedFfn', 'Wu', '[4,5]', '[4,6]'],
  ],
  [
    'gatedFfn Wd',
    () => ffn.gatedFfn(m(2, 4), m(4, 6), m(4, 6), m(4, 6)),
    RangeError,
    ['gatedFfn', 'Wd', '[4,6]', '[6,4]'],
  ],
  [
    'gatedFfn unknown activation',
    () => ffn.gatedFfn(m(1, 2), m(2, 2), m(2, 2), m(2, 2), { activation: 'tanh' }),
    RangeError,
    ['gatedFfn', "'tanh'"],
  ],
  [
    'swigluFfn Wd',
    () => ffn.swigluFfn(m(2, 4), m(4, 6), m(4, 6), m(6, 3)),
    RangeError,
    ['swigluFfn', 'Wd', '[6,3]', '[6,4]'],
  ],
  [
    'swigluBackward dY',
    () => ffn.swigluBackward(m(3, 4), m(2, 4), m(4, 6), m(4, 6), m(6, 4)),
    RangeError,
    ['swigluBackward', 'dY', '[3,4]', '[2,4]'],
  ],
  [
    'swigluBackward X vs Wg',
    () => ffn.swigluBackward(m(2, 5), m(2, 5), m(4, 6), m(4, 6), m(6, 4)),
    RangeError,
    ['swigluBackward', 'Wg', '[4,6]', "X's last dimension is 5"],
  ],
  [
    'ffnMemories x 2 tokens',
    () => ffn.ffnMemories(m(2, 4), m(4, 6), null, m(6, 4), 1),
    RangeError,
    ['ffnMemories', 'x', '[2,4]', '[d]'],
  ],
  [
    'ffnMemories k too large',
    () => ffn.ffnMemories([1, 2, 3, 4], m(4, 6), null, m(6, 4), 7),
    RangeError,
    ['ffnMemories', 'k is 7', 'd_ff = 6'],
  ],
  [
    'ffnMemories k negative',
    () => ffn.ffnMemories([1, 2, 3, 4], m(4, 6), null, m(6, 4), -1),
    RangeError,
    ['ffnMemories', 'k is -1'],
  ],
  [
    'ffnMemories k fractional',
    () => ffn.ffnMemories([1, 2, 3, 4], m(4, 6), null, m(6, 4), 1.5),
    RangeError,
    ['ffnMemories', 'k is 1.5'],
  ],
  [
    'ffnMemories k string',
    () => ffn.ffnMemories([1, 2, 3, 4], m(4, 6), null, m(6, 4), '2'),
    TypeError,
    ['ffnMemories', 'k'],
  ],
  [
    'ffnMemories b1',
    () => ffn.ffnMemories([1, 2, 3, 4], m(4, 6), [1], m(6, 4), 1),
    RangeError,
    ['ffnMemories', 'b1', '[1]', '[6]'],
  ],
  [
    'ragged nested array',
    () => ffn.matmul([[1, 2], [3]], m(2, 2)),
    TypeError,
    ['matmul', 'A', 'ragged', 'A[1]', 'length 1', 'length 2'],
  ],
  [
    'ragged deep',
    () =>
      ffn.relu([
        [
          [1, 2],
          [3, 4],
        ],
        [[5, 6], [7]],
      ]),
    TypeError,
    ['relu', 'x', 'ragged', 'x[1][1]'],
  ],
  ['ragged mixed depth', () => ffn.relu([[1, 2], 3]), TypeError, ['relu', 'x', 'ragged', 'x[1]']],
  ['non-numeric entry', () => ffn.gelu([1, '2', 3]), TypeError, ['gelu', 'x[1]', 'not a number', 'string']],
  [
    'non-numeric nested',
    () =>
      ffn.matmul(
        [
          [1, 2],
          [3, null],
        ],
        m(2, 2),
      ),
    TypeError,
    ['matmul', 'A[1][1]', 'not a number', 'null'],
  ],
  ['boolean entry', () => ffn.silu([true]), TypeError, ['silu', 'not a number']],
  ['non-numeric tensor data', () => ffn.relu({ data: [1, 'a'], shape: [2] }), TypeError, ['relu', 'x', 'not a number']],
  ['data not an array', () => ffn.relu({ data: 'abc', shape: [3] }), TypeError, ['relu', 'x.data']],
  ['negative shape', () => ffn.relu({ data: [], shape: [2, -1] }), RangeError, ['relu', 'x', '[2,-1]', '-1']],
  ['non-integer shape', () => ffn.relu({ data: [1, 2], shape: [1.5] }), RangeError, ['relu', 'x', '[1.5]']],
  ['NaN shape', () => ffn.relu({ data: [1], shape: [NaN] }), RangeError, ['relu', 'x']],
  ['string shape entry', () => ffn.relu({ data: [1], shape: ['1'] }), TypeError, ['relu', 'x', 'shape']],
  [
    'shape/data length',
    () => ffn.relu({ data: [1, 2, 3], shape: [2, 2] }),
    RangeError,
    ['relu', 'x', '[2,2]', '4 elements', '3 elements'],
  ],
  ['missing argument', () => ffn.matmul(m(2, 2)), TypeError, ['matmul', 'B', 'missing']],
  ['null weight', () => ffn.ffn(m(1, 2), null, null, m(2, 2), null), TypeError, ['ffn', 'W1', 'null']],
  ['a number as tensor', () => ffn.relu(3), TypeError, ['relu', 'x', 'number 3']],
  ['a string as tensor', () => ffn.relu('1,2'), TypeError, ['relu', 'x', 'string']],
  ['BigInt array', () => ffn.relu(new BigInt64Array(2)), TypeError, ['relu', 'x']],
  [
    'activationGrad unknown name',
    () => ffn.activationGrad('gelu_exact', [1]),
    RangeError,
    ['activationGrad', "'gelu_exact'", "'gelu'"],
  ],
  ['activationGrad name not string', () => ffn.activationGrad(undefined, [1]), TypeError, ['activationGrad', 'name']],
  [
    'tensor shape mismatch',
    () => ffn.tensor([1, 2, 3], [2, 2]),
    RangeError,
    ['tensor', '[2,2]', '4 elements', '3 elements'],
  ],
  ['tensor negative shape', () => ffn.tensor([], [-1]), RangeError, ['tensor', '[-1]']],
  ['ffnParamCount d = 0', () => ffn.ffnParamCount(0, 10), RangeError, ['ffnParamCount', 'd', 'positive integer', '0']],
  ['ffnParamCount fractional dFF', () => ffn.ffnParamCount(10, 2.5), RangeError, ['ffnParamCount', 'dFF', '2.5']],
  ['ffnParamCount string', () => ffn.ffnParamCount('768', 3072), TypeError, ['ffnParamCount', 'd', 'string']],
  [
    'ffnParamCount bias not boolean',
    () => ffn.ffnParamCount(8, 8, { bias: 'no' }),
    TypeError,
    ['ffnParamCount', 'bias'],
  ],
  ['ffnParamCount NaN', () => ffn.ffnParamCount(NaN, 8), RangeError, ['ffnParamCount', 'd', 'NaN']],
  ['llamaHiddenDim negative d', () => ffn.llamaHiddenDim(-4096), RangeError, ['llamaHiddenDim', 'd', '-4096']],
  [
    'llamaHiddenDim multipleOf 0',
    () => ffn.llamaHiddenDim(4096, { multipleOf: 0 }),
    RangeError,
    ['llamaHiddenDim', 'multipleOf', '0'],
  ],
  [
    'llamaHiddenDim multiplier <= 0',
    () => ffn.llamaHiddenDim(4096, { ffnDimMultiplier: -1.3 }),
    RangeError,
    ['llamaHiddenDim', 'ffnDimMultiplier', '-1.3'],
  ],
  [
    'llamaHiddenDim multiplier inf',
    () => ffn.llamaHiddenDim(4096, { ffnDimMultiplier: Infinity }),
    RangeError,
    ['llamaHiddenDim', 'ffnDimMultiplier', 'Infinity'],
  ],
  [
    'llamaHiddenDim multiplier string',
    () => ffn.llamaHiddenDim(4096, { ffnDimMultiplier: '1.3' }),
    TypeError,
    ['llamaHiddenDim', 'ffnDimMultiplier'],
  ],
  ['ffnFlops Infinity', () => ffn.ffnFlops(Infinity, 4), RangeError, ['ffnFlops', 'd', 'Infinity']],
  ['ffnFlops gated not boolean', () => ffn.ffnFlops(4, 4, { gated: 1 }), TypeError, ['ffnFlops', 'gated']],
  [
    'self-containing array',
    () => {
      const a = [];
      a.push(a);
      ffn.relu(a);
    },
    TypeError,
    ['relu', 'x', 'nested'],
  ],
  ['sparse array hole', () => ffn.relu([1, , 3]), TypeError, ['relu', 'x[1]', 'not a number', 'undefined']],
  [
    'a dimension beyond int32',
    () => ffn.matmul({ data: [], shape: [3e9, 0] }, { data: [], shape: [0, 2] }),
    RangeError,
    ['matmul', '[3000000000,0]', '[0,2]'],
  ],
  [
    'a request larger than wasm memory can hold (60000x60000 output)',
    () =>
      ffn.matmul(
        { data: new Float32Array(60000), shape: [60000, 1] },
        { data: new Float32Array(60000), shape: [1, 60000] },
      ),
    RangeError,
    ['matmul', '[60000,1]', '[1,60000]', '[60000,60000]', 'wasm memory'],
  ],
  [
    'a huge ffn hidden layer',
    () => ffn.ffn({ data: new Float32Array(200000), shape: [100000, 2] }, m(2, 10000), null, m(10000, 2), null),
    RangeError,
    ['ffn', '[100000,2]', '[2,10000]', 'wasm memory'],
  ],
];

test(
  'every bad-input class throws RangeError/TypeError naming the function, argument and ' +
    'shapes; the module keeps working',
  async () => {
    await ffn.ready();
    for (const [what, call, Type, pieces] of CASES) {
      try {
        expectError(call, Type, pieces);
      } catch (e) {
        e.message = `${what}: ${e.message}`;
        throw e;
      }
      stillWorks();
    }
  },
);

test('inputs are left untouched by a failed call', async () => {
  await ffn.ready();
  const A = new Float32Array([1, 2, 3, 4]);
  assert.throws(() => ffn.matmul({ data: A, shape: [2, 2] }, m(3, 3)), RangeError);
  assert.deepEqual(Array.from(A), [1, 2, 3, 4]);
});
