// Types for ffn-lab/sandbox: headless grading, the exercise catalog, progress storage, mountExercise and <ffn-exercise>.

export type ExerciseId = 'gelu' | 'ffn' | 'swiglu' | 'swiglu-backward' | 'memories' | 'gqa-budget';

export interface Tolerance {
  /** A test value passes when |got - expected| <= atol + rtol * |expected|. */
  atol: number;
  rtol: number;
}

export interface LearnerError {
  name: string;
  message: string;
  /** 1-based line in the learner's code, or null when unknown (for example a thrown non-Error). */
  line: number | null;
  /** 1-based column in the learner's code, or null. */
  column: number | null;
}

export interface TestResult {
  name: string;
  fn: string;
  pass: boolean;
  status: 'pass' | 'fail' | 'error' | 'refused' | 'timeout' | 'not-run';
  /** Largest |got - expected| over the output (Infinity when NaN/Inf disagree). */
  maxError?: number;
  /** First element outside the tolerance: multi-index, flat index, values; key names the output field for object results. */
  mismatch?: { key: string | null; index: number[]; flatIndex: number; got: number; expected: number };
  /** A shape or type problem, e.g. "returned shape [3,8], expected [2,3,8]". */
  problem?: string;
  error?: LearnerError;
  /** One line for people. */
  message?: string;
}

export interface Diagnosis {
  /** The known-wrong variant, e.g. 'gelu-swapped', 'ffn-missing-b1', 'backward-silu-prime-sigma'. */
  id: string;
  fn: string;
  title: string;
  message: string;
  /** Names of the failing tests this variant explains. */
  tests: string[];
}

export interface GradeReport {
  exercise: ExerciseId;
  title: string;
  seed: number;
  tolerance: Tolerance;
  timeoutMs: number;
  total: number;
  passed: boolean;
  passedCount: number;
  /** 'done' after a full run; 'error' for a syntax error, a refused source or a throw at top level. */
  status: 'done' | 'error' | 'timeout' | 'aborted' | 'crashed' | 'refused';
  summary: string;
  error: LearnerError | null;
  tests: TestResult[];
  diagnoses: Diagnosis[];
  /** The learner's console output (at most 200 lines). */
  logs: { level: string; text: string }[];
  durationMs: number;
}

export interface GradeOptions {
  /** Milliseconds before the worker is terminated (default 2000). */
  timeout?: number;
  /** Seed of the hidden-test generator (default 1). */
  seed?: number;
  signal?: AbortSignal;
  /** The ffn-lab API module to take reference outputs from (default: the package's URL entry). */
  api?: unknown;
  /** Passed to api.ready(). */
  ready?: unknown;
  /**
   * Override the worker file's URL (it must be this package's worker.js, with toolkit.js beside it).
   * Node runs it as a worker_threads file; browsers fetch its text (and toolkit.js's) and run it inside
   * the sandbox frame (frame.html, loaded from this package's own folder) as a blob: worker.
   */
  workerUrl?: URL | string;
  limits?: { maxNumbers?: number; maxDepth?: number; maxKeys?: number };
  onProgress?: (testIndex: number) => void;
}

/** Grade learner source for one exercise, in browsers (a worker inside a sandboxed iframe) and Node (worker_threads). Never rejects on learner behaviour. */
export function gradeExercise(id: ExerciseId, source: string, options?: GradeOptions): Promise<GradeReport>;

export interface Exercise {
  id: ExerciseId;
  number: number;
  level: string;
  title: string;
  functions: string[];
  /** Trusted HTML written by ffn-lab. */
  prompt: string;
  starter: string;
  examples: string[];
  hints: [string, string, string];
  solution: string;
  tolerance: Tolerance;
  tests(rng: unknown, api: unknown): unknown[];
  variants: { id: string; fn: string; title: string; message: string; anyOf?: boolean; compute(args: unknown[], api: unknown): unknown }[];
}

export const exercises: readonly Exercise[];
export const exerciseIds: readonly ExerciseId[];
export function getExercise(id: string): Exercise;
export const toolkitNames: readonly string[];

export interface StorageAdapter {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface ProgressEntry {
  code?: string;
  status?: 'passed' | 'attempted';
  passedAt?: string;
  solutionShown?: boolean;
  hintsShown?: number;
}

export interface ProgressStore {
  readonly key: string;
  /** False when storage is blocked and progress only lives in memory. */
  readonly persistent: boolean;
  get(id: string): ProgressEntry;
  update(id: string, patch: ProgressEntry): ProgressEntry;
  /** Reset one exercise, or all when id is omitted. */
  reset(id?: string): void;
  exportJSON(): string;
  importJSON(text: string, options?: { replace?: boolean }): number;
}

export const DEFAULT_STORAGE_KEY: 'ffn-lab:sandbox:v1';
export function createProgressStore(options?: { storage?: StorageAdapter; key?: string }): ProgressStore;
export function memoryStorage(): StorageAdapter;
export function exportProgress(options?: { storage?: StorageAdapter; key?: string }): string;
export function importProgress(json: string, options?: { storage?: StorageAdapter; key?: string; replace?: boolean }): number;

export interface MountOptions {
  timeout?: number;
  storageKey?: string;
  storage?: StorageAdapter;
  seed?: number;
  api?: unknown;
}

export interface MountedExercise {
  element: FfnExerciseElement;
  run(): Promise<GradeReport | null>;
  reset(): void;
  destroy(): void;
}

/** Create an <ffn-exercise> inside container (for frameworks). */
export function mountExercise(container: Element, id: ExerciseId, options?: MountOptions): MountedExercise;

/** Register <ffn-exercise> (idempotent); false outside browsers. */
export function defineFfnExercise(name?: string): boolean;

export function diagnose(exercise: Exercise, tests: unknown[], outcomes: unknown[], api: unknown): Diagnosis[];

export interface FfnExerciseEventMap {
  'ffn-exercise-run': CustomEvent<{ exercise: ExerciseId }>;
  'ffn-exercise-result': CustomEvent<{ exercise: ExerciseId; report: GradeReport }>;
  'ffn-exercise-passed': CustomEvent<{ exercise: ExerciseId; report: GradeReport }>;
  'ffn-exercise-hint': CustomEvent<{ exercise: ExerciseId; index: number; hint: string }>;
  'ffn-exercise-solution-shown': CustomEvent<{ exercise: ExerciseId }>;
  'ffn-exercise-reset': CustomEvent<{ exercise: ExerciseId }>;
  'ffn-exercise-progress-imported': CustomEvent<{ exercise: ExerciseId; count: number }>;
}

/** <ffn-exercise exercise="gelu" timeout="2000" storage-key="ffn-lab:sandbox:v1"> */
export class FfnExerciseElement extends HTMLElement {
  exercise: string;
  timeout: number;
  storageKey: string;
  storage: StorageAdapter | null;
  api: unknown;
  seed: number | undefined;
  code: string;
  readonly report: GradeReport | null;
  run(): Promise<GradeReport | null>;
  reset(): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'ffn-exercise': FfnExerciseElement;
  }
}
