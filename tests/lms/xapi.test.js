// xAPI statements from exercise results, checked by a real xAPI 1.0.3 validator (@learninglocker/xapi-validation), the
// actor from a cmi5 launch, and the LRS sender's retries and reports (with a stand-in fetch).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import validation from '@learninglocker/xapi-validation';
import { gradeExercise, exercises } from 'ffn-lab/sandbox';
import { xapiStatement, cmi5Launch, createLrsSender, connectXapi, XAPI_VERBS } from 'ffn-lab/lms';
import { variantSources } from '../helpers/sandbox-variants.js';

const validate = validation.default ?? validation;
const actor = { objectType: 'Agent', name: 'Ada Lovelace', mbox: 'mailto:ada@example.org' };
const solution = exercises.find((e) => e.id === 'gelu').solution;

test('statements for a pass, a fail and an attempt validate, with the right verb, score and success', async () => {
  const passed = await gradeExercise('gelu', solution);
  const failed = await gradeExercise('gelu', variantSources['gelu-missing-half'].source);
  const stopped = { passed: false, status: 'aborted', tests: [], diagnoses: [] };
  const cases = [
    [passed, 'passed', true],
    [failed, 'failed', false],
    [stopped, 'attempted', undefined],
  ];
  for (const [report, verb, success] of cases) {
    const s = xapiStatement({ exercise: 'gelu', report }, { actor, launch: null, title: 'GELU' });
    assert.deepEqual(validate(s), [], `${verb}: ${JSON.stringify(validate(s))}`);
    assert.equal(s.verb.id, XAPI_VERBS[verb]);
    assert.equal(s.object.id, 'urn:ffn-lab:exercise:gelu');
    assert.equal(s.result.success, success);
    if (verb !== 'attempted') {
      const pass = report.tests.filter((t) => t.pass).length;
      assert.deepEqual([s.result.score.raw, s.result.score.max], [pass, report.tests.length]);
    }
  }
  // the fail names its diagnosis
  const f = xapiStatement({ exercise: 'gelu', report: failed }, { actor, launch: null });
  assert.ok(Object.values(f.result.extensions)[0].includes('gelu-missing-half'));
  assert.ok(f.result.score.raw < f.result.score.max);
});

test('a cmi5 launch gives the actor, registration and activity; a statement without an actor is refused', () => {
  const agent = { objectType: 'Agent', account: { homePage: 'https://lms.example.org', name: 'learner-7' } };
  const query = new URLSearchParams({
    endpoint: 'https://lrs.example.org/xapi/',
    fetch: 'https://lms.example.org/token?k=1',
    actor: JSON.stringify(agent),
    registration: '8e1ba2c0-4a6b-4b8f-9f3e-1c2d3e4f5a6b',
    activityId: 'https://course.example.org/unit-4',
  });
  const launch = cmi5Launch(`?${query}`);
  assert.deepEqual(launch.actor, agent);
  const s = xapiStatement(
    { exercise: 'ffn', report: { passed: true, status: 'done', tests: [{ pass: true }] } },
    { launch },
  );
  assert.deepEqual(validate(s), []);
  assert.deepEqual(s.actor, agent);
  assert.equal(s.object.id, 'https://course.example.org/unit-4/ffn');
  assert.equal(s.context.registration, '8e1ba2c0-4a6b-4b8f-9f3e-1c2d3e4f5a6b');
  assert.equal(cmi5Launch('?exercise=gelu'), null);
  assert.throws(() => xapiStatement({ exercise: 'ffn', report: {} }, { launch: null }), /options\.actor must be/);
  assert.throws(() => xapiStatement({ exercise: '../x', report: {} }, { actor }), /detail\.exercise must be/);
});

/** A stand-in fetch answering with the given statuses in turn (0: a network error), and what it was asked. */
function fakeFetch(statuses) {
  const calls = [];
  const fn = async (url, init) => {
    calls.push({ url, init });
    const status = statuses[Math.min(calls.length - 1, statuses.length - 1)];
    if (status === 0) throw new TypeError('Failed to fetch');
    return { ok: status >= 200 && status < 300, status };
  };
  return { fn, calls };
}

