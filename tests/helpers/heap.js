// Test helper: the wasm heap stays flat over many calls, run round robin after a warm-up.
import assert from 'node:assert/strict';

/**
 * Runs calls round robin, `warm` calls to let the allocator settle, then `n` more; asserts nothing is held
 * between calls and that the heap in use, the memory size and the growth count do not change over the n.
 */
export function assertHeapFlat(ffn, calls, { warm, n }) {
  const run = (k) => {
    for (let i = 0; i < k; i++) calls[i % calls.length]();
  };
  run(warm);
  const before = ffn.heapStats();
  assert.equal(before.heapInUse, 0, 'nothing held between calls');
  run(n);
  const after = ffn.heapStats();
  assert.equal(after.heapInUse, before.heapInUse, 'ffn_heap_in_use is flat');
  assert.equal(after.memoryBytes, before.memoryBytes, 'memory.buffer.byteLength is flat');
  assert.equal(after.growths, before.growths, 'memory never grew');
}
