// Side-effect module: registers the <ffn-exercise> custom element (a no-op outside browsers); importing ffn-lab/sandbox
// does the same.
import { defineFfnExercise } from './element/index.js';

defineFfnExercise();

export { FfnExerciseElement } from './element/index.js';