test('the LRS sender: retries a 5xx and a network error with backoff, not a refusal; never throws', async () => {
  const statement = xapiStatement({ exercise: 'gelu', report: { passed: true, tests: [] } }, { actor, launch: null });
  const ok = fakeFetch([503, 0, 200]);
  const send = createLrsSender({
    endpoint: 'https://lrs.example.org/xapi',
    auth: 'Basic abc',
    fetch: ok.fn,
    backoffMs: 1,
  });
  assert.deepEqual(await send(statement), { ok: true, status: 200, attempts: 3 });
  assert.equal(ok.calls[0].url, 'https://lrs.example.org/xapi/statements');
  assert.equal(ok.calls[0].init.headers.authorization, 'Basic abc');
  assert.equal(ok.calls[0].init.headers['x-experience-api-version'], '1.0.3');
  assert.deepEqual(JSON.parse(ok.calls[0].init.body), statement);

  const reports = [];
  const onError = (outcome) => reports.push(outcome);
  const down = fakeFetch([0]);
  const sendDown = createLrsSender({ endpoint: 'https://lrs.example.org/', fetch: down.fn, backoffMs: 1, onError });
  const outcome = await sendDown(statement);
  assert.equal(outcome.ok, false);
  assert.equal(down.calls.length, 4); // the first try and 3 retries
  assert.equal(reports.length, 1);

  const refused = fakeFetch([403]);
  const sendRefused = createLrsSender({
    endpoint: 'https://lrs.example.org/',
    fetch: refused.fn,
    backoffMs: 1,
    onError,
  });
  assert.deepEqual(await sendRefused(statement), { ok: false, status: 403, attempts: 1 });
  assert.equal(reports.length, 2);
  assert.throws(() => createLrsSender({ endpoint: 'ftp://x' }), /endpoint must be an http\(s\) URL/);
});

test('connectXapi sends one statement per ffn-exercise-result, without holding the event up', async () => {
  const target = new EventTarget();
  const lrs = fakeFetch([200]);
  const stop = connectXapi({
    target,
    actor,
    launch: null,
    lrs: { endpoint: 'https://lrs.example.org/', fetch: lrs.fn },
  });
  const report = await gradeExercise('gelu', solution);
  target.dispatchEvent(Object.assign(new Event('ffn-exercise-result'), { detail: { exercise: 'gelu', report } }));
  await new Promise((done) => setTimeout(done, 20));
  assert.equal(lrs.calls.length, 1);
  const sent = JSON.parse(lrs.calls[0].init.body);
  assert.equal(sent.verb.id, XAPI_VERBS.passed);
  assert.deepEqual(validate(sent), []);
  stop();
  target.dispatchEvent(Object.assign(new Event('ffn-exercise-result'), { detail: { exercise: 'gelu', report } }));
  await new Promise((done) => setTimeout(done, 20));
  assert.equal(lrs.calls.length, 1);
});

test('in a cmi5 launch, connectXapi fetches the auth token once and sends to the launch endpoint', async () => {
  const agent = { objectType: 'Agent', account: { homePage: 'https://lms.example.org', name: 'learner-7' } };
  const launch = cmi5Launch(
    `?${new URLSearchParams({
      endpoint: 'https://lrs.example.org/xapi/',
      fetch: 'https://lms.example.org/fetch/abc',
      actor: JSON.stringify(agent),
      registration: '8e1ba2c0-4a6b-4b8f-9f3e-1c2d3e4f5a6b',
      activityId: 'https://course.example.org/unit-4',
    })}`,
  );
  const calls = [];
  const saved = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    calls.push({ url, init });
    if (url === launch.fetch) return { ok: true, status: 200, json: async () => ({ 'auth-token': 'dG9rZW4=' }) };
    return { ok: true, status: 200 };
  };
  try {
    const target = new EventTarget();
    const stop = connectXapi({ target, launch });
    const report = { passed: false, status: 'done', tests: [{ pass: true }, { pass: false }], diagnoses: [] };
    for (let i = 0; i < 2; i++) {
      target.dispatchEvent(Object.assign(new Event('ffn-exercise-result'), { detail: { exercise: 'ffn', report } }));
    }
    await new Promise((done) => setTimeout(done, 20));
    stop();
    assert.deepEqual(
      calls.map((c) => c.url),
      [launch.fetch, 'https://lrs.example.org/xapi/statements', 'https://lrs.example.org/xapi/statements'],
    );
    for (const c of calls.slice(1)) {
      assert.equal(c.init.headers.authorization, 'Basic dG9rZW4=');
      const s = JSON.parse(c.init.body);
      assert.deepEqual(validate(s), []);
      assert.deepEqual([s.actor, s.verb.id], [agent, XAPI_VERBS.failed]);
    }
  } finally {
    globalThis.fetch = saved;
  }
});
