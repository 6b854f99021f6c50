// Test helper: assert that a grading report passed, and say why it did not when it did not.
import assert from 'node:assert/strict';

/**
 * Asserts report.passed === true. The failure message holds `what` (when given), the report's summary, its
 * error and each failing test's name and message, so a red run says which check failed and why.
 */
export function assertPassed(report, what) {
  const failing = (report.tests ?? []).filter((t) => !t.pass).map((t) => `${t.name}: ${t.message?.text}`);
  const lines = [what, report.summary?.text, report.error?.message, ...failing].filter((l) => l != null && l !== '');
  assert.equal(report.passed, true, lines.join('\n'));
}
