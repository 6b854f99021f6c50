// Type-level use of ffn-lab/lms, checked by tsc in tests/core/types.test.js.
import {
  connectScorm,
  encodeSuspend,
  decodeSuspend,
  SUSPEND_LIMITS,
  resultMessage,
  RESULT_MESSAGE,
  xapiStatement,
  createLrsSender,
  connectXapi,
  type ScormConnection,
  type SuspendState,
  type ResultMessage,
  type LrsOutcome,
} from 'ffn-lab/lms';

const link: ScormConnection = connectScorm({ version: 'auto', course: 'unit4', exercises: ['gelu'] });
if (link.connected && link.record) link.record('gelu', { passed: true }, 'function gelu(x) {}');
const problems: string[] = link.problems.map((p) => `${p.call}: ${p.code ?? '-'} ${p.text}`);

const state: SuspendState = { o: ['gelu'], e: { gelu: { s: 'p', n: 1 } } };
const { text, cut } = encodeSuspend(state, SUSPEND_LIMITS['1.2']);
const back: SuspendState = decodeSuspend(text);

const message: ResultMessage = resultMessage({ exercise: 'gelu', report: {} }, 'unit4-gelu');
const isResult: boolean = message.type === RESULT_MESSAGE && message.tests.passed <= message.tests.total;

const statement = xapiStatement({ exercise: 'gelu' }, { verb: 'passed', activityBase: 'https://example.org/x' });
const send = createLrsSender({ endpoint: 'https://lrs.example.org/xapi/', retries: 2 });
const outcome: Promise<LrsOutcome> = send(statement);
const stop: () => void = connectXapi({ lrs: { endpoint: 'https://lrs.example.org/xapi/' } });

// @ts-expect-error: a SCORM version is '1.2' or '2004'
connectScorm({ version: '1.3' });
// @ts-expect-error: a suspend entry's status is 'p' or 'a'
const wrong: SuspendState = { o: [], e: { gelu: { s: 'x' } } };

export { problems, cut, back, isResult, outcome, stop, wrong };
