// A kernel's own scratch allocation failing (FFN_ENOMEM) surfaces as a RangeError naming the function, and the heap
// stays clean.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';

await ffn.ready();

/**
 * Calls attempt(n) for n = start, start - 1, ... (at most 200 tries) and returns the first RangeError that is
 * not "the per-call block itself does not fit" (over the ceiling, or malloc returned 0): the kernel's own
 * scratch allocation failing. A call that runs is a test failure.
 */
function firstKernelEnomem(name, start, attempt) {
  for (let n = start, tries = 0; tries < 200 && n > 0; tries++, n--) {
    try {
      attempt(n);
      assert.fail(`${name} unexpectedly ran at ${n}`);
    } catch (e) {
      assert.ok(e instanceof RangeError, `expected a RangeError, got ${e && e.name}: ${e && e.message}`);
      if (/ needs [\d.]+ [KMG]i?B/.test(e.message)) continue;
      return e;
    }
  }
  return assert.fail('never reached the kernel');
}

test(
  'swigluBackward whose packing buffer cannot be allocated throws a RangeError (out of wasm memory), ' +
    'heap clean, module usable',
  () => {
    // d = 16, d_ff = 65536: packing Wg inside the kernel needs about 4 MiB. The per-call block holds a
    // 3*N*d_ff work area with no data copied in (so the pages are never touched). Walk N down from
    // "the block itself does not fit" in steps smaller than the packing buffer: the first N whose block
    // fits leaves less room than the packing needs, so the kernel's own malloc fails with FFN_ENOMEM.
    const d = 16,
      dff = 65536;
    const W = { data: new Float32Array(d * dff).fill(0.01), shape: [d, dff] };
    const Wd = { data: new Float32Array(dff * d).fill(0.01), shape: [dff, d] };
    const s0 = ffn.heapStats();
    const stepBytes = 3 * dff * 4; // 768 KiB per row of N, well under the ~4 MiB packing buffer
    const N0 = Math.floor((s0.maxMemoryBytes - 65536 - 6 * d * dff * 4) / (stepBytes + 2 * d * 4));
    const err = firstKernelEnomem('swigluBackward', N0, (N) => {
      const X = { data: new Float32Array(N * d), shape: [N, d] };
      ffn.swigluBackward(X, X, W, W, Wd);
    });
    assert.match(
      err.message,
      new RegExp(
        '^swigluBackward: out of wasm memory: the kernel could not allocate its scratch space for ' +
          'X \\[\\d+,16\\], Wg \\[16,65536\\], Wd \\[65536,16\\]',
      ),
    );
    assert.doesNotMatch(err.message, /status/);
    assert.equal(ffn.heapStats().heapInUse, s0.heapInUse);
    // still usable and correct afterwards
    const y = ffn.matmul([[1, 2]], [[3], [4]]);
    assert.deepEqual(Array.from(y.data), [11]);
    const g = ffn.swigluBackward([[1, 0]], [[0.5, -1]], [[1], [2]], [[3], [4]], [[1, 1]]);
    assert.equal(g.dX.shape.join(), '1,2');
    assert.equal(ffn.heapStats().heapInUse, s0.heapInUse);
  },
);

test(
  'matmul whose GEMM packing buffer cannot be allocated throws a RangeError (out of wasm memory), ' +
    'heap clean, module usable',
  () => {
    // K = 16, N = 65536: B is 4 MiB and the packed copy the GEMM makes of it another 4 MiB. Each row of M
    // adds 256 KiB (its row of C), far less than that, so walking M down from "the block does not fit"
    // reaches an M whose block fits but leaves no room for the packing: FFN_ENOMEM from the kernel.
    const K = 16,
      N = 65536;
    const B = { data: new Float32Array(K * N).fill(0.01), shape: [K, N] };
    const s0 = ffn.heapStats();
    const rowBytes = (N + K) * 4;
    const M0 = Math.floor((s0.maxMemoryBytes - 65536 - K * N * 4) / rowBytes);
    const err = firstKernelEnomem('matmul', M0, (M) => ffn.matmul({ data: new Float32Array(M * K), shape: [M, K] }, B));
    assert.match(
      err.message,
      /^matmul: out of wasm memory: the kernel could not allocate its scratch space for A \[\d+,16\] @ B \[16,65536\]/,
    );
    assert.equal(ffn.heapStats().heapInUse, s0.heapInUse);
    const y = ffn.matmul(
      [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
      ],
      [[3], [4]],
    );
    assert.deepEqual(Array.from(y.data), [11, 25, 39, 53]);
    assert.equal(ffn.heapStats().heapInUse, s0.heapInUse);
  },
);
