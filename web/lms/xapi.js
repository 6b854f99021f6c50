// xAPI 1.0.3 statements from exercise results (ffn-exercise-result's detail), and an optional sender to an LRS that
// retries with backoff, reports failures and never blocks the learner.

/** The ADL verbs used: a run that passed, one that ran and did not pass, and one that gave no verdict. */
export const XAPI_VERBS = Object.freeze({
  passed: 'http://adlnet.gov/expapi/verbs/passed',
  failed: 'http://adlnet.gov/expapi/verbs/failed',
  attempted: 'http://adlnet.gov/expapi/verbs/attempted',
});
const ASSESSMENT = 'http://adlnet.gov/expapi/activities/assessment';
/** The extension holding the ids of the diagnoses a run got (report.diagnoses[].id). */
export const DIAGNOSES_EXTENSION = 'urn:ffn-lab:xapi:diagnoses';
const ID = /^[\w-]{1,64}$/;
const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The parameters of a cmi5 launch in a URL query (endpoint, fetch, actor, registration, activityId), or null when
 * the query is not a cmi5 launch (its actor missing or not a JSON agent).
 */
export function cmi5Launch(search = globalThis.location?.search ?? '') {
  const q = new URLSearchParams(String(search).slice(0, 16384));
  let actor = null;
  try {
    actor = JSON.parse(q.get('actor') ?? 'null');
  } catch {
    actor = null;
  }
  if (!isRecord(actor) || !q.get('endpoint')) return null;
  const get = (k) => q.get(k) || null;
  return {
    endpoint: get('endpoint'),
    fetch: get('fetch'),
    actor,
    registration: get('registration'),
    activityId: get('activityId'),
  };
}

/** The verb of a result: passed, failed (it ran, and did not pass) or attempted (stopped, or the sandbox failed). */
export function verbOf(report) {
  if (report?.passed) return 'passed';
  return report && !['aborted', 'setup'].includes(report.status) ? 'failed' : 'attempted';
}

function resultOf(report, verb) {
  if (verb === 'attempted' || !report) return { completion: false };
  const tests = Array.isArray(report.tests) ? report.tests : [];
  const raw = tests.filter((t) => t && t.pass).length;
  const result = { success: verb === 'passed', completion: true };
  if (tests.length) result.score = { raw, min: 0, max: tests.length, scaled: +(raw / tests.length).toFixed(4) };
  const diagnoses = (Array.isArray(report.diagnoses) ? report.diagnoses : []).map((d) => d?.id).filter(Boolean);
  if (diagnoses.length) result.extensions = { [DIAGNOSES_EXTENSION]: diagnoses.slice(0, 20).map(String) };
  return result;
}

/**
 * An xAPI 1.0.3 statement for one result. detail: { exercise, report } (ffn-exercise-result's). options: { actor (an
 * xAPI Agent; default the cmi5 launch's), activityBase (an IRI the exercise id is appended to; default the cmi5
 * launch's activityId, else 'urn:ffn-lab:exercise'), title (the activity's name), verb (to override verbOf),
 * registration, launch (cmi5Launch() output; read from the page's URL when left out), timestamp (a Date), id }.
 * Throws a TypeError naming what is missing (an actor, an exercise id).
 */
