// The built-in catalog: eight exercises, one file each, defined through the same defineExercise authors use.
import { defineBuiltInExercise, addTranslations } from './define.js';
import gelu from './gelu.js';
import ffn from './ffn.js';
import swiglu from './swiglu.js';
import swigluBackward from './swiglu-backward.js';
import memories from './memories.js';
import gqaBudget from './gqa-budget.js';
import valueToVocab from './value-to-vocab.js';
import rankOneEdit from './rank-one-edit.js';
import { addBuiltInStrings } from '../../../i18n/index.js';

/**
 * The built-in exercises, as defined (frozen), in English; their French comes with the French interface. Their value
 * checks run before each one's first grading (defineBuiltInExercise), not in the task that loads this module.
 */
export const exercises = Object.freeze(
  [gelu, ffn, swiglu, swigluBackward, memories, gqaBudget, valueToVocab, rankOneEdit].map((d) =>
    defineBuiltInExercise(d),
  ),
);

// One file per language (fr.js, keyed by the exercises' names in camelCase), loaded by loadStrings('fr').
const camel = (id) => id.replace(/-(\w)/g, (m, c) => c.toUpperCase());
addBuiltInStrings('fr', () =>
  import('./fr.js').then((fr) => {
    for (const e of exercises) if (fr[camel(e.id)]) addTranslations(e, { fr: fr[camel(e.id)] });
  }),
);

/** The built-in exercises' ids, in the course's order. */
export const exerciseIds = Object.freeze(exercises.map((e) => e.id));

export { makeRng, hashSeed } from '../../../rng.js';
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
  translationsOf,
} from './define.js';
