// The <ffn-exercise> element's report view: a grading report drawn in the element's language (summary, likely
// mistakes, tests, notes, console output) and a setup problem; it only draws.
import { fmtNum, CAPS, clip, toMessage } from '../grade/index.js';
import { createEl as el } from '../../element-base.js';
import { msg, isMessage } from '../../i18n/index.js';
import { Code, code, siteProblem, messageNodes } from './message-nodes.js';

/** A number as the reports write it (compare.js's fmtNum), with the decimal mark and minus sign of the language. */
function num(host, v) {
  const s = fmtNum(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? s : host._t(v > 0 ? 'numbers.infinity' : 'numbers.minusInfinity');
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return host._tr.int(v);
  return s.replace('.', host._tr.decimal).replace(/-/g, host._tr.minus);
}

/**
 * A diagnosis naming one of the exercise's known mistakes, in the page's language when the exercise has a
 * translation of that variant (the report carries the definition's own text).
 */
function variantText(host, d) {
  const i = host._ex.variants.findIndex((v) => v.id === d.id && v.fn === d.fn);
  if (i < 0) return d;
  const v = host._text.variants[i];
  const original = host._ex.variants[i];
  if (v.title === original.title && v.message === original.message) return d;
  const share = { k: d.explained, n: d.failing, fn: d.fn };
  const message = d.partial ? `${v.message} ${host._t('exercise.partialVariant', share)}` : v.message;
  return { ...d, title: v.title, message };
}

/**
 * A report's text ({ key, params, text }: grade/report-text.js) in the element's language, from its key and params,
 * within the cap of its field; a text that is no such value as it is.
 */
function textOf(host, t, cap = CAPS.message) {
  const m = toMessage(t);
  if (!m) return typeof t === 'string' ? clip(t, cap) : '';
  const words = exerciseWords(host, m);
  return clip(host._t(words.key, words.params), cap);
}

/** A report's message with the exercise's own words in the element's language: test names, item and order. */
function exerciseWords(host, m, depth = 0) {
  const { tests, words } = host._text;
  const params = {};
  for (const [k, v] of Object.entries(m.params)) {
    if (isMessage(v) && depth < 8) params[k] = exerciseWords(host, v, depth + 1);
    else if (k === 'name' && typeof v === 'string' && tests[testId(host, v)]) params[k] = tests[testId(host, v)];
    else if ((k === 'item' || k === 'order') && typeof v === 'string' && words[v.trim()]) {
      params[k] = v.replace(v.trim(), words[v.trim()]);
    } else params[k] = v;
  }
  return msg(m.key, params);
}

/** A diagnosis as shown: an exercise's mistake (translated by the exercise), or one of grading's own messages. */
function diagnosisText(host, d) {
  const v = variantText(host, d);
  if (v !== d) return v;
  return { ...d, title: textOf(host, d.title), message: textOf(host, d.message, CAPS.diagnosis) };
}

/** The id of the shown report's test named `name` (translations key tests by id), or undefined. */
function testId(host, name) {
  return host._report?.tests?.find((t) => t.name === name)?.id;
}

/** One line of the hidden tests' list: the test's name and what happened. */
function testLine(host, t) {
  const name = host._text.tests[t.id] ?? t.name;
  if (t.pass) {
    return t.maxError > 0
      ? host._t('exercise.testPassedError', { name, error: num(host, t.maxError) })
      : host._t('exercise.testPassed', { name });
  }
  const key = { 'not-run': 'testNotRun', timeout: 'testTimedOut' }[t.status] || 'testFailed';
  return host._t(`exercise.${key}`, { name });
}

/** Show a grading report: the announced summary and diagnoses, then the tests, notes and console output. */
export function showReport(host, report) {
  if (report.status === 'setup') {
    host._editor.markLine(null);
    // what the sandbox said (report.site.*, its URLs and markup as code), or an error's own text, as code
    const setup = toMessage(report.setup);
    const problem = !setup ? null : setup.key === 'report.raw' ? code(String(setup)) : siteProblem(setup);
    showSetupProblem(host, problem ?? textOf(host, report.summary));
    return;
  }
  const heard = announced(host, report);
  const parts = details(host, report);
  host._ui.announce.replaceChildren(...heard);
  host._ui.details.replaceChildren(...parts);
}

/** What the live region announces: the summary, "Go to line N" for an error, and the likely mistakes. */
function announced(host, report) {
  const doc = host.ownerDocument;
  const heard = [];
  const summary = textOf(host, report.summary);
  const summaryClass = `summary ${report.passed ? 'pass' : 'fail'}`;
  heard.push(el(doc, 'p', { class: summaryClass, part: 'summary', text: summary }));
  const errLine = report.error && report.error.line;
  host._editor.markLine(errLine || null);
  if (report.error && report.error.line) {
    const goTo = host._t('exercise.goToLine', { line: report.error.line });
    const go = el(doc, 'button', { type: 'button', class: 'link', text: goTo });
    go.addEventListener('click', () => host._editor.goTo(report.error.line, report.error.column || 1));
    heard.push(el(doc, 'p', {}, [go]));
  }
  for (const d of report.diagnoses.map((x) => diagnosisText(host, x))) {
    heard.push(
      el(doc, 'div', { class: 'diagnosis', part: 'diagnosis' }, [
        el(doc, 'strong', { text: host._t('exercise.likelyMistake', { title: d.title }) }),
        el(doc, 'span', { text: d.message }),
      ]),
    );
  }
  return heard;
}

/** What is shown outside the live region: notes, the tests' list and tolerance, "well done", console output. */
function details(host, report) {
  const doc = host.ownerDocument;
  const u = host._ui;
  const parts = [];
  for (const note of report.notes || []) {
    parts.push(el(doc, 'p', { class: 'note', part: 'note', text: textOf(host, note, CAPS.note) }));
  }
  if (report.status !== 'error') parts.push(...testList(host, report));
  if (report.passed) {
    parts.push(el(doc, 'p', { class: 'note', text: host._t('exercise.wellDone') }));
    u.solBtn.textContent = host._t(u.solution.hidden ? 'exercise.compareSolution' : 'exercise.hideSolution');
  }
  if (report.logs.length) parts.push(logsBox(host, report.logs));
  return parts;
}

/** The hidden tests' list (a mark, the line and any detail per test) and the tolerance note. */
function testList(host, report) {
  const doc = host.ownerDocument;
  const list = el(doc, 'ul', { class: 'tests', part: 'tests', 'aria-label': host._t('exercise.hiddenTests') });
  for (const t of report.tests) {
    const mark = t.pass ? '✓' : t.status === 'not-run' ? '–' : '✗';
    const part = t.pass ? 'test test-pass' : 'test test-fail';
    const li = el(doc, 'li', { class: t.pass ? 'pass' : t.status, part }, [
      el(doc, 'span', { class: 'mark', 'aria-hidden': 'true', text: mark }),
      el(doc, 'span', { text: testLine(host, t) }),
    ]);
    const detail = !t.pass && t.message && textOf(host, t.message);
    if (detail) li.append(el(doc, 'span', { class: 'detail', text: detail }));
    list.append(li);
  }
  const tol = report.tolerance;
  const tolerance = host._t('exercise.tolerance', { atol: num(host, tol.atol), rtol: num(host, tol.rtol) });
  return [list, el(doc, 'p', { class: 'note', part: 'tolerance', text: tolerance })];
}

/** The learner's console output, folded. */
function logsBox(host, logs) {
  const doc = host.ownerDocument;
  return el(doc, 'details', { part: 'logs-box' }, [
    el(doc, 'summary', { text: host._t('exercise.consoleOutput', { n: logs.length }) }),
    el(doc, 'pre', {
      class: 'logs',
      part: 'logs',
      text: logs.map((l) => (l.level === 'log' ? l.text : `[${l.level}] ${l.text}`)).join('\n'),
    }),
  ]);
}

/** Show a setup problem (a message, or the report's text): never the learner's fault, and said so. */
export function showSetupProblem(host, message) {
  const props = { class: 'summary setup', part: 'summary setup-problem', role: 'alert' };
  const text = isMessage(message) || message instanceof Code ? msg('exercise.setupProblem', { message }) : message;
  const p = el(host.ownerDocument, 'p', props, messageNodes(host.ownerDocument, host._tr, text));
  host._ui.announce.replaceChildren(p);
  host._ui.details.replaceChildren();
}
