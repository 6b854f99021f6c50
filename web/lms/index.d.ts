// Types of ffn-lab/lms: a SCO's link to its LMS, the embed pages' result message, xAPI statements.

export type ScormVersion = '1.2' | '2004';

export interface ScormProblem {
  call: string;
  element?: string;
  code: string | null;
  text: string;
  error?: unknown;
}

export interface ScormConnection {
  connected: boolean;
  version: ScormVersion | null;
  problems: ScormProblem[];
  storageKey: string | null;
  state?: SuspendState;
  record?(exercise: string, report: unknown, code?: string): void;
  terminate?(): void;
}

export function connectScorm(options?: {
  window?: Window;
  version?: ScormVersion | 'auto';
  course?: string;
  exercises?: string[];
  notice?: (text: string) => void;
}): ScormConnection;
export const SCORM_STORAGE_PREFIX: string;

export function findScormApi(
  win?: Window,
  version?: ScormVersion | 'auto',
): { api: object; version: ScormVersion } | null;
export function scormSession(
  api: object,
  version: ScormVersion,
  onProblem?: (p: ScormProblem) => void,
): {
  version: ScormVersion;
  initialize(): boolean;
  terminate(): boolean;
  commit(): boolean;
  get(element: string): string;
  set(element: string, value: string | number): boolean;
};
export const API_WALK_LIMIT: number;

export interface SuspendEntry {
  s: 'p' | 'a';
  c?: string;
  t?: number;
  n?: number;
  x?: 1;
  d?: string;
}
export interface SuspendState {
  o: string[];
  e: Record<string, SuspendEntry>;
}
export function encodeSuspend(state: SuspendState, limit: number): { text: string; cut: string[] };
export function decodeSuspend(text: string, limit?: number): SuspendState;
export const SUSPEND_LIMITS: Readonly<Record<ScormVersion, number>>;

export interface ResultMessage {
  type: 'ffn-lab:result';
  id: string | null;
  exercise: string;
  passed: boolean;
  tests: { passed: number; total: number };
  diagnoses: string[];
  timestamp: string;
}
export function resultMessage(
  detail: { exercise: string; report: unknown },
  id?: string | null,
  now?: Date,
): ResultMessage;
export const RESULT_MESSAGE: 'ffn-lab:result';
export const RESULT_EVENT: 'ffn-lab-result';

export type XapiVerb = 'passed' | 'failed' | 'attempted';
export interface Cmi5Launch {
  endpoint: string | null;
  fetch: string | null;
  actor: Record<string, unknown>;
  registration: string | null;
  activityId: string | null;
}
export interface XapiOptions {
  actor?: Record<string, unknown>;
  activityBase?: string;
  title?: string;
  verb?: XapiVerb;
  registration?: string;
  launch?: Cmi5Launch | null;
  timestamp?: Date;
  id?: string;
}
export function xapiStatement(
  detail: { exercise: string; report?: unknown },
  options?: XapiOptions,
): Record<string, any>;
export function verbOf(report: unknown): XapiVerb;
export function cmi5Launch(search?: string): Cmi5Launch | null;
export function cmi5Auth(fetchUrl: string, fetchImpl?: typeof fetch): () => Promise<string>;
export interface LrsOptions {
  endpoint: string;
  auth?: string | (() => string | Promise<string>);
  retries?: number;
  backoffMs?: number;
  onError?: (outcome: LrsOutcome, statement: object) => void;
  fetch?: typeof fetch;
}
export interface LrsOutcome {
  ok: boolean;
  status: number;
  attempts: number;
  error?: string;
}
export function createLrsSender(options: LrsOptions): (statement: object) => Promise<LrsOutcome>;
export function connectXapi(options: XapiOptions & { target?: EventTarget; lrs?: LrsOptions }): () => void;
export const XAPI_VERBS: Readonly<Record<XapiVerb, string>>;
export const DIAGNOSES_EXTENSION: string;
