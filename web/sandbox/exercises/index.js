// The built-in catalog: six exercises, one file each, defined through the same defineExercise authors use.
import { defineExercise } from './define.js';
import gelu from './gelu.js';
import ffn from './ffn.js';
import swiglu from './swiglu.js';
import swigluBackward from './swiglu-backward.js';
import memories from './memories.js';
import gqaBudget from './gqa-budget.js';
import * as fr from './fr.js';

/** A built-in definition with its translations (one file per language: fr.js). */
const translated = (def, t) => ({ ...def, translations: { fr: t.fr } });

/** The built-in exercises, as defined (frozen), in English and French. */
export const exercises = Object.freeze(
  [
    translated(gelu, { fr: fr.gelu }),
    translated(ffn, { fr: fr.ffn }),
    translated(swiglu, { fr: fr.swiglu }),
    translated(swigluBackward, { fr: fr.swigluBackward }),
    translated(memories, { fr: fr.memories }),
    translated(gqaBudget, { fr: fr.gqaBudget }),
  ].map(defineExercise),
);

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
  exerciseText,
} from './define.js';
