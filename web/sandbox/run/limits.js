// The limits of a learner run: its default time, the most a result may hold, and the ceilings for limits passed in.

/** A run's time limit when none is given (runLearnerCode, gradeExercise, <ffn-exercise timeout>), in ms. */
export const DEFAULT_TIMEOUT_MS = 2000;

// setTimeout fires at once for delays beyond 2^31 - 1 ms; a longer timeout would mean none at all.
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** What one call's result may hold: numbers in all, nesting depth, keys of one object. */
export const DEFAULT_LIMITS = Object.freeze({ maxNumbers: 200000, maxDepth: 8, maxKeys: 32 });

/**
 * All of a run's results together hold at most RUN_RESULTS_OF_MAX times limits.maxNumbers numbers (1,000,000 by
 * default): each result crosses into the page as a message that the page's main thread copies and reads in one task,
 * and the memory of a run's results is freed there too. Of 24 results at the per-result limit, the first five are read
 * and the rest refused (the worker and the page count alike: runner.js, protocol.js, worker.js).
 */
export const RUN_RESULTS_OF_MAX = 5;

// Ceilings for limits passed in: the page must be able to re-check a result within a frame or so.
export const LIMIT_CEILINGS = Object.freeze({ maxNumbers: 2_000_000, maxDepth: 64, maxKeys: 1024 });
