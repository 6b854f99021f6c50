// Types for ffn-lab/sandbox: grading, the exercise catalog and format, progress, mountExercise, <ffn-exercise>.

/** The ffn-lab API module a definition's tests, reference and variants receive (the package's own by default). */
export type FfnApi = typeof import('../index.js');

/** The built-in exercises' ids. */
export type ExerciseId =
  'gelu' | 'ffn' | 'swiglu' | 'swiglu-backward' | 'memories' | 'gqa-budget' | 'value-to-vocab' | 'rank-one-edit';
/** An exercise by id (a built-in one or one given to defineExercise), as an exercise or as a definition. */
export type ExerciseRef = ExerciseId | (string & {}) | Exercise | ExerciseDefinition;

export interface Tolerance {
  /** A test value passes when |got - expected| <= atol + rtol * |expected|. */
  atol: number;
  rtol: number;
}

/**
 * A text of a report for people: a message of the locale tables (web/i18n/en.js) by key and parameters, with its
 * English. <ffn-exercise> shows it in its language from key and params; read `text` for the English. Plain data:
 * JSON-safe and structured-cloneable. A text that has no key (the learner's own error message, an exercise's
 * words) is { key: 'report.raw', params: {}, text }: its text alone.
 */
export interface ReportText {
  key: string;
  /** Strings, numbers, and nested parameters as plain data (a message { key, params }, a number { v, text }...). */
  params: Record<string, unknown>;
  /** The English text, cut to the field's bound. */
  text: string;
}

/** The error learner code threw, as thrown: its English message (the test's `message` says it for people). */
export interface LearnerError {
  name: string;
  message: string;
  /** 1-based line in the learner's code, or null when unknown (for example a thrown non-Error). */
  line: number | null;
  /** 1-based column in the learner's code, or null. */
  column: number | null;
}

export interface TestResult {
  /** The test's id (TestCase.id, or derived from its name): translations key a test's name by it. */
  id: string;
  name: string;
  fn: string;
  pass: boolean;
  status: 'pass' | 'fail' | 'error' | 'refused' | 'timeout' | 'not-run';
  /** Largest |got - expected| over the output (Infinity when NaN/Inf disagree). */
  maxError?: number;
  /**
   * First element outside the tolerance: multi-index, flat index, values; key names the output field for object
   * results.
   */
  mismatch?: { key: string | null; index: number[]; flatIndex: number; got: number; expected: number };
  /** A shape or type problem, e.g. "returned shape [3,8], expected [2,3,8]". */
  problem?: ReportText;
  error?: LearnerError;
  /** One line for people. */
  message?: ReportText;
}

export interface Diagnosis {
  /**
   * A known-wrong variant ('gelu-swapped', 'ffn-missing-b1'...), a generic mistake ('generic-scaled',
   * 'generic-transposed'), 'wrong-keys', or 'direction' (no known mistake: where the failing tests go wrong).
   */
  id: string;
  fn: string;
  title: ReportText;
  message: ReportText;
  /** Names of the tests this diagnosis is about (for a variant, the failing tests it explains). */
  tests: string[];
  /** How many of the function's failing tests the mistake explains (absent for a direction). */
  explained?: number;
  /** How many tests of the function failed. */
  failing?: number;
  /** A variant that explains more than half of the failing tests but not all (the message says how many). */
  partial?: boolean;
}

export interface GradeReport {
  exercise: string;
  title: string;
  seed: number;
  tolerance: Tolerance;
  timeoutMs: number;
  total: number;
  passed: boolean;
  passedCount: number;
  /**
   * 'done' after a full run; 'error' for a syntax error, a refused source or a throw at top level; 'setup' when the
   * site's setup keeps the browser sandbox from starting (the summary names the URL and the fix).
   */
  status: 'done' | 'error' | 'timeout' | 'aborted' | 'crashed' | 'refused' | 'setup';
  summary: ReportText;
  /** What keeps the sandbox from starting (status 'setup' only): the URL, the problem and the fix. */
  setup?: ReportText;
  error: LearnerError | null;
  tests: TestResult[];
  diagnoses: Diagnosis[];
  /** Remarks that do not change the verdict, e.g. a function that changes its argument in place. */
  notes: ReportText[];
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
   * Override the worker file's URL (this package's worker.js or a stand-in, with toolkit.js beside it). Node runs
   * it as a worker_threads file; browsers fetch its text (and toolkit.js's) and run it in the sandbox frame
   * instead of the copy built into the package (without it, nothing is fetched).
   */
  workerUrl?: URL | string;
  /**
   * What one result may hold (default 200,000 numbers, nesting 8 deep, 32 keys); all of a run's results together
   * hold at most 5 × maxNumbers numbers, and a result past either is refused.
   */
  limits?: { maxNumbers?: number; maxDepth?: number; maxKeys?: number };
  onProgress?: (testIndex: number) => void;
}

