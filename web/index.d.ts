// Type declarations of the ffn-lab API (both the default `ffn-lab` entry and `ffn-lab/url`).

/** A dense float32 tensor, row-major. `data.length` is the product of `shape`. */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}

/** Nested rectangular number arrays of any depth (a number alone is not accepted). */
export type NestedArray = number[] | NestedArray[];

/** Numeric typed arrays accepted as 1-D input (BigInt arrays are not). */
export type NumericArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array;

/**
 * Anything an array argument accepts: a tensor-like `{ data, shape }`, a nested rectangular
 * number array, or a flat typed array / number[] (1-D).
 */
export type TensorLike =
  | Tensor
  | { data: ArrayLike<number> | NumericArray | NestedArray; shape: readonly number[] }
  | NestedArray
  | NumericArray;

/** Activation names accepted by activationGrad, ffn and gatedFfn. */
export type ActivationName = 'relu' | 'relu2' | 'sigmoid' | 'silu' | 'gelu' | 'gelu_tanh' | 'gelu_sigmoid' | 'identity';

/** Where the wasm comes from: a URL (or URL string / file path in Node), its bytes, or a compiled module. */
export type WasmSource = URL | string | ArrayBuffer | ArrayBufferView | WebAssembly.Module;

export interface ReadyOptions {
  /**
   * The wasm module, used as given. Default: the inlined bytes (`ffn-lab`) or
   * `new URL('./ffn.wasm', import.meta.url)` (`ffn-lab/url`), or their relaxed-SIMD builds (see `relaxed`).
   */
  wasm?: WasmSource;
  /**
   * Which build to load when `wasm` is absent (`wasm` with `true` or `false` is a TypeError). `'auto'`
   * (default): the relaxed-SIMD build (`ffn-relaxed.wasm`, fused multiply-add in the GEMM) where the engine
   * runs relaxed SIMD, else `ffn.wasm`, and `ffn.wasm` with a console warning if the relaxed build cannot
   * be loaded; `true`: the relaxed build or a rejected promise; `false`: always `ffn.wasm` (results the
   * same on every machine). After a first ready(), `true` or `false` that the loaded build does not match
   * rejects.
   */
  relaxed?: 'auto' | boolean;
}

/** Which build ready() loaded, and which GEMM microkernel it selected. */
export interface WasmInfo {
  /** `'relaxed'`: ffn-relaxed.wasm (its GEMM uses f32x4.relaxed_madd); `'simd128'`: ffn.wasm. */
  simd: 'relaxed' | 'simd128';
  /**
   * The GEMM microkernel chosen for this engine: `'prebroadcast'` (A broadcast by the packing) in JavaScriptCore and
   * in V8 before 12 (Node 20) on ffn.wasm, `'splat'` (A broadcast in the loop) elsewhere. Results are bit-identical.
   */
  gemmKernel: 'splat' | 'prebroadcast';
}

/** Which build ready() loaded. Throws an Error before ready() resolves. */
export function wasmInfo(): WasmInfo;

/**
 * Instantiate the wasm module once; later calls return the same promise (their options are ignored,
 * except an explicit `relaxed` the loaded build does not match, which rejects).
 * A failed load can be retried. Every other function throws an Error if called before it resolves.
 */
export function ready(opts?: ReadyOptions): Promise<void>;

/** The activation names, in a fixed order. */
export const activations: readonly ActivationName[];

/** Wasm heap diagnostics (leak checks). */
export interface HeapStats {
  /** Bytes currently handed out by the wasm malloc (flat between calls: every call frees what it allocates). */
  heapInUse: number;
  /** Current size of wasm memory in bytes (grows, never shrinks). */
  memoryBytes: number;
  /** The most wasm memory can ever hold; requests above it fail with a RangeError before allocating. */
  maxMemoryBytes: number;
  /** How many times wasm memory grew since ready(). */
  growths: number;
}
export function heapStats(): HeapStats;

/**
 * Make a tensor with a fresh Float32Array. With `shape`, `data` (flat or nested) must have exactly
 * prod(shape) elements; without it the shape is inferred (nested arrays) or 1-D.
 * @example tensor([1, 2, 3, 4, 5, 6], [2, 3]) // { data: Float32Array(6), shape: [2, 3] }
 */
export function tensor(data: TensorLike, shape?: readonly number[]): Tensor;

