// The <ffn-exercise> element's view: draws its parts (header, prompt, editor, toolbar, results, progress box) and
// updates the badge and hint button; no input handled here (controls.js), no report drawn (report-view.js).
import { toolkitNames } from '../run/index.js';
import { renderPromptHtml } from '../grade/index.js';
import { textareaEditor } from './editor.js';
import { createEl as el } from '../../element-base.js';

/** The header (title, level, badge) and the prompt, examples and toolkit blocks. */
export function drawIntro(host, doc, ex) {
  const text = host._text;
  const badge = el(doc, 'span', { class: 'badge', part: 'badge' });
  const title = el(doc, 'h3', { part: 'title', text: host._heading() });
  const level = el(doc, 'span', { class: 'level', text: text.level });
  const header = el(doc, 'header', { part: 'header' }, [title, level, badge]);
  const prompt = el(doc, 'div', { class: 'prompt', part: 'prompt' });
  prompt.append(renderPromptHtml(doc, text.prompt)); // authored HTML, through the allow-list (prompt-html.js)
  const examples = el(
    doc,
    'ul',
    { class: 'examples', part: 'examples', 'aria-label': host._t('exercise.examples') },
    text.examples.map((t) => el(doc, 'li', {}, [el(doc, 'code', { text: t })])),
  );
  const names = doc.createDocumentFragment();
  toolkitNames.forEach((n, i) => names.append(...(i ? [', '] : []), el(doc, 'code', { text: n })));
  const toolkit = el(
    doc,
    'p',
    { class: 'toolkit', part: 'toolkit' },
    host._tr.parts('exercise.toolkit', {
      names,
      tensor: el(doc, 'code', { text: '{ data, shape }' }),
      log: el(doc, 'code', { text: 'console.log' }),
    }),
  );
  return { badge, title, header, blocks: [prompt, examples, toolkit] };
}

/**
 * The editor (the saved code, or the starter) and the help line on its keys: [editor root, help]. input: the
 * editor's onBlur, onRun and onChange (controls.js).
 */
export function drawEditor(host, doc, root, ex, saved, input) {
  const text = host._text;
  const keysId = `${host._uid}-keys`;
  const builtIn = host._editorKind === textareaEditor;
  const keysHelp = el(doc, 'p', {
    class: 'keys',
    id: keysId,
    part: 'help',
    text: host._t(builtIn ? 'exercise.keys' : 'exercise.keysRun'),
  });
  host._editor = host._editorKind.create(doc, {
    root,
    onBlur: input.onBlur,
    value: typeof saved.code === 'string' ? saved.code : text.starter,
    label: host._t('exercise.editorLabel', { title: text.title, names: host._tr.list(ex.functionNames) }),
    describedBy: keysId,
    onRun: input.onRun,
    onChange: input.onChange,
  });
  return [host._editor.root, keysHelp];
}

/** The toolbar's buttons, the confirm row, the hints list and the solution block. */
export function drawControls(host, doc, ex) {
  const t = (key, params) => host._t(`exercise.${key}`, params);
  const button = (part, text, props = {}) => el(doc, 'button', { type: 'button', part, text: text, ...props });
  const runBtn = button('button run-button', t('run'), { class: 'run' });
  const stopBtn = button('button stop-button', t('stop'), { hidden: true });
  const hintBtn = button('button hint-button', '');
  const solBtn = button('button solution-button', t('showSolution'));
  const resetBtn = button('button reset-button', t('reset'));
  const toolbar = el(doc, 'div', { class: 'toolbar', part: 'toolbar' }, [runBtn, stopBtn, hintBtn, solBtn, resetBtn]);
  const confirmText = el(doc, 'span');
  const confirmYes = el(doc, 'button', { type: 'button', part: 'button confirm-button' });
  const confirmNo = el(doc, 'button', { type: 'button', part: 'button cancel-button', text: t('cancel') });
  const confirmProps = { class: 'confirm', part: 'confirm', role: 'group', hidden: true };
  const confirmRow = el(doc, 'div', confirmProps, confirmText, confirmYes, confirmNo);
  const hints = el(doc, 'ol', { class: 'hints', part: 'hints', 'aria-label': t('hints'), hidden: true });
  const solution = el(doc, 'div', { class: 'solution', part: 'solution', hidden: true }, [
    el(doc, 'p', { class: 'note', text: t('solutionNote') }),
    el(doc, 'pre', { text: ex.solution }),
  ]);
  const buttons = { runBtn, stopBtn, hintBtn, solBtn, resetBtn };
  return { toolbar, ...buttons, confirmRow, confirmText, confirmYes, confirmNo, hints, solution };
}

/** Where results go: the announced summary and diagnosis, and the per-test list outside the live region. */
export function drawResults(doc) {
  const announce = el(doc, 'div', { class: 'announce', part: 'announce', role: 'status', 'aria-live': 'polite' });
  const details = el(doc, 'div', { class: 'details', part: 'details' });
  const results = el(doc, 'div', { class: 'results', part: 'results' }, [announce, details]);
  return { announce, details, results };
}

/** The "Your progress" box: the passed-before line, the note on where progress is kept, export and import. */
export function drawProgress(host, doc) {
  const store = host._store;
  const t = (key, params) => host._t(`progress.${key}`, params);
  const note = store.persistent ? t('saved') : t('memoryOnly');
  const json = el(doc, 'textarea', {
    class: 'progress-json',
    part: 'progress-json',
    'aria-label': t('json'),
    spellcheck: false,
    rows: 4,
  });
  const status = el(doc, 'p', { class: 'note', role: 'status' });
  const passedBefore = el(doc, 'p', { class: 'note', part: 'passed-before' });
  const exportBtn = el(doc, 'button', { type: 'button', part: 'button export-button', text: t('export') });
  const importBtn = el(doc, 'button', { type: 'button', part: 'button import-button', text: t('import') });
  const box = el(doc, 'details', { class: 'progress', part: 'progress' }, [
    el(doc, 'summary', { text: t('title') }),
    passedBefore,
    el(doc, 'p', { class: 'note', text: note }),
    el(doc, 'div', { class: 'toolbar' }, [exportBtn, importBtn]),
    json,
    status,
  ]);
  return { box, passedBefore, json, status, exportBtn, importBtn };
}

/** The badge shows the latest run ('passed' or 'attempted'); the progress panel keeps "passed before". */
export function updateBadge(host, status) {
  const b = host._ui.badge;
  b.className = `badge ${status || ''}`;
  const badge = { passed: 'exercise.badgePassed', attempted: 'exercise.badgeAttempted' }[status];
  b.textContent = badge ? host._t(badge) : '';
  const when = host._store.get(host._ex.id).passedAt;
  const date = when ? new Date(when) : null;
  const day = date && !Number.isNaN(date.getTime()) && host._tr.date(date);
  host._ui.passedBefore.textContent = day ? host._t('progress.passedOn', { date: day }) : '';
}

/** The hint button: the next hint's number, or none left (then disabled). */
export function updateHintButton(host) {
  const n = host._hintsShown;
  const total = host._ex.hints.length;
  const text = n < total ? host._t('exercise.hint', { i: n + 1, n: total }) : host._t('exercise.noMoreHints');
  host._ui.hintBtn.textContent = text;
  host._ui.hintBtn.disabled = n >= total;
}