/**
 * Grade learner source for one exercise, in browsers (a worker inside a sandboxed iframe) and Node (worker_threads).
 * Never rejects on learner behaviour; rejects with an ExerciseDefinitionError when the exercise's definition is
 * invalid.
 */
export function gradeExercise(exercise: ExerciseRef, source: string, options?: GradeOptions): Promise<GradeReport>;

/* ---------------- the exercise format (web/sandbox/AUTHORING.md, "Write your own exercise") ---------------- */

/** An integer array of indices: item and order word the learner's messages ("2nd strongest: got memory 4"). */
export interface IndicesKind {
  kind: 'integers';
  item?: string;
  order?: string;
}
export type ScalarKind = 'tensor' | 'number' | 'integer' | 'integers' | IndicesKind;
/** What a learner's function returns: one kind, or an object with one kind per key. */
export type ReturnKind = ScalarKind | { [key: string]: ScalarKind };

/** The seeded random source handed to a definition's tests(). */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** A standard normal draw. */
  normal(): number;
  uniform(lo: number, hi: number): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  /** One of the values. */
  pick<T>(values: readonly T[]): T;
  /** The values in a random order (a new array). */
  shuffle<T>(values: readonly T[]): T[];
  /** A float32 tensor with N(0, scale^2) entries. */
  randn(shape: number[], scale?: number): { data: Float32Array; shape: number[] };
  /** A float32 tensor with U(lo, hi) entries. */
  rand(shape: number[], lo: number, hi: number): { data: Float32Array; shape: number[] };
}

/** One named hidden test: the function it calls and the arguments (tensors are { data, shape }). */
export interface TestCase {
  /**
   * A stable id, 1 to 64 lower-case letters, digits and dashes, unique among the tests: translations name the test
   * by it. Optional: derived from the name when left out (then it changes with the name, and no translation may
   * name it).
   */
  id?: string;
  name: string;
  fn: string;
  args: any[];
}

export interface VariantDefinition {
  /** Lower-case id; several entries may share one (the same mistake in several functions or forms). */
  id: string;
  fn: string;
  title: string;
  /** What the learner is told when this mistake explains their failures. */
  message: string;
  /** The mistaken computation, on the page: (args, api) -> a value of the function's return kind. */
  compute(args: any[], api: FfnApi): unknown;
  /** The learner may have made the mistake in some of an object's fields only. */
  anyOf?: boolean;
}

export interface ExerciseDefinition {
  /** 1 to 64 lower-case letters, digits and dashes; unique on the page. */
  id: string;
  number?: number;
  title: string;
  level: string;
  /** Allow-listed HTML (web/sandbox/grade/README.md, "Prompt HTML"). */
  prompt: string;
  /** One entry per function: params such as 'x', 'X (..., d)', 'k in 0..dFF' or 'bias = true', and the return kind. */
  functions: Record<string, { params: string[]; returns: ReturnKind }>;
  starter: string;
  solution: string;
  hints: string[];
  examples?: string[];
  /** A value passes when |got - ref| <= atol + rtol |ref| (integers exactly). Default { atol: 1e-5, rtol: 1e-5 }. */
  tolerance?: Tolerance;
  /** The hidden tests for one seed: draw every random number from rng. Runs on the page. */
  tests(rng: Rng, api: FfnApi): TestCase[];
  /** The reference output of each function, computed on the page with the ffn-lab API or plain JS. */
  reference: Record<string, (args: any[], api: FfnApi) => unknown>;
  variants?: VariantDefinition[];
  /**
   * The exercise's text in other languages, by language tag ('fr', 'pt-BR'): shown when the element's or the page's
   * lang matches (the tag, then its primary subtag); the original text for whatever a translation does not give.
   */
  translations?: Record<string, ExerciseTranslation>;
}