export function xapiStatement(detail, options = {}) {
  const exercise = detail?.exercise;
  if (typeof exercise !== 'string' || !ID.test(exercise)) {
    throw new TypeError(
      `xapiStatement: detail.exercise must be an exercise id (1 to 64 of A-Z a-z 0-9 _ -); got ${exercise}`,
    );
  }
  const launch = options.launch === undefined ? cmi5Launch() : options.launch;
  const actor = options.actor ?? launch?.actor;
  if (!isRecord(actor))
    throw new TypeError('xapiStatement: options.actor must be an xAPI Agent (or come from a cmi5 launch)');
  const verb = options.verb ?? verbOf(detail.report);
  if (!XAPI_VERBS[verb])
    throw new TypeError(`xapiStatement: options.verb must be passed, failed or attempted; got ${verb}`);
  const base = String(options.activityBase ?? launch?.activityId ?? 'urn:ffn-lab:exercise').replace(/[/:]$/, '');
  const sep = base.startsWith('urn:') ? ':' : '/';
  const statement = {
    id: options.id ?? globalThis.crypto.randomUUID(),
    actor,
    verb: { id: XAPI_VERBS[verb], display: { 'en-US': verb } },
    object: {
      objectType: 'Activity',
      id: `${base}${sep}${exercise}`,
      definition: { type: ASSESSMENT, name: { 'en-US': String(options.title ?? exercise).slice(0, 200) } },
    },
    result: resultOf(detail.report, verb),
    context: { platform: 'ffn-lab' },
    timestamp: (options.timestamp ?? new Date()).toISOString(),
  };
  const registration = options.registration ?? launch?.registration;
  if (registration) statement.context.registration = registration;
  if (launch?.activityId) statement.context.contextActivities = { parent: [{ id: launch.activityId }] };
  return statement;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/**
 * A sender of statements to an LRS: send(statement) POSTs it to `${endpoint}statements` with the author's
 * `auth` (an Authorization header value, or a function returning one or its promise), retrying a network error, a
 * 429 or a 5xx `retries` times (default 3) after backoffMs·2^k (default 500 ms); a refusal (other 4xx) is not retried.
 * It resolves to { ok, status, attempts } and never rejects; onError(outcome, statement) hears each failure.
 */
export function createLrsSender({ endpoint, auth, retries = 3, backoffMs = 500, onError = () => {}, fetch } = {}) {
  if (typeof endpoint !== 'string' || !/^https?:\/\//.test(endpoint)) {
    throw new TypeError(`createLrsSender: endpoint must be an http(s) URL; got ${String(endpoint).slice(0, 80)}`);
  }
  const url = `${endpoint.replace(/\/?$/, '/')}statements`;
  const doFetch = fetch ?? globalThis.fetch;
  return async function send(statement) {
    let outcome = { ok: false, status: 0, attempts: 0 };
    for (let k = 0; k <= retries; k++) {
      if (k) await sleep(backoffMs * 2 ** (k - 1));
      outcome.attempts = k + 1;
      try {
        const authorization = typeof auth === 'function' ? await auth() : auth;
        const headers = { 'content-type': 'application/json', 'x-experience-api-version': '1.0.3' };
        if (authorization) headers.authorization = authorization;
        const res = await doFetch(url, { method: 'POST', headers, body: JSON.stringify(statement) });
        outcome = { ok: res.ok, status: res.status, attempts: k + 1 };
        if (res.ok || (res.status < 500 && res.status !== 429)) break;
      } catch (e) {
        outcome = { ok: false, status: 0, attempts: k + 1, error: String(e?.message ?? e) };
      }
    }
    if (!outcome.ok) onError(outcome, statement);
    return outcome;
  };
}

/**
 * The Authorization of a cmi5 launch: its `fetch` URL POSTed once for { "auth-token" }, as `Basic <token>` (the
 * promise is kept: cmi5 answers the fetch URL only once).
 */
export function cmi5Auth(fetchUrl, fetchImpl = globalThis.fetch) {
  let token = null;
  return () =>
    (token ??= fetchImpl(fetchUrl, { method: 'POST' })
      .then((res) => res.json())
      .then((body) => `Basic ${body['auth-token']}`));
}

/**
 * Send a statement for every exercise result under `target` (default the document): options as xapiStatement's,
 * plus `lrs` (createLrsSender's options; default, in a cmi5 launch, its endpoint with cmi5Auth). A statement the
 * LRS did not take is reported with console.warn unless lrs.onError says otherwise. Returns stop(). Sending runs
 * beside the learner's page, never before it.
 */
export function connectXapi({ target = globalThis.document, lrs, ...options } = {}) {
  const launch = options.launch === undefined ? cmi5Launch() : options.launch;
  const fromLaunch =
    launch?.endpoint && launch.fetch ? { endpoint: launch.endpoint, auth: cmi5Auth(launch.fetch) } : null;
  const warn = (outcome) => console.warn(`ffn-lab: the LRS did not take a statement (${JSON.stringify(outcome)})`);
  const send = createLrsSender({ onError: warn, ...(lrs ?? fromLaunch) });
  const onResult = (ev) => {
    try {
      send(xapiStatement(ev.detail, { ...options, launch }));
    } catch (e) {
      console.warn(`ffn-lab: no xAPI statement for this result: ${e.message}`);
    }
  };
  target.addEventListener('ffn-exercise-result', onResult);
  return () => target.removeEventListener('ffn-exercise-result', onResult);
}