/**
 * Options of the elementwise functions. `out`: a Float32Array with exactly as many elements as x, into
 * which the result is written (it may be x's own array: in place; not a view of ffn-lab's wasm memory);
 * the call then returns `{ data: out, shape }`. Without it the result is a fresh Float32Array.
 * @example const out = new Float32Array(x.length); ffn.gelu(x, { out }); // out holds gelu(x); reuse it across calls
 */
export interface ElementwiseOptions {
  out?: Float32Array;
}

/** max(0, x) elementwise; result has x's shape (written into opts.out if given). */
export function relu(x: TensorLike, opts?: ElementwiseOptions): Tensor;
/** max(0, x)^2 elementwise (squared ReLU). */
export function relu2(x: TensorLike, opts?: ElementwiseOptions): Tensor;
/** Logistic sigmoid 1 / (1 + e^-x), stable for large |x|. */
export function sigmoid(x: TensorLike, opts?: ElementwiseOptions): Tensor;
/** SiLU (Swish-1): x * sigmoid(x). */
export function silu(x: TensorLike, opts?: ElementwiseOptions): Tensor;
/** Exact GELU x * Phi(x) (through erfc, accurate in the negative tail), as PyTorch F.gelu. */
export function gelu(x: TensorLike, opts?: ElementwiseOptions): Tensor;
/** GELU tanh approximation, as PyTorch F.gelu(x, approximate='tanh') and GPT-2. */
export function geluTanh(x: TensorLike, opts?: ElementwiseOptions): Tensor;
/** GELU sigmoid approximation x * sigmoid(1.702 x). */
export function geluSigmoid(x: TensorLike, opts?: ElementwiseOptions): Tensor;
/** The derivative phi'(x) of the named activation, elementwise (written into opts.out if given). */
export function activationGrad(name: ActivationName, x: TensorLike, opts?: ElementwiseOptions): Tensor;

/** A (..., k) @ B (k, n) -> (..., n). */
export function matmul(A: TensorLike, B: TensorLike): Tensor;

export interface FfnOptions {
  /** Default 'gelu_tanh' (GPT-2). */
  activation?: ActivationName;
}
/**
 * Classic FFN phi(X W1 + b1) W2 + b2 for X (..., d), W1 (d, dFF), b1 (dFF) or null,
 * W2 (dFF, d), b2 (d) or null. Result has X's shape.
 */
export function ffn(
  X: TensorLike,
  W1: TensorLike,
  b1: TensorLike | null | undefined,
  W2: TensorLike,
  b2: TensorLike | null | undefined,
  opts?: FfnOptions,
): Tensor;

export interface GatedFfnOptions {
  /** Default 'silu' (SwiGLU); 'sigmoid' GLU, 'identity' bilinear, 'relu' ReGLU, 'gelu'/'gelu_tanh' GEGLU. */
  activation?: ActivationName;
}
/** Gated FFN (phi(X Wg) * (X Wu)) Wd for X (..., d), Wg and Wu (d, dFF), Wd (dFF, d); no biases. */
export function gatedFfn(X: TensorLike, Wg: TensorLike, Wu: TensorLike, Wd: TensorLike, opts?: GatedFfnOptions): Tensor;
/** SwiGLU FFN (SiLU(X Wg) * (X Wu)) Wd, as LLaMA. */
export function swigluFfn(X: TensorLike, Wg: TensorLike, Wu: TensorLike, Wd: TensorLike): Tensor;

export interface SwigluGradients {
  /** dL/dX, shape of X. */
  dX: Tensor;
  /** dL/dWg, (d, dFF). */
  dWGate: Tensor;
  /** dL/dWu, (d, dFF). */
  dWUp: Tensor;
  /** dL/dWd, (dFF, d). */
  dWDown: Tensor;
}
/** Backward pass of swigluFfn given dY = dL/dY; X and dY (N, d). Recomputes the forward intermediates. */
export function swigluBackward(
  dY: TensorLike,
  X: TensorLike,
  Wg: TensorLike,
  Wu: TensorLike,
  Wd: TensorLike,
): SwigluGradients;

