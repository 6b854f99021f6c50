// The message an embed page posts to its parent for each exercise result (web/embed/host.js reads it).

/** The message's type, and the DOM event host.js fires on the iframe with the message as its detail. */
export const RESULT_MESSAGE = 'ffn-lab:result';
export const RESULT_EVENT = 'ffn-lab-result';

const ID = /^[\w-]{1,64}$/;

/**
 * ffn-exercise-result's detail -> { type: 'ffn-lab:result', id (the embed page's ?id=, or null), exercise, passed,
 * tests: { passed, total }, diagnoses: [diagnosis ids], timestamp (ISO 8601) }: plain data, nothing of the code.
 */
export function resultMessage(detail, id = null, now = new Date()) {
  const report = detail?.report ?? {};
  const tests = Array.isArray(report.tests) ? report.tests : [];
  const diagnoses = Array.isArray(report.diagnoses) ? report.diagnoses : [];
  return {
    type: RESULT_MESSAGE,
    id,
    exercise: String(detail?.exercise ?? ''),
    passed: report.passed === true,
    tests: { passed: tests.filter((t) => t && t.pass).length, total: tests.length },
    diagnoses: diagnoses
      .map((d) => d?.id)
      .filter((d) => typeof d === 'string' && ID.test(d))
      .slice(0, 20),
    timestamp: now.toISOString(),
  };
}
