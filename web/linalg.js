// Float64 Cholesky factor and solve of a symmetric positive definite system: the memory lab's key covariance and
// the rank-one-edit exercise's reference share them.

/** The lower Cholesky factor L (n, n) of a symmetric positive definite C, float64; a RangeError if C is not. */
export function cholesky(C, n) {
  const L = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let s = C[j * n + j];
    for (let k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k];
    if (!(s > 0)) throw new RangeError(`cholesky: C is not positive definite (pivot ${j} is ${s})`);
    const ljj = Math.sqrt(s);
    L[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let t = C[i * n + j];
      for (let k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = t / ljj;
    }
  }
  return L;
}

/** x with L L^T x = b (L from cholesky), float64. */
export function choleskySolve(L, n, b) {
  const y = Float64Array.from(b);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < i; k++) y[i] -= L[i * n + k] * y[k];
    y[i] /= L[i * n + i];
  }
  for (let i = n - 1; i >= 0; i--) {
    for (let k = i + 1; k < n; k++) y[i] -= L[k * n + i] * y[k];
    y[i] /= L[i * n + i];
  }
  return y;
}