/** An exercise's text in one language: hints and examples one per original; variants and tests by id. */
export interface ExerciseTranslation {
  title?: string;
  level?: string;
  /** Prompt HTML, checked against the same allow-list. */
  prompt?: string;
  starter?: string;
  hints?: string[];
  examples?: string[];
  /**
   * A variant's id -> its { title, message } in this language; where several functions share the id, a title or
   * message may be given per function ({ [functionName]: text }). A variant left out keeps its original text.
   */
  variants?: Record<string, { title?: string | Record<string, string>; message?: string | Record<string, string> }>;
  /** A hidden test's id (TestCase.id, given by the test) -> its name in this language. */
  tests?: Record<string, string>;
  /** A return kind's item or order word ("memory", "strongest") -> this language's. */
  words?: Record<string, string>;
}

/** A parameter as parsed from 'x', 'X (..., d)', 'k in 0..dFF' or 'bias = true'. */
export interface ExerciseParam {
  name: string;
  /** Declared shape: sizes by name or number, '...' first for any leading dimensions. */
  shape?: (string | number)[];
  /** Declared integer range [lo, hi]: numbers, size names or parameter names. */
  range?: [string | number, string | number];
  hasDefault?: boolean;
  default?: unknown;
}

/** A defined exercise (frozen): the definition, checked and normalized. */
export interface Exercise {
  readonly id: string;
  readonly number: number | null;
  readonly level: string;
  readonly title: string;
  readonly functions: Readonly<
    Record<
      string,
      {
        readonly params: readonly ExerciseParam[];
        readonly returns: unknown;
        /** The entry as the definition wrote it. */
        readonly declared: { readonly params: readonly string[]; readonly returns: ReturnKind };
      }
    >
  >;
  readonly functionNames: readonly string[];
  readonly prompt: string;
  readonly starter: string;
  readonly examples: readonly string[];
  readonly hints: readonly string[];
  readonly solution: string;
  readonly tolerance: Tolerance;
  tests(rng: Rng, api: FfnApi): TestCase[];
  readonly reference: Readonly<Record<string, (args: any[], api: FfnApi) => unknown>>;
  readonly variants: readonly (VariantDefinition & { anyOf: boolean })[];
  /**
   * The translations the definition carried, by lowercased language tag (the built-ins' French is not here: it is
   * loaded with the French interface, loadStrings('fr'), and the element shows it).
   */
  readonly translations: Readonly<Record<string, Readonly<ExerciseTranslation>>>;
}

/** Thrown by defineExercise (and by grading or checking, for problems that need the tests' values). */
export class ExerciseDefinitionError extends TypeError {
  /** The field at fault: 'id', 'functions.my-fn', 'reference.f', 'variants[2] ("id")', 'prompt', ... */
  readonly field: string;
  readonly exercise: string | null;
}

/**
 * Check a definition and register it under its id, for <ffn-exercise exercise="id">, mountExercise and gradeExercise.
 * Throws an ExerciseDefinitionError naming the field. Defining the same object twice returns the same exercise.
 */
export function defineExercise(definition: ExerciseDefinition): Exercise;

export interface ExerciseCheckReport {
  ok: boolean;
  exercise: string;
  seeds: number[];
  /** Number of hidden tests for each seed. */
  tests: number[];
  variants: number;
  problems: { field: string; seed: number | null; message: string }[];
  /** The report as lines for a terminal. */
  text: string;
}

/**
 * Before publishing: the reference solution passes every test for several seeds, every variant fails and is
 * diagnosed as itself, the tests are deterministic per seed.
 */
export function checkExercise(
  exercise: ExerciseRef,
  options?: { seeds?: number[]; api?: unknown; ready?: unknown; timeout?: number; workerUrl?: URL | string },
): Promise<ExerciseCheckReport>;

/** The hidden tests of an exercise for a seed, with their expected values (for authors). */
export function hiddenTests(
  exercise: ExerciseRef,
  options?: { seed?: number; api?: unknown; ready?: unknown },
): Promise<(TestCase & { id: string; expected: unknown })[]>;

