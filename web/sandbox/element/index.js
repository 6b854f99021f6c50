// The element wing's face: <ffn-exercise> (element.js), its editors, its saved progress, and the attribute readers.
export { FfnExerciseElement, defineFfnExercise, readTimeout, readStorageKey, readNumber } from './element.js';
export { createProgressStore, memoryStorage, codeProblem, DEFAULT_STORAGE_KEY, PROGRESS_LIMITS } from './storage.js';
export { textareaEditor } from './editor.js';
export { codeMirrorEditor } from './codemirror.js';
