// ffn-lab/sandbox: registers <ffn-exercise> (in browsers); headless grading, the exercise catalog and format, progress
// storage, mountExercise.
import { getExercise } from './grade/index.js';
import { createProgressStore, memoryStorage, DEFAULT_STORAGE_KEY, defineFfnExercise } from './element/index.js';

defineFfnExercise(); // a no-op outside browsers

export { gradeExercise, checkExercise } from './grade/index.js';
/** exercises: the eight built-ins (frozen, in the course's order); see web/sandbox/AUTHORING.md for the format. */
export {
  exercises,
  exerciseIds,
  getExercise,
  defineExercise,
  definedExerciseIds,
  hiddenTests,
  ExerciseDefinitionError,
} from './grade/index.js';
export { createProgressStore, memoryStorage, DEFAULT_STORAGE_KEY, defineFfnExercise };
export { FfnExerciseElement } from './element/index.js';
export { toolkitNames } from './run/index.js';
/** Editors for <ffn-exercise>'s `editor`: the built-in textarea (the default), or a site's CodeMirror 6. */
export { textareaEditor, codeMirrorEditor } from './element/index.js';
/** The interface language: add or override a locale's strings; read a locale's table (web/i18n/en.js has every key). */
export { defineStrings, getStrings, loadStrings } from '../i18n/index.js';

/**
 * Mount an exercise inside `container` (for React, Vue, Svelte...). Creates an <ffn-exercise> child.
 * options: { timeout, storageKey, storage, seed, api, editor }. Returns { element, run(), reset(), destroy() }.
 */
export function mountExercise(container, id, options = {}) {
  if (!container || typeof container.appendChild !== 'function') {
    throw new TypeError('mountExercise: container must be a DOM element');
  }
  getExercise(id); // a clear RangeError for an unknown id, before touching the DOM
  if (!defineFfnExercise()) {
    throw new Error('mountExercise: custom elements are not available here (use gradeExercise in Node)');
  }
  const element = container.ownerDocument.createElement('ffn-exercise');
  if (options.storage) element.storage = options.storage;
  if (options.api) element.api = options.api;
  if (options.editor) element.editor = options.editor;
  if (options.seed !== undefined) element.seed = options.seed;
  if (options.timeout !== undefined) element.setAttribute('timeout', String(options.timeout));
  if (options.storageKey) element.setAttribute('storage-key', options.storageKey);
  element.setAttribute('exercise', id);
  container.appendChild(element);
  return {
    element,
    run: () => element.run(),
    reset: () => element.reset(),
    destroy: () => element.remove(),
  };
}

/** Export all saved progress (JSON text) for a storage key. */
export function exportProgress({ storage, key = DEFAULT_STORAGE_KEY } = {}) {
  return createProgressStore({ storage, key }).exportJSON();
}

/** Import progress exported by exportProgress; returns how many exercises were imported. */
export function importProgress(json, { storage, key = DEFAULT_STORAGE_KEY, replace = false } = {}) {
  return createProgressStore({ storage, key }).importJSON(json, { replace });
}
