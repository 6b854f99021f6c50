// Runs the battery (./battery.mjs) in a non-Node JavaScript engine (jsc, gjs) and prints one JSON line for
// tests/kernels/engines.test.js.
import { engineShims } from './shims.mjs';

const { print } = await engineShims();
try {
  const ffn = await import('../../web/index.js');
  const { relaxedSimdSupported } = await import('../../web/runtime.js');
  const relaxed = relaxedSimdSupported();
  await ffn.ready({ relaxed: false }); // the same bits in every engine (relaxed SIMD may fuse the GEMM's multiply-adds)
  const { battery } = await import('./battery.mjs');
  const { simd: build, gemmKernel } = ffn.wasmInfo();
  print('ENGINE-RESULT ' + JSON.stringify({ relaxed, build, gemmKernel, results: battery(ffn) }));
} catch (e) {
  print('ENGINE-ERROR ' + String(e && e.stack ? `${e.message}\n${e.stack}` : e));
}
