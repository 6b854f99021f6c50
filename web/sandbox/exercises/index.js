// The built-in catalog: six exercises, one file each, defined through the same defineExercise authors use.
import { defineExercise } from './define.js';
import gelu from './gelu.js';
import ffn from './ffn.js';
import swiglu from './swiglu.js';
import swigluBackward from './swiglu-backward.js';
import memories from './memories.js';
import gqaBudget from './gqa-budget.js';

/** The built-in exercises, as defined (frozen). */
export const exercises = Object.freeze([gelu, ffn, swiglu, swigluBackward, memories, gqaBudget].map(defineExercise));

/** The built-in exercises' ids, in the course's order. */
export const exerciseIds = Object.freeze(exercises.map((e) => e.id));

export { makeRng, hashSeed } from './rng.js';
export {
  defineExercise,
  getExercise,
  hiddenTests,
  generateTests,
  validateValues,
  variantSpecs,
  resolveExercise,
  definedExerciseIds,
  onExerciseDefined,
  ExerciseDefinitionError,
  RETURN_KINDS,
} from './define.js';
