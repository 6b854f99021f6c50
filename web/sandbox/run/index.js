// The run wing's face: runs learner code in a fresh worker (in browsers inside the sandbox frame), knowing no
// exercise. Its limits, its words and the worker's toolkit load at once; the runner, the frame host and the
// protocol's checks, which only a run needs, on first use (a chunk of their own where a bundler splits).
export { toolkitNames, TOOLKIT_TEMPLATES, WORKER_TEMPLATES, add, erf, map, matmul, mul, transpose } from './toolkit.js';
export { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, DEFAULT_LIMITS, LIMIT_CEILINGS } from './limits.js';
export { say, workerKey, FRAME_DIED, FRAME_REMOVED, NO_START, WORKER_FAILED, WORKER_LOAD_FAILED } from './say.js';

/**
 * The runner (runner.js: runLearnerCode, prepareSandbox, dropSpare), which brings the frame host (frame-host.js) and
 * the protocol (protocol.js: every message between page, frame and worker, and the page's checks of them).
 */
export const loadRunner = () => import('./runner.js');
