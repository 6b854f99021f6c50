// The fitting programs of src/fit reproduce every fitted constant of src/activations.c, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as B from '../../src/fit/bignum.js';
import { allFits } from '../../src/fit/fits.js';
import { compare, fittedConstants } from '../../src/fit/fit.js';
import { literal, readConstants, writeConstants } from '../../src/fit/source.js';

const source = readFileSync(new URL('../../src/activations.c', import.meta.url), 'utf8');
const digits = (v, n) => ((v * 10n ** BigInt(n)) >> B.P).toString(); // floor(v 10^n)

test('the fixed-point arithmetic of the fits against known values', () => {
  // pi, ln 2 and erfc to 50 digits (published values: OEIS A000796, A002162; erfc(1) and erfc(10) from mpmath
  // at 60 digits); e^-100 and cos(1/3) against Math
  assert.equal(digits(B.PI, 50), '314159265358979323846264338327950288419716939937510');
  assert.equal(digits(B.LN2, 50), '69314718055994530941723212145817656807550013436025');
  const erfc = (t) => B.mul(B.erfcx(t), B.exp(-B.mul(t, t)));
  assert.equal(digits(erfc(B.ONE), 50), '15729920705028513065877936491739074070393300203369');
  assert.equal(B.toNumber(erfc(B.int(10))), 2.088487583762545e-45);
  assert.equal(digits(B.mul(B.erfcx(B.int(10)), B.int(10)), 40), '5614099274382258585751738722046831156515');
  assert.equal(B.toNumber(B.exp(B.int(-100))), Math.exp(-100));
  assert.equal(B.toNumber(B.cos(B.ratio(1, 3))), Math.cos(1 / 3));
  // correct rounding to double and float32, ties to even
  assert.equal(B.toNumber(B.ratio(1, 3)), 1 / 3);
  assert.equal(B.toFloat32(B.ratio(1, 3)), Math.fround(1 / 3));
  assert.equal(B.toFloat32(B.fromNumber(1 + 2 ** -24)), 1); // a tie: to the even neighbour
  assert.equal(B.toFloat32(B.fromNumber(1 + 3 * 2 ** -24)), 1 + 2 ** -22);
  assert.equal(B.toNumber(B.fromNumber(-1.4956759177009883e-17)), -1.4956759177009883e-17);
});

test('the constants of src/activations.c are read and rewritten where they stand', () => {
  const have = readConstants(source);
  assert.deepEqual(Object.fromEntries(Object.entries(have).map(([k, v]) => [k, v.length])), {
    em1_tail_f: 5,
    gelu_g_tail: 8,
    GELU_C0: 1,
    GELU_C1: 1,
    gelu_t_num: 5,
    gelu_t_den: 5,
    gelu_grad_h: 8,
    GELU_A0_HI: 1,
    GELU_A0_LO: 1,
  });
  assert.equal(have.gelu_t_den[0].value, 1); // lowest degree first: the constant term of the denominator
  // float32 literals in the fewest digits that give the float back
  assert.equal(literal(Math.fround(0.1), 'float'), '1.0e-01f');
  assert.equal(literal(Math.fround(1 / 3), 'float'), '3.3333334e-01f');
  assert.equal(literal(-1.4956759177009883e-17, 'double'), '-1.4956759177009883e-17');
  // rewriting with the values read back gives the same text: the literals are spelled as --write spells them
  const values = Object.fromEntries(Object.entries(have).map(([k, v]) => [k, v.map((c) => c.value)]));
  assert.equal(writeConstants(source, values), source);
  const edited = { ...values, GELU_C0: [0.5] };
  assert.equal(readConstants(writeConstants(source, edited)).GELU_C0[0].value, 0.5);
});

test('src/fit reproduces every fitted constant of src/activations.c (node src/fit/fit.js shows them)', () => {
  const t0 = Date.now();
  const fits = allFits();
  const seconds = (Date.now() - t0) / 1000;
  const rows = compare(source, fittedConstants(fits));
  assert.equal(rows.length, 35);
  const bad = rows.filter((r) => !r.same).map((r) => `${r.name}[${r.i}]: fitted ${r.fitted}, source ${r.source}`);
  assert.deepEqual(bad, [], `constants that differ from the fit (node src/fit/fit.js --write puts the fit in):`);
  // the errors src/README.md states
  assert.ok(fits.em1.max < 4.56e-9 && fits.g.E < 9.9e-9 && fits.t.max < 7.74e-9 && fits.h.minimax < 4.31e-11);
  // GELU's minimum: about -0.170 at x = -0.752
  assert.ok(Math.abs(fits.h.a0[0] - 0.7518) < 1e-4);
  console.log(`fits: ${seconds.toFixed(1)} s`);
});
