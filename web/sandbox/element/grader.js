// The <ffn-exercise> element's grader, loaded on first use (a chunk of its own where a bundler splits).
import { loadGrader } from '../grade/index.js';

// The grader (grade.js, and through it the runner, the sandbox frame's host and the diagnosis) is loaded on first
// use, in a chunk of its own where a bundler splits: the exercise is drawn and ready without it, and prepare.js
// asks for it ahead of the first Run.
const grading = () =>
  loadGrader().catch((e) => {
    throw new Error(`could not load ffn-lab's grade.js (${e && e.message}); serve every file your bundler emitted`);
  });
// Once loaded, the grader is called directly: import() of a module already loaded still costs a task, about 3 ms
// of every Run in Chromium (a fifth of a warm Run).
let grader = null;
export const gradeExercise = (...args) =>
  grader ? grader.gradeExercise(...args) : grading().then((m) => (grader = m).gradeExercise(...args));
