// Shapes as the core API and grading use them: how many entries a shape holds, and a shape written as text.
// (web/sandbox/run/toolkit.js keeps its own two lines of each: the learner's worker imports nothing but the toolkit.)

/** The number of entries a shape (an array of sizes) holds: 0 if any size is 0, even after sizes whose product
 *  overflows. */
export function product(shape) {
  let n = 1;
  for (const s of shape) {
    if (s === 0) return 0;
    n *= s;
  }
  return n;
}

/** A shape as the API's messages write it: [2,3,4]. */
export function fmtShape(shape) {
  return `[${shape.join(',')}]`;
}
