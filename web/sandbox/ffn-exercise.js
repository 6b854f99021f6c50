// Side-effect module: registers the <ffn-exercise> custom element (a no-op outside browsers).
import { defineFfnExercise } from './element.js';

defineFfnExercise();

export { FfnExerciseElement } from './element.js';
