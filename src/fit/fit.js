#!/usr/bin/env node
// Runs every coefficient fit of src/activations.c and prints the constants it finds beside those the source holds.
//   node src/fit/fit.js           compare (exit status 1 if any constant differs)
//   node src/fit/fit.js --write   put the fitted constants into src/activations.c (then: bash build.sh, the tests)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { allFits } from './fits.js';
import { SETS, literal, readConstants, writeConstants } from './source.js';

/** the fitted values per C name, lowest degree first */
export function fittedConstants(fits = allFits()) {
  const { em1, g, t, h } = fits;
  return {
    em1_tail_f: em1.q,
    gelu_g_tail: g.g.slice(2),
    GELU_C0: [g.g[0]],
    GELU_C1: [g.g[1]],
    gelu_t_num: t.num,
    gelu_t_den: t.den,
    gelu_grad_h: h.h,
    GELU_A0_HI: [h.a0[0]],
    GELU_A0_LO: [h.a0[1]],
  };
}

/** rows { name, i, fitted, source, same } for every constant */
export function compare(src, fitted) {
  const have = readConstants(src);
  const rows = [];
  for (const { name, kind } of SETS) {
    const a = fitted[name];
    const b = have[name];
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const f = a[i];
      const s = b[i]?.value;
      rows.push({ name, i, kind, fitted: f, source: s, same: Object.is(f, s) });
    }
  }
  return rows;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = fileURLToPath(new URL('../activations.c', import.meta.url));
  const src = readFileSync(file, 'utf8');
  const t0 = Date.now();
  const fits = allFits();
  const fitted = fittedConstants(fits);
  console.log(`fits done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(
    `em1_tail_f   minimax abs error ${fits.em1.minimax.toExponential(4)}, ` +
      `with the float32 coefficients ${fits.em1.max.toExponential(4)}`,
  );
  console.log(
    `gelu_g_tail  minimax rel error ${fits.g.minimax.toExponential(4)}, ` +
      `float32 tail and double c0, c1 ${fits.g.E.toExponential(4)}`,
  );
  console.log(
    `gelu_t_*     minimax rel error in D ${fits.t.minimax.toExponential(4)}, ` +
      `with the float32 coefficients ${fits.t.max.toExponential(4)}`,
  );
  console.log(`gelu_grad_h  minimax rel error ${fits.h.minimax.toExponential(4)}`);
  const rows = compare(src, fitted);
  for (const r of rows) {
    const lit = r.fitted === undefined ? '-' : literal(r.fitted, r.kind);
    console.log(`${r.same ? ' ' : '*'} ${`${r.name}[${r.i}]`.padEnd(16)} ${lit.padEnd(26)} source ${r.source}`);
  }
  const bad = rows.filter((r) => !r.same).length;
  if (process.argv.includes('--write')) {
    writeFileSync(file, writeConstants(src, fitted));
    console.log(`wrote ${bad} changed constants into src/activations.c`);
  } else {
    console.log(bad ? `${bad} constants differ from src/activations.c (* above)` : 'every constant as in the source');
    process.exitCode = bad ? 1 : 0;
  }
}