/** The eight built-in exercises, in the course's order. */
export const exercises: readonly Exercise[];
export const exerciseIds: readonly ExerciseId[];
/** Every defined exercise's id, built-ins first. */
export function definedExerciseIds(): string[];
export function getExercise(id: string): Exercise;
export const toolkitNames: readonly string[];
/** The interface language: add or override a locale's strings (lang="..." on the element or page picks one). */
export { defineStrings, getStrings, loadStrings, StringsTable, StringTemplate } from '../i18n/index.js';

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
  /** Why saved progress (or part of it) could not be read at the last read (`text` its English), or null. */
  readonly problem: ReportText | null;
  /** Why this exercise's saved progress was not all read (its own reason, or the whole text's), or null. */
  problemWith(id: string): ReportText | null;
  /** What the last successful importJSON did: entries imported, and those skipped with why. */
  readonly lastImport: { imported: number; skipped: { id: string; reason: ReportText }[] } | null;
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
export function importProgress(
  json: string,
  options?: { storage?: StorageAdapter; key?: string; replace?: boolean },
): number;

export interface MountOptions {
  timeout?: number;
  storageKey?: string;
  storage?: StorageAdapter;
  seed?: number;
  api?: unknown;
  /** The editor: textareaEditor (the default) or codeMirrorEditor(...). */
  editor?: ExerciseEditor;
}

/** What an editor adapter gives the element (the built-in textarea editor has the same interface). */
export interface EditorInstance {
  /** The element put in the exercise, in place of the built-in editor (part="editor"). */
  readonly root: HTMLElement;
  value: string;
  focus(): void;
  /** Put the caret at a 1-based line and column. */
  goTo(line: number, column?: number): void;
  /** Mark the line of the learner's error, or none (null). */
  markLine(line: number | null): void;
  destroy(): void;
}

export interface EditorOptions {
  value?: string;
  /** The editing area's accessible name, and the id of its keyboard help. */
  label?: string;
  describedBy?: string;
  onRun?: () => void;
  onChange?: (value: string) => void;
  onBlur?: () => void;
  /** The element's shadow root (CodeMirror mounts its styles there). */
  root?: ShadowRoot;
}

/** An editor for <ffn-exercise>'s `editor` property. */
export interface ExerciseEditor {
  readonly kind: string;
  create(doc: Document, options: EditorOptions): EditorInstance;
}

/** The built-in editor: a textarea with line numbers (no dependency). The default. */
export const textareaEditor: ExerciseEditor;

/**
 * A site's CodeMirror 6 as the editor, without ffn-lab importing it: view and state are the site's @codemirror/view
 * and @codemirror/state modules (import * as view from '@codemirror/view'), extensions its own (basicSetup,
 * javascript()...). The learner's error line gets the class cm-ffn-error-line; Ctrl/Cmd+Enter runs the tests.
 */
export function codeMirrorEditor(modules: { view: unknown; state: unknown; extensions?: unknown }): ExerciseEditor;

export interface MountedExercise {
  element: FfnExerciseElement;
  run(): Promise<GradeReport | null>;
  reset(): void;
  destroy(): void;
}

/** Create an <ffn-exercise> inside container (for frameworks). */
export function mountExercise(
  container: Element,
  id: ExerciseId | (string & {}),
  options?: MountOptions,
): MountedExercise;

/** Register <ffn-exercise> (idempotent); false outside browsers. */
export function defineFfnExercise(name?: string): boolean;

export interface FfnExerciseEventMap {
  'ffn-exercise-run': CustomEvent<{ exercise: string }>;
  'ffn-exercise-result': CustomEvent<{ exercise: string; report: GradeReport }>;
  'ffn-exercise-passed': CustomEvent<{ exercise: string; report: GradeReport }>;
  'ffn-exercise-hint': CustomEvent<{ exercise: string; index: number; hint: string }>;
  'ffn-exercise-solution-shown': CustomEvent<{ exercise: string }>;
  'ffn-exercise-reset': CustomEvent<{ exercise: string }>;
  'ffn-exercise-progress-imported': CustomEvent<{ exercise: string; count: number }>;
}

/** <ffn-exercise exercise="gelu" timeout="2000" storage-key="ffn-lab:sandbox:v1"> */
export class FfnExerciseElement extends HTMLElement {
  exercise: string;
  timeout: number;
  storageKey: string;
  /** The heading's number (attribute number): its text, '' for none; set as text or a number. */
  get number(): string;
  set number(v: string | number);
  storage: StorageAdapter | null;
  api: unknown;
  seed: number | undefined;
  code: string;
  /** The editor (textareaEditor by default); setting it renders the exercise again, keeping the code. */
  editor: ExerciseEditor;
  readonly report: GradeReport | null;
  run(): Promise<GradeReport | null>;
  reset(): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'ffn-exercise': FfnExerciseElement;
  }
}
