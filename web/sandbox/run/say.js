// What a run says to people: report.* messages by key, the keys the worker may name beside its English, and the
// English reasons a run crashed (grading says them as report.crash.* messages).
import { msg } from '../../i18n/index.js';
import en from '../../i18n/en.js';

/*
 * Why a run crashed: the frame's process went away, the frame was taken out of the page, the worker never said it
 * was ready, could not load, or failed without a reason.
 */
export const FRAME_DIED = 'its process ended, most likely because your code used too much memory';
export const FRAME_REMOVED = 'the sandbox frame was removed from the page';
export const NO_START = 'the exercise worker did not start';
// What the frame says when a run's worker cannot start (frame.html writes the first one itself) or gives no reason.
export const WORKER_LOAD_FAILED = 'the exercise worker failed to load';
export const WORKER_FAILED = 'the exercise worker failed';

/**
 * A message of the `report` namespace of the locale tables (web/i18n/en.js): its String() is the English, and
 * <ffn-exercise> shows it in the reader's language.
 */
export const say = (key, params) => msg(`report.${key}`, params);

/**
 * A key the worker may name beside a text it sends (worker.js): a toolkit error's (a key of report.toolkit, sent
 * bare) or the worker's own (`worker.…`, report.worker), as a key of the report namespace; else null.
 */
export function workerKey(key) {
  if (typeof key !== 'string') return null;
  const full = key.startsWith('worker.') ? key : `toolkit.${key}`;
  let v = en.report;
  for (const part of full.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, part)) return null;
    v = v[part];
  }
  return typeof v === 'string' ? full : null;
}
