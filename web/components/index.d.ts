// Types of ffn-lab/components: the three custom elements and their pure models.
import type * as Ffn from '../index.js';

type FfnModule = typeof Ffn;
type Activation = 'relu' | 'gelu' | 'silu';

export interface Fact {
  key: string;
  value: string;
  threshold?: number;
}

export type MemoryState = 'fires' | 'leaks' | 'silent';

export interface MemoryResult {
  query: [number, number];
  k: number;
  activation: Activation;
  /** x . k_i + b_i for every memory. */
  match: Float32Array;
  /** phi(match) for every memory. */
  coef: Float32Array;
  /** Indices of the k strongest memories, largest first (the kernel's top-k, silent memories included). */
  top: number[];
  /** Per memory: its 1-based place in `top` if it adds something (phi != 0), else 0. */
  rank: number[];
  partial: Float32Array;
  written: Float32Array;
  /** True unless `written` is exactly the zero vector. */
  writes: boolean;
  scores: Float32Array;
  partialScores: Float32Array;
  decoded: { token: string | null; index: number; score: number };
  partialDecoded: { token: string | null; index: number; score: number };
  /** match > 0 (and phi > 0). */
  fires: number[];
  /** match <= 0 but phi != 0 (GELU, SiLU). */
  leaks: number[];
  /** phi == 0: adds nothing. */
  silent: number[];
  /** The state of every memory. */
  states: MemoryState[];
  /** The status line the widget shows and announces (set by the element; absent from memoryModel.compute). */
  status?: string;
}

/**
 * <ffn-memory-widget facts="Saint Petersburg>Russia, Paris>France@1.2" distractors="the, of" threshold="0.5" k="3"
 * activation="relu" query="0,1" token="Tokyo" sync-hash>: 1 to 8 facts, labels of 1 to 64 characters
 * (spaces allowed, not > @ , ;); threshold in [-2, 3.5], default memoryModel.defaultThreshold(facts).
 */
export class FfnMemoryWidget extends HTMLElement {
  facts: Fact[];
  distractors: string[];
  query: [number, number];
  k: number;
  /** The threshold in use: the one set, else the default for the facts. */
  threshold: number;
  activation: Activation;
  /** The token the query was put on (attribute, property or button), null once it moves elsewhere. */
  token: string | null;
  /** The name of the widget's part of the URL hash (attribute sync-hash), or null. */
  syncHash: string | null;
  theme: 'light' | 'dark' | null;
  readonly result: MemoryResult | null;
  selectToken(name: string, opts?: { animate?: boolean }): void;
}

export interface ReadoutRow {
  id: string;
  label: string;
  y: number;
  dy: number;
}
export interface Readout {
  x: number;
  rows: ReadoutRow[];
  errTanh: number;
  errSigmoid: number;
}

/** <ffn-activation-plot x="-0.752" range="-4,4" curves="relu,gelu,silu">: range in [-1000, 1000], 0.01 wide or more. */
export class FfnActivationPlot extends HTMLElement {
  x: number;
  /** Set as [lo, hi] or "lo,hi". */
  range: [number, number];
  /** The curves shown: ids of relu, relu2, gelu, gelu_tanh, gelu_sigmoid, silu; set as an array or "a,b". */
  curves: string[];
  theme: 'light' | 'dark' | null;
  readonly readout: Readout | null;
  readonly annotations: {
    gelu: { x: number; y: number };
    silu: { x: number; y: number };
    peaks: { tanh: { x: number; err: number }; sigmoid: { x: number; err: number } };
  } | null;
}

export interface BlockConfig {
  d: number;
  /** 'llama' sizes d_ff by the LLaMA rule; ignored with moe (an expert's dff is always taken as given). */
  dffMode?: 'explicit' | 'llama';
  dff?: number;
  multipleOf?: number;
  multiplier?: number | null;
  gated?: boolean;
  bias?: boolean;
  heads: number;
  kvHeads: number;
  headDim?: number | null;
  moe?: { experts: number; active: number; shared?: number } | null;
}

