// The grade wing's face: the exercises, their prompt HTML and the report's text bounds at once; the grader and the
// checker of authored exercises (grade.js, check.js, which run learner code through the run wing) on first use.
// Runs without a page (Node grades the same way).
export {
  exercises,
  exerciseIds,
  getExercise,
  defineExercise,
  definedExerciseIds,
  onExerciseDefined,
  hiddenTests,
  exerciseText,
  ExerciseDefinitionError,
  makeRng,
  hashSeed,
} from './exercises/index.js';
export { renderPromptHtml, parsePromptHtml } from './prompt-html.js';
export { CAPS, clip, fmtNum } from './report-bounds.js';
export { reportText, toMessage, isReportText } from './report-text.js';

/** The grader module (grade.js: gradeExercise, reportRun, gradeValues), loaded on first use. */
export const loadGrader = () => import('./grade.js');

/** Grade `source` against exercise `id` (grade.js, loaded on first use). */
export async function gradeExercise(id, source, options) {
  return (await loadGrader()).gradeExercise(id, source, options);
}

/** Check an authored exercise before publishing it (check.js, loaded on first use). */
export async function checkExercise(what, options) {
  return (await import('./check.js')).checkExercise(what, options);
}
