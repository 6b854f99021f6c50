// Test helper: wall-clock bounds that a loaded machine does not fail by chance, while slow work fails every time.

/** Attempts of one case, at most: the first one plus two more when it is over its bound. */
export const ATTEMPTS = 3;

/*
 * A bound on a case's wall time proves that the work does not grow with what an input declares (a walk over 2^32 - 1
 * slots takes seconds, every time). On the shared 2-core machine and in CI the OS or a garbage collection can stretch
 * one attempt past the bound now and then. So a case over its bound is timed again on a fresh copy of its input, up
 * to ATTEMPTS in all, and fails only if every attempt is over: the bound itself is unchanged.
 */

/**
 * timeCase(bound, first, again) -> { ms, seen }: `first` is the ms already measured; while the fastest so far is
 * over `bound` and fewer than ATTEMPTS were made, `again()` times the same case afresh and returns its ms.
 * `ms` is the fastest attempt, `seen` every attempt's ms (for the failure message).
 */
export function timeCase(bound, first, again) {
  const seen = [first];
  while (Math.min(...seen) > bound && seen.length < ATTEMPTS) seen.push(again());
  return { ms: Math.min(...seen), seen };
}

/** timeCase for an `again()` that returns a promise of its ms. */
export async function timeCaseAsync(bound, first, again) {
  const seen = [first];
  while (Math.min(...seen) > bound && seen.length < ATTEMPTS) seen.push(await again());
  return { ms: Math.min(...seen), seen };
}

/** The attempts' times for a failure message: "412, 388, 401 ms". */
export const shown = (seen) => `${seen.map((ms) => ms.toFixed(0)).join(', ')} ms`;