export interface BlockCounts {
  d: number;
  dff: number;
  gated: boolean;
  bias: boolean;
  heads: number;
  kvHeads: number;
  headDim: number;
  ratio: number;
  ffnParams: number;
  ffnFlops: number;
  attnParams: number;
  attnFlops: number;
  share: number;
  moe: null | {
    experts: number;
    active: number;
    shared: number;
    router: number;
    totalParams: number;
    activeParams: number;
    activeFraction: number;
    activeFlops: number;
    totalFlopsIfDense: number;
    shareTotal: number;
    shareActive: number;
  };
}

export type PresetId = 'transformer' | 'gpt2' | 'llama7b' | 'llama3_8b' | 'llama2_70b' | 'qwen3_moe';

/** An author's preset: an id (letters, digits, - and _, at most 32; not a built-in one), a label, and the sizes. */
export interface AuthorPreset extends BlockConfig {
  id: string;
  label: string;
}

/**
 * <ffn-param-calculator preset="llama7b" d="4096" rule="llama" multiple-of="256" gated bias="false" heads="32"
 * kv-heads="8" presets='[{"id":"mine","label":"Mine","d":2048,"dff":8192,"heads":16,"kvHeads":4}]'>: sizes up to
 * paramModel.LIMITS.
 */
export class FfnParamCalculator extends HTMLElement {
  config: BlockConfig;
  /** Author presets, shown after the built-in ones (at most 16). */
  presets: AuthorPreset[];
  /** The preset the configuration is, or null once a size was changed after it. */
  preset: PresetId | (string & {}) | null;
  d: number;
  /** d-ff; null under the LLaMA rule. */
  dff: number | null;
  rule: 'explicit' | 'llama';
  /** multiple-of and multiplier: null under the explicit rule. */
  multipleOf: number | null;
  multiplier: number | null;
  gated: boolean;
  bias: boolean;
  heads: number;
  kvHeads: number;
  headDim: number | null;
  /** The mixture of experts' counts, null while dense. */
  experts: number | null;
  activeExperts: number | null;
  sharedExperts: number | null;
  theme: 'light' | 'dark' | null;
  readonly result: BlockCounts | null;
  /** A built-in preset or an author preset's id. */
  applyPreset(id: PresetId | (string & {})): void;
}

type Tensor = { data: Float32Array; shape: number[] };

/** The hand-built memory FFN: x (2) @ W1 (2, N) + b1 (N) -> match; coef (N) @ W2 (N, 2) -> written. */
export interface MemoryFfn {
  d: 2;
  dff: number;
  facts: Fact[];
  thresholds: number[];
  tokens: { name: string; kind: 'key' | 'distractor'; pos: [number, number]; angle?: number }[];
  keyTokens: { name: string; kind: 'key'; pos: [number, number]; angle: number }[];
  vocab: { name: string; angle: number; dir: [number, number] }[];
  W1: Tensor;
  b1: Tensor;
  W2: Tensor;
  W1aug: Tensor;
  UT: Tensor;
}