export interface FfnMemories {
  /** relu(x W1 + b1), one activation per memory, (dFF). */
  coef: Tensor;
  /** Indices of the k largest coef, largest first, ties by lower index. */
  top: Int32Array;
  /** sum over i in top of coef[i] * W2[i, :], (d). */
  partial: Tensor;
}
/** Key-value-memory view of a ReLU FFN without output bias, for one token x (d); 0 <= k <= dFF. */
export function ffnMemories(
  x: TensorLike,
  W1: TensorLike,
  b1: TensorLike | null | undefined,
  W2: TensorLike,
  k: number,
): FfnMemories;

export interface ParamCountOptions {
  /** Count biases (default true). */
  bias?: boolean;
  /** Gated FFN with three matrices (default false). */
  gated?: boolean;
}
/** Parameters of one FFN: 2 d dFF (+ dFF + d) ungated, 3 d dFF (+ 2 dFF + d) gated. */
export function ffnParamCount(d: number, dFF: number, opts?: ParamCountOptions): number;

export interface LlamaHiddenDimOptions {
  /** Round up to a multiple of this (default 256). */
  multipleOf?: number;
  /** Extra width factor applied before rounding (default null: none). */
  ffnDimMultiplier?: number | null;
}
/** LLaMA's SwiGLU width: int(8d/3), times the multiplier if given, rounded up (4096 -> 11008). */
export function llamaHiddenDim(d: number, opts?: LlamaHiddenDimOptions): number;

/** Forward FLOPs per token: 4 d dFF ungated, 6 d dFF gated (2 per weight). */
export function ffnFlops(d: number, dFF: number, opts?: { gated?: boolean }): number;

/* ---------------- resident layers (fast kernels) ---------------- */

/** A layer whose weights are packed once into wasm memory; free them with dispose(). */
export interface ResidentLayer {
  /**
   * Runs the layer on X (..., dIn) and returns (..., dOut): a fresh tensor, or with opts.out (a Float32Array
   * of exactly the result's length) the result written into it and returned
   * as its data. Throws after dispose().
   */
  forward(X: TensorLike, opts?: { out?: Float32Array }): Tensor;
  /** Frees the packed weights and scratch memory; calling it again does nothing. */
  dispose(): void;
  /** True once dispose() was called. */
  readonly disposed: boolean;
  readonly activation: ActivationName;
}
export interface LinearLayer extends ResidentLayer {
  readonly dIn: number;
  readonly dOut: number;
}
export interface FfnLayer extends ResidentLayer {
  readonly d: number;
  readonly dFF: number;
}
export interface LinearSpec {
  /** Weights (dIn, dOut). */
  W: TensorLike;
  /** Bias (dOut), or null/undefined for none. */
  b?: TensorLike | null;
  /** Activation fused into the GEMM epilogue (default 'identity'). */
  activation?: ActivationName;
}
/** Y = act(X W + b) on the packed SIMD GEMM, weights resident. */
export function createLinear(spec: LinearSpec): LinearLayer;
export interface FfnSpec {
  W1: TensorLike;
  b1?: TensorLike | null;
  W2: TensorLike;
  b2?: TensorLike | null;
  /** Default 'gelu_tanh'. */
  activation?: ActivationName;
}
/** Y = act(X W1 + b1) W2 + b2 with W1 (d, dFF), W2 (dFF, d) packed once. */
export function createFfn(spec: FfnSpec): FfnLayer;
export interface GatedFfnSpec {
  Wg: TensorLike;
  Wu: TensorLike;
  Wd: TensorLike;
  /** Default 'silu' (SwiGLU). */
  activation?: ActivationName;
}
/** Y = (act(X Wg) * (X Wu)) Wd with Wg, Wu (d, dFF) packed interleaved and Wd (dFF, d); the gate product is fused. */
export function createGatedFfn(spec: GatedFfnSpec): FfnLayer;

/* ---- the memory lab's resident trainer (web/train.js) ---- */

