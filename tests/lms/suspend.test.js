// suspend_data: progress and code within each SCORM version's limit (1.2: 4,096 characters), read back field by field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeSuspend, decodeSuspend, SUSPEND_LIMITS } from 'ffn-lab/lms';
import { exercises } from 'ffn-lab/sandbox';

/** n characters of code no compressor can shrink much: a seeded pseudo-random walk over printable ASCII. */
function noise(n, seed) {
  let s = seed >>> 0;
  let out = '';
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out += String.fromCharCode(32 + (s % 95));
  }
  return out;
}

test('the eight solutions fit 1.2 whole (deflated) and come back exactly', () => {
  const state = { o: exercises.map((e) => e.id), e: {} };
  for (const [i, ex] of exercises.entries()) state.e[ex.id] = { s: i % 2 ? 'a' : 'p', c: ex.solution, t: 3, n: 9 };
  const plain = JSON.stringify(state).length;
  const { text, cut } = encodeSuspend(state, SUSPEND_LIMITS['1.2']);
  assert.ok(plain > SUSPEND_LIMITS['1.2'] || text.length <= plain);
  assert.ok(text.length <= SUSPEND_LIMITS['1.2'], `${text.length}`);
  assert.deepEqual(cut, []);
  const back = decodeSuspend(text, SUSPEND_LIMITS['1.2']);
  assert.deepEqual(back.o, state.o);
  assert.deepEqual({ ...back.e }, state.e);
});

test('code too long for 1.2 is cut (and marked) until the text fits; statuses always kept', () => {
  const state = { o: ['gelu', 'ffn', 'swiglu'], e: {} };
  for (const [i, id] of state.o.entries()) state.e[id] = { s: i ? 'a' : 'p', c: noise(15000, i + 1), t: 1, n: 2 };
  const { text, cut } = encodeSuspend(state, SUSPEND_LIMITS['1.2']);
  assert.ok(text.length > 0 && text.length <= 4096, `${text.length}`);
  assert.deepEqual(cut.sort(), ['ffn', 'gelu', 'swiglu']);
  const back = decodeSuspend(text, 4096);
  for (const [i, id] of state.o.entries()) {
    assert.equal(back.e[id].s, i ? 'a' : 'p');
    assert.equal(back.e[id].x, 1);
    assert.ok(state.e[id].c.startsWith(back.e[id].c ?? ''));
  }
  // 2004's 64,000 characters hold all of it
  assert.deepEqual(encodeSuspend(state, SUSPEND_LIMITS[2004]).cut, []);
});

test('suspend_data that is not ours reads as nothing; bad fields and ids are left out', () => {
  for (const text of ['', 'abc', '{"v":2,"e":{}}', 'z1:!!!', '[1,2]', null, 'x'.repeat(70000)]) {
    assert.deepEqual({ ...decodeSuspend(text).e }, {});
  }
  const mixed = '{"v":1,"o":["gelu",7],"e":{"gelu":{"s":"p","c":5,"t":-1},"__proto__":{"s":"a"},"a b":{"s":"p"}}}';
  const back = decodeSuspend(mixed);
  assert.deepEqual(back.o, ['gelu']);
  assert.deepEqual(back.e.gelu, { s: 'p' });
  assert.deepEqual(Object.getPrototypeOf(back.e), null);
  assert.deepEqual(back.e.__proto__, { s: 'a' });
  assert.equal(back.e['a b'], undefined);
});