export declare namespace memoryModel {
  const KEY_SCALE: number;
  const VALUE_SCALE: number;
  /** The default threshold of the three default facts (defaultThreshold(3)). */
  const DEFAULT_THRESHOLD: number;
  /** The lowest default threshold. */
  const THRESHOLD_FLOOR: number;
  /** Every threshold lies in [THRESHOLD_MIN, THRESHOLD_MAX]. */
  const THRESHOLD_MIN: number;
  const THRESHOLD_MAX: number;
  /** The query's coordinates stay within [-QUERY_LIMIT, QUERY_LIMIT]. */
  const QUERY_LIMIT: number;
  /** A decoded score below this counts as "writes nothing". */
  const DECODE_MIN: number;
  const MAX_FACTS: number;
  const MAX_DISTRACTORS: number;
  /** Characters in one token's label, at most. */
  const MAX_LABEL: number;
  /** Characters of the widget's part of the URL hash, at most. */
  const HASH_MAX: number;
  /** Characters of a URL hash searched for the widget's part, at most. */
  const HASH_READ_MAX: number;
  const ACTIVATIONS: readonly Activation[];
  const DEFAULT_FACTS: readonly Fact[];
  const DEFAULT_DISTRACTORS: readonly string[];
  /** Degrees between neighbouring keys for n facts. */
  function keyStep(n: number): number;
  /** The threshold used for n facts when none is set. */
  function defaultThreshold(n: number): number;
  function parseLabel(name: string, value: string, opts?: { word?: boolean }): string;
  function parseThreshold(value: string | number, name?: string): number;
  function parseFacts(input: string | readonly Fact[]): Fact[];
  function formatFacts(facts: readonly Fact[]): string;
  function parseDistractors(input: string | readonly string[]): string[];
  function parseQuery(value: string, name?: string): [number, number];
  function clampQuery(v: number): number;
  function parseK(value: string | number, name?: string): number;
  function parseActivation(value: string, name?: string): Activation;
  function parseHashKey(value: string): string;
  function parseHashState(value: string): {
    state: { query?: [number, number]; k?: number; threshold?: number; activation?: Activation };
    ignored: string[];
  };
  /** parseHashState, each ignored part as a message shown in the reader's language (String() of one is English). */
  function readHashState(value: string): { state: ReturnType<typeof parseHashState>['state']; ignored: object[] };
  /** The widget's part (key) of a URL hash, or null; a RangeError for a hash longer than HASH_READ_MAX. */
  function readHashFrom(hash: string, key: string): ReturnType<typeof readHashState> | null;
  function formatHashState(state: {
    query: [number, number];
    k: number;
    threshold: number;
    activation: Activation;
  }): string;
  /** The parser of each attribute of <ffn-memory-widget>; throws a TypeError or RangeError naming the attribute. */
  function parseAttribute(name: string, value: string): unknown;
  function buildMemory(facts?: readonly Fact[], distractors?: readonly string[], threshold?: number): MemoryFfn;
  function compute(
    ffn: FfnModule,
    mem: MemoryFfn,
    state: { x: number; y: number; k?: number; activation?: Activation },
  ): MemoryResult;
  function nearestToken(mem: MemoryFfn, x: number, y: number, radius?: number): MemoryFfn['tokens'][number] | null;
  function firingRegion(mem: MemoryFfn, i: number, lim?: number): [number, number][];
}

export declare namespace activationModel {
  /** The curves, in drawing order: id (API activation name), kernel function name, label. */
  const CURVES: readonly { readonly id: string; readonly fn: string; readonly label: string }[];
  const CURVE_IDS: readonly string[];
  /** A range lies in [-RANGE_LIMIT, RANGE_LIMIT] and spans MIN_SPAN or more; curves are sampled at SAMPLES points. */
  const RANGE_LIMIT: number;
  const MIN_SPAN: number;
  const SAMPLES: number;
  function parseRange(value: string): [number, number];
  function parseX(value: string): number;
  function parseCurves(value: string): string[];
  /** The parser of each attribute of <ffn-activation-plot>; throws a TypeError or RangeError naming the attribute. */
  function parseAttribute(name: string, value: string): unknown;
  /** At most maxCount + 1 ticks 1, 2 or 5 times a power of ten apart within [lo, hi]. */
  function niceTicks(lo: number, hi: number, maxCount?: number): { step: number; values: number[]; decimals: number };
  function grid(lo: number, hi: number, n: number): Float32Array;
  function sample(ffn: FfnModule, xs: Float32Array): Record<string, { y: Float32Array; dy: Float32Array }>;
  function geluErrorsOf(
    exact: ArrayLike<number>,
    tanh: ArrayLike<number>,
    sigmoid: ArrayLike<number>,
  ): { tanh: Float32Array; sigmoid: Float32Array };
  function geluErrors(ffn: FfnModule, xs: Float32Array): { tanh: Float32Array; sigmoid: Float32Array };
  function errorPeaks(
    ffn: FfnModule,
    lo?: number,
    hi?: number,
    n?: number,
  ): { tanh: { x: number; err: number }; sigmoid: { x: number; err: number } };
  function findMinimum(ffn: FfnModule, id: string, lo?: number, hi?: number): { x: number; y: number };
  function readout(ffn: FfnModule, x: number): Readout;
}