/** Largest sizes createMemoryModel accepts: facts N, d, d_ff, and each of nSubjects, nRelations, nObjects. */
export const MEMORY_LIMITS: Readonly<{ facts: 4096; d: 512; dff: 4096; ids: 4096 }>;
export type IdArray = ArrayLike<number>;
export interface MemoryOptimizer {
  /** Learning rate, finite > 0 (default 0.03). */
  lr?: number;
  /** Default 0.9. */
  beta1?: number;
  /** Default 0.999. */
  beta2?: number;
  /** Default 1e-8. */
  eps?: number;
  /** Decoupled weight decay (AdamW), default 0. */
  weightDecay?: number;
}
export interface MemoryModelSpec {
  /** N (subject, relation, object) id triples, flat (3N ids), or three id arrays of one length. */
  facts: IdArray | { subjects: IdArray; relations: IdArray; objects: IdArray };
  /** Vocabulary sizes (default: the largest id + 1), at most MEMORY_LIMITS.ids. */
  nSubjects?: number;
  nRelations?: number;
  nObjects?: number;
  /** Default 128, at most 512. */
  d?: number;
  /** Default 512, at most 4096. */
  dff?: number;
  /** Default 'relu'. */
  activation?: ActivationName;
  /** Integer in [0, 2^32), default 1: the embeddings and the initial weights. */
  seed?: number;
  optimizer?: MemoryOptimizer;
}
export interface MemoryStepResult {
  /** Steps taken so far (AdamW's t). */
  step: number;
  /** The last step's loss and accuracy on its batch, before its update. */
  loss: number;
  accuracy: number;
  correct: number;
  /** False when a step's loss was not finite: training stopped there without updating. */
  finite: boolean;
}
export interface MemoryEvaluation {
  loss: number;
  accuracy: number;
  correct: number;
  /** The argmax object of every fact (-1 where a logit is NaN). */
  predictions: Int32Array;
}
export interface MemoryWeights<T = Float32Array> {
  W1: T;
  b1: T;
  W2: T;
  E_subject: T;
  E_relation: T;
  U: T;
}
/** An opaque copy of W1, b1, W2, the Adam moments and the step, for restore(). */
export interface MemorySnapshot {
  readonly t: number;
}
export interface MemoryModel {
  /**
   * `steps` AdamW steps, full batch or on the fact indices `batch`; `targets`: the object taught to each fact of
   * the step (`batch[k]`, or fact k) in place of the data's (the result's accuracy counts against them).
   */
  train(steps?: number, opts?: { batch?: IdArray; targets?: IdArray }): MemoryStepResult;
  /** Plain SGD steps (lr defaults to the optimizer's); batch and targets as in train. */
  trainSgd(steps?: number, opts?: { batch?: IdArray; targets?: IdArray; lr?: number }): MemoryStepResult;
  evaluate(): MemoryEvaluation;
  /** act(x W1 + b1) (d_ff) of fact factIndex, or of the input vector x (d). */
  hidden(x: number | IdArray): Float32Array;
  /** The hidden activations of facts from..to-1 (every fact by default), (to - from, d_ff) row-major. */
  keys(from?: number, to?: number): Float32Array;
  inputOf(factIndex: number): Float32Array;
  logitsOf(factIndex: number): Float32Array;
  /** Views of wasm memory: valid until the next ffn-lab call; writing W1, b1, W2 through them changes the model. */
  weights(): MemoryWeights;
  copyWeights(): MemoryWeights;
  setWeights(w: Partial<Pick<MemoryWeights<IdArray>, 'W1' | 'b1' | 'W2'>>): void;
  snapshot(): MemorySnapshot;
  restore(token: MemorySnapshot): void;
  /**
   * Write the step's scratch memory for about budgetMs (all of it by default), so that the first step does not pay
   * for its first touch; true once it is all written. Changes no result.
   */
  warmUp(budgetMs?: number): boolean;
  /** New embeddings and weights from seed (default: the last seed), moments zero, step 0. */
  reset(seed?: number): void;
  dispose(): void;
  readonly step: number;
  readonly seed: number;
  readonly disposed: boolean;
  readonly activation: ActivationName;
  readonly optimizer: Readonly<Required<MemoryOptimizer>>;
  readonly nFacts: number;
  readonly d: number;
  readonly dff: number;
  readonly nSubjects: number;
  readonly nRelations: number;
  readonly nObjects: number;
}
/** The memory lab's model x = e_s + e_r, h = x + act(x W1 + b1) W2, logits = h U^T, trained resident in wasm memory. */
export function createMemoryModel(spec: MemoryModelSpec): MemoryModel;
/** W (M, N) + alpha u (M) v (N)^T, a fresh tensor (the rank-one edit of W2). */
export function rankOneUpdate(W: TensorLike, u: TensorLike, v: TensorLike, alpha?: number): Tensor;
/** X with A X = B, A (n, n) symmetric positive definite (Cholesky, sums in double), B (n) or (n, k). */
export function spdSolve(A: TensorLike, B: TensorLike): Tensor;
