// The SCORM API's discovery (a bounded walk up parents, then the opener; windows of another origin stepped over) and
// the guarded session: a throw, a "false" or an error code is one reported problem, never an exception.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findScormApi, scormSession, API_WALK_LIMIT } from 'ffn-lab/lms';

/** A chain of n stand-in windows, each the parent of the one before; the top is its own parent. */
function chain(n) {
  const wins = Array.from({ length: n }, () => ({}));
  wins.forEach((w, i) => {
    w.parent = wins[Math.min(i + 1, n - 1)];
  });
  return wins;
}

test('the API is found up to API_WALK_LIMIT parents up, not further; 2004 before 1.2 unless a version is asked', () => {
  assert.equal(API_WALK_LIMIT, 10);
  const near = chain(API_WALK_LIMIT + 3);
  near[API_WALK_LIMIT].API = { name: '1.2 at the limit' };
  assert.equal(findScormApi(near[0]).api.name, '1.2 at the limit');
  const far = chain(API_WALK_LIMIT + 3);
  far[API_WALK_LIMIT + 1].API = { name: 'too far' };
  assert.equal(findScormApi(far[0]), null);
  const both = chain(3);
  both[1].API = { name: '1.2' };
  both[2].API_1484_11 = { name: '2004' };
  assert.deepEqual(findScormApi(both[0]), { api: both[2].API_1484_11, version: '2004' });
  assert.equal(findScormApi(both[0], '1.2').api.name, '1.2');
  assert.throws(() => findScormApi(both[0], '1.3'), /version must be '1\.2', '2004' or 'auto'; got 1\.3/);
});

test('a window of another origin (its properties throw) is stepped over; the opener is searched last', () => {
  const wins = chain(4);
  Object.defineProperty(wins[1], 'API', {
    get() {
      throw new DOMException('Blocked a frame', 'SecurityError');
    },
  });
  wins[2].API = { name: 'above the foreign frame' };
  assert.equal(findScormApi(wins[0]).api.name, 'above the foreign frame');
  const popup = chain(2);
  const lms = chain(2);
  lms[1].API_1484_11 = { name: 'in the opener' };
  popup[0].opener = lms[0];
  assert.equal(findScormApi(popup[0]).api.name, 'in the opener');
  assert.equal(findScormApi({}), null);
});

/** A 2004 API whose calls behave as `how` says, counting what it was asked. */
function fakeApi(how) {
  let last = '0';
  const api = {
    calls: 0,
    Initialize: () => 'true',
    GetValue: (el) => {
      last = el === 'cmi.suspend_data' ? '403' : (how.getError ?? '0');
      return '';
    },
    SetValue: () => {
      api.calls++;
      if (how.throws) throw new Error('LMS down');
      last = how.setError ?? '0';
      return how.setFalse ? 'false' : 'true';
    },
    Commit: () => 'true',
    Terminate: () => 'true',
    GetLastError: () => last,
    GetErrorString: (code) => `error ${code}`,
  };
  return api;
}

test('the session reports each throw, "false" and error code, and never throws; 403 on a first read is quiet', () => {
  for (const [how, code] of [
    [{ throws: true }, null],
    [{ setFalse: true }, '0'],
    [{ setError: '351' }, '351'],
  ]) {
    const problems = [];
    const s = scormSession(fakeApi(how), '2004', (p) => problems.push(p));
    assert.equal(s.initialize(), true);
    assert.equal(s.get('cmi.suspend_data'), '');
    assert.deepEqual(problems, [], 'an unset suspend_data (403) is no problem');
    assert.equal(s.set('cmi.score.raw', 2), false);
    assert.equal(problems.length, 1);
    assert.equal(problems[0].call, 'SetValue');
    assert.equal(problems[0].element, 'cmi.score.raw');
    assert.equal(problems[0].code, code);
  }
  const problems = [];
  const s = scormSession(fakeApi({ getError: '401' }), '2004', (p) => problems.push(p));
  assert.equal(s.get('cmi.learner_id'), '');
  assert.equal(problems[0].code, '401');
});
