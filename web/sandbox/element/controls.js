// The <ffn-exercise> element's controls: clicks and keys turned into calls (run, reset, hints, solution, progress
// import and export); they draw nothing of their own beyond showing what was asked for.
import { ready as loadKernels } from '../../index.js';
import { createEl as el } from '../../element-base.js';
import { msg } from '../../i18n/index.js';
import { toMessage } from '../grade/index.js';
import { gradeExercise } from './grader.js';
import { prepareNear } from './prepare.js';
import { flushSave, scheduleSave } from './saving.js';
import { updateHintButton } from './view.js';

/** The controls' input: Run, Stop, a hint, the solution, Reset; and the first Run prepared near the viewport. */
export function wireControls(host, root, ex) {
  const { runBtn, stopBtn, hintBtn, solBtn, resetBtn, solution } = host._ui;
  const t = (key) => host._t(`exercise.${key}`);
  runBtn.addEventListener('click', () => host.run());
  // The first Run is prepared while the learner reads or types: a grading of the reference solution, unseen,
  // opens the sandbox, leaves the next run's worker started and the grader's code compiled (prepare.js).
  const api = () => host._api || undefined;
  const kernels = () => (api() ? api().ready() : loadKernels());
  prepareNear(host, root, kernels, () => gradeExercise(ex.id, ex.solution, { api: api() }));
  host._whenReady();
  stopBtn.addEventListener('click', () => host._running && host._running.abort());
  hintBtn.addEventListener('click', () => revealHint(host, true));
  solBtn.addEventListener('click', () => {
    if (!solution.hidden) return hideSolution(host);
    const saved = host._store.get(ex.id);
    if (saved.status === 'passed' || saved.passedAt) return revealSolution(host, true); // passed, now or before
    askFirst(host, t('confirmSolution'), t('showSolution'), () => revealSolution(host, true));
  });
  resetBtn.addEventListener('click', () => {
    askFirst(host, t('confirmReset'), t('reset'), () => host.reset());
  });
}

export function askFirst(host, text, yesLabel, action) {
  const u = host._ui;
  u.confirmText.textContent = text;
  u.confirmYes.textContent = yesLabel;
  u.confirmRow.hidden = false;
  const close = () => {
    u.confirmRow.hidden = true;
    u.confirmYes.onclick = null;
    u.confirmNo.onclick = null;
  };
  u.confirmYes.onclick = () => {
    close();
    action();
  };
  u.confirmNo.onclick = () => {
    close();
    u.solBtn.focus();
  };
  u.confirmYes.focus();
}

/** Show the next hint (user: the learner asked, so it is saved and an event fires). */
export function revealHint(host, user) {
  const ex = host._ex;
  if (host._hintsShown >= ex.hints.length) return;
  const i = host._hintsShown++;
  host._ui.hints.hidden = false;
  const hint = host._text.hints[i];
  host._ui.hints.append(el(host.ownerDocument, 'li', { part: 'hint', text: hint }));
  updateHintButton(host);
  if (user) {
    host._store.update(ex.id, { hintsShown: host._hintsShown });
    host._emit('ffn-exercise-hint', { exercise: ex.id, index: i, hint });
  }
}

/** Show the solution (user: the learner asked, so it is saved and an event fires). */
export function revealSolution(host, user) {
  host._ui.solution.hidden = false;
  host._ui.solBtn.textContent = host._t('exercise.hideSolution');
  if (user) {
    host._store.update(host._ex.id, { solutionShown: true });
    host._emit('ffn-exercise-solution-shown', { exercise: host._ex.id });
  }
}

/** Hide the solution again. */
export function hideSolution(host) {
  host._ui.solution.hidden = true;
  host._ui.solBtn.textContent = host._t('exercise.showSolution');
}

/** The editor's input: blur saves now, a change saves soon, Ctrl/Cmd+Enter runs. */
export function editorInput(host) {
  return {
    onBlur: () => flushSave(host),
    onRun: () => host.run(),
    onChange: () => scheduleSave(host),
  };
}

/** The progress box's Export and Import buttons (drawProgress's parts). */
export function wireProgress(host, { json, status, exportBtn, importBtn }) {
  const store = host._store;
  const t = (key, params) => host._t(`progress.${key}`, params);
  exportBtn.addEventListener('click', () => {
    flushSave(host);
    json.value = store.exportJSON();
    json.select();
    status.textContent = t('exported');
  });
  importBtn.addEventListener('click', () => {
    try {
      const n = store.importJSON(json.value);
      const { skipped } = store.lastImport;
      host._render();
      host._emit('ffn-exercise-progress-imported', { exercise: host._ex.id, count: n });
      const again = host.shadowRoot.querySelector('.progress');
      again.open = true;
      const reason = (s) => host._tr.t('storage.first', { id: s.id, reason: toMessage(s.reason) ?? s.reason });
      const list =
        skipped.slice(0, 3).map(reason).join(host._t('errors.listSep')) +
        (skipped.length > 3 ? `${host._t('errors.listSep')}…` : '');
      const left = skipped.length ? t('skipped', { n: skipped.length, list }) : '';
      again.querySelector('[role="status"]').textContent = t('imported', { n }) + left + t('afterReload');
    } catch (e) {
      status.textContent = t('importFailed', { message: e.i18n ? msg(e.i18n.key, e.i18n.params) : e.message });
    }
  });
}