export declare namespace paramModel {
  const PRESETS: Readonly<Record<PresetId, BlockConfig & { label: string }>>;
  const DEFAULTS: Readonly<BlockConfig>;
  /** The largest sizes accepted (every count stays an exact integer). */
  const LIMITS: Readonly<{
    d: number;
    dff: number;
    heads: number;
    headDim: number;
    multipleOf: number;
    multiplier: number;
    experts: number;
    shared: number;
  }>;
  const MAX_PRESETS: number;
  const PRESETS_MAX_CHARS: number;
  /** The full configuration, checked (DEFAULTS for what is missing); throws a RangeError/TypeError naming the field. */
  function validateConfig(input: Partial<BlockConfig>): Required<BlockConfig>;
  function findPreset(
    id: string,
    extra?: readonly { id: string; label: string; config: BlockConfig }[],
  ): { id: string; label: string; config: BlockConfig } | null;
  /** Author presets from JSON text or an array, each checked. */
  function parsePresets(
    input: string | readonly AuthorPreset[],
  ): { id: string; label: string; config: Required<BlockConfig> }[];
  /** The parser of each attribute of <ffn-param-calculator>; throws a TypeError or RangeError naming the attribute. */
  function parseAttribute(name: string, value: string): unknown;
  function computeBlock(ffn: FfnModule, input: BlockConfig): BlockCounts;
}

/** A fact of the memory lab: labels of 1 to 64 characters. */
export interface LabFact {
  subject: string;
  relation: string;
  object: string;
}

/** One edit's measured outcome (<ffn-memory-lab>'s state.edits). */
export interface LabEdit {
  method: 'rankOne' | 'fineTune';
  fact: number;
  newObject: number;
  flipped: boolean;
  predicted: number;
  /** Of the `of` other facts stored before the edit, how many still give their object. */
  kept: number;
  of: number;
  neighbours: { fact: number; before: number; after: number }[];
  steps: number;
}

export interface LabState {
  step: number;
  loss: number;
  accuracy: number;
  stored: number;
  nFacts: number;
  dff: number;
  seed: number;
  training: boolean;
  measuring: boolean;
  /** Where the steps run: a worker, main-thread slices, or null before the first run. */
  driver: 'worker' | 'frames' | null;
  fact: LabFact & { index: number };
  memory: number | null;
  edited: 'rankOne' | 'fineTune' | null;
  edits: { rankOne: LabEdit | null; fineTune: LabEdit | null };
  capacity: { dff: number; stored: number; n: number }[];
}

/**
 * <ffn-memory-lab facts="Japan | capital | Tokyo&#10;..." seed="1" d-ff="512" fact="Japan · capital" memory="17">:
 * an FFN trained on facts in the page (default: the countries of countries-list), read and edited. facts: 1 to 4,096
 * lines "subject | relation | object"; d-ff one of 32, 64, 128, 256, 512, 1024; seed 1 to 2^31 - 1.
 */
export class FfnMemoryLab extends HTMLElement {
  facts: LabFact[];
  seed: number;
  dff: number;
  /** "Japan · capital": the fact inspected. */
  fact: string;
  /** The memory shown, or null. */
  memory: number | null;
  readonly trainer: unknown;
  readonly training: boolean;
  readonly state: LabState | null;
  train(): Promise<LabState>;
  pause(): void;
  step(): Promise<LabState>;
  reset(): void;
  measure(): Promise<LabState>;
  stopMeasure(): void;
  edit(method: 'rankOne' | 'fineTune'): Promise<LabEdit | null>;
  undo(): boolean;
}

export declare namespace labFacts {
  const MAX_FACTS: number;
  const MAX_LABEL: number;
  const MAX_CHARS: number;
  const COUNTRY_RELATIONS: readonly string[];
  function countryFacts(): LabFact[];
  /** Text (one "subject | relation | object" a line; blank and # lines skipped) or an array; refusals name the line. */
  function parseFacts(input: string | readonly (LabFact | [string, string, string])[]): LabFact[];
  function formatFacts(facts: readonly LabFact[]): string;
  function indexFacts(facts: readonly LabFact[]): {
    facts: LabFact[];
    triples: Int32Array;
    subjects: string[];
    relations: string[];
    objects: string[];
  };
}

/** The lab's readings and edits over a trainer (ffn.createMemoryModel): see web/components/memory-lab/README.md. */
export declare const labModel: Record<string, unknown>;

declare global {
  interface HTMLElementTagNameMap {
    'ffn-memory-widget': FfnMemoryWidget;
    'ffn-memory-lab': FfnMemoryLab;
    'ffn-activation-plot': FfnActivationPlot;
    'ffn-param-calculator': FfnParamCalculator;
  }
}

/** The interface language: add or override a locale's strings (lang="..." on the element or page picks one). */
export { defineStrings, getStrings, loadStrings, StringsTable, StringTemplate } from '../i18n/index.js';
