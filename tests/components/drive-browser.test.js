// Issue 28: a course author's script drives each widget by attribute and by property after the reader has played with
// it (a drag, a slider, a button: real input events in Chromium), and every documented attribute has its property.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';

const served = servedBrowser();
const skip = served.skip || false;

// The documented attributes (web/components/README.md) and their properties, written out here, not read from the code.
const PROPERTIES = {
  '#mem': {
    facts: 'facts',
    distractors: 'distractors',
    threshold: 'threshold',
    k: 'k',
    activation: 'activation',
    query: 'query',
    token: 'token',
    'sync-hash': 'syncHash',
    theme: 'theme',
  },
  '#plot': { x: 'x', range: 'range', curves: 'curves', theme: 'theme' },
  '#calc': {
    preset: 'preset',
    presets: 'presets',
    d: 'd',
    'd-ff': 'dff',
    rule: 'rule',
    'multiple-of': 'multipleOf',
    multiplier: 'multiplier',
    gated: 'gated',
    bias: 'bias',
    heads: 'heads',
    'kv-heads': 'kvHeads',
    'head-dim': 'headDim',
    experts: 'experts',
    'active-experts': 'activeExperts',
    'shared-experts': 'sharedExperts',
    theme: 'theme',
  },
  '#ex': { exercise: 'exercise', timeout: 'timeout', 'storage-key': 'storageKey', number: 'number', theme: 'theme' },
};

// The default facts' key tokens sit on unit directions 120 degrees apart from 90 degrees (the README's geometry).
const at = (deg) => [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
const TOKYO = at(90),
  PARIS = at(210),
  ROME = at(330);

/** Open the test page (the three widgets from the plain modules), each ready, counting its ffn-change events. */
async function open() {
  const p = await served.newPage();
  p.errors = [];
  p.on('pageerror', (e) => p.errors.push(`pageerror: ${e.message}`));
  await p.setViewportSize({ width: 1100, height: 900 });
  await p.goto(new URL('tests/fixtures/drive.html', served.url).href);
  await p.waitForFunction(
    () => document.querySelector('#mem').result && document.querySelector('#plot').readout,
    null,
    { timeout: 20000 },
  );
  await p.waitForFunction(() => document.querySelector('#calc').result, null, { timeout: 20000 });
  await p.evaluate(() => {
    window.changes = {};
    for (const el of document.querySelectorAll('[id]')) {
      window.changes[el.id] = [];
      el.addEventListener('ffn-change', (e) => window.changes[el.id].push(e.detail));
    }
  });
  return p;
}

/**
 * Run write(el) in the page on the element sel and wait for the ffn-change it causes (one frame at most later);
 * returns that event's detail (numbers as plain arrays) and what read(el) then gives.
 */
async function drive(p, sel, write, read = () => null) {
  const id = sel.slice(1);
  const before = await p.evaluate((i) => window.changes[i].length, id);
  await p.$eval(sel, write);
  await p.waitForFunction(([i, n]) => window.changes[i].length > n, [id, before], { timeout: 5000 });
  return p.evaluate(
    ([s, i, readText]) => {
      const list = window.changes[i];
      const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
      const d = Object.fromEntries(Object.entries(list[list.length - 1]).map(([k, v]) => [k, plain(v)]));
      return { d, read: new Function(`return (${readText})`)()(document.querySelector(s)) };
    },
    [sel, id, read.toString()],
  );
}

const near = (a, b, tol = 1e-9) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= tol);

/** The centre of an element inside a widget (Playwright's selectors pierce the shadow root). */
async function centre(p, sel) {
  const b = await p.locator(sel).first().boundingBox();
  return [b.x + b.width / 2, b.y + b.height / 2];
}

test('every documented attribute has a property that reads and writes it', { skip }, async () => {
  const p = await open();
  try {
    for (const [sel, props] of Object.entries(PROPERTIES)) {
      const seen = await p.$eval(sel, (el, names) => names.map((n) => [n, n in el, el[n] === undefined]), [
        ...Object.values(props),
      ]);
      for (const [name, has, undef] of seen) {
        assert.ok(has && !undef, `${sel}: property ${name} is missing or undefined`);
      }
      const observed = await p.$eval(sel, (el) => el.constructor.observedAttributes.filter((a) => a !== 'lang'));
      assert.deepEqual(observed.sort(), Object.keys(props).sort(), `${sel}: the attributes it observes`);
    }
    // A property set writes its attribute; the property then reads what the element uses.
    const written = await p.evaluate(() => {
      const mem = document.querySelector('#mem'),
        plot = document.querySelector('#plot'),
        calc = document.querySelector('#calc');
      mem.syncHash = 'drive';
      mem.theme = 'dark';
      plot.range = [-2, 2];
      plot.curves = ['relu', 'gelu'];
      calc.kvHeads = 4;
      calc.gated = true;
      return {
        mem: [mem.getAttribute('sync-hash'), mem.syncHash, mem.getAttribute('theme'), mem.theme],
        plot: [plot.getAttribute('range'), plot.range, plot.getAttribute('curves'), plot.curves],
        calc: [calc.getAttribute('kv-heads'), calc.kvHeads, calc.getAttribute('gated'), calc.gated],
      };
    });
    assert.deepEqual(written, {
      mem: ['drive', 'drive', 'dark', 'dark'],
      plot: ['-2,2', [-2, 2], 'relu,gelu', ['relu', 'gelu']],
      calc: ['4', 4, 'true', true],
    });
    // A bad value given to a property throws and changes nothing; the same as an attribute is shown, not thrown.
    const refused = await p.evaluate(() => {
      const calc = document.querySelector('#calc');
      let thrown = '';
      try {
        calc.d = 0;
      } catch (e) {
        thrown = `${e.name}: ${e.message}`;
      }
      calc.setAttribute('heads', 'many');
      return {
        thrown,
        d: calc.d,
        attr: calc.getAttribute('d'),
        alert: calc.shadowRoot.querySelector('.error')?.textContent,
      };
    });
    assert.match(refused.thrown, /^RangeError: d must be/);
    assert.equal(refused.d, 768);
    assert.equal(refused.attr, '768');
    assert.match(refused.alert, /heads/);
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

test(
  'memory widget: token and query after a drag, a slider and a token button; the last write wins',
  { skip },
  async () => {
    const p = await open();
    try {
      // The reader drags the query from Tokyo most of the way to Paris.
      const from = await centre(p, '#mem circle.query');
      const to = await centre(p, '#mem g.tok[data-name="Paris"] circle');
      await p.mouse.move(...from);
      await p.mouse.down();
      for (let i = 1; i <= 6; i++)
        await p.mouse.move(from[0] + (i / 8) * (to[0] - from[0]), from[1] + (i / 8) * (to[1] - from[1]));
      await p.mouse.up();
      const dragged = await p.$eval('#mem', (el) => [el.getAttribute('query'), el.getAttribute('token')]);
      assert.ok(dragged[0] && dragged[0] !== '0.000,1.000', `the drag writes query: ${dragged[0]}`);
      assert.equal(dragged[1], null);
      // (Before issue 28, the token attribute written now left the query where the drag had put it.)

      // The author's script: a token by attribute, after the reader's drag.
      let r = await drive(
        p,
        '#mem',
        (el) => el.setAttribute('token', 'Tokyo'),
        (el) => [el.query, el.token, el.getAttribute('query')],
      );
      assert.ok(near(r.read[0], TOKYO), `setAttribute token moves the query onto Tokyo: ${r.read[0]}`);
      assert.equal(r.read[1], 'Tokyo');
      assert.equal(r.read[2], '0.000,1.000', 'the query attribute says where the token put it');
      assert.equal(r.d.decoded.token, 'Japan');

      // The reader presses the y slider's Down arrow four times (0.05 a step): the query leaves the token.
      await p.locator('#mem .track[role="slider"]').nth(1).focus();
      for (let i = 0; i < 4; i++) await p.keyboard.press('ArrowDown');
      await p.waitForFunction(() => document.querySelector('#mem').getAttribute('query') === '0.000,0.800');
      assert.deepEqual(await p.$eval('#mem', (el) => [el.token, el.getAttribute('token')]), [null, null]);

      // A token by property.
      r = await drive(
        p,
        '#mem',
        (el) => (el.token = 'Paris'),
        (el) => [el.query, el.token, el.getAttribute('token')],
      );
      assert.ok(near(r.read[0], PARIS), `el.token = 'Paris': ${r.read[0]}`);
      assert.deepEqual(r.read.slice(1), ['Paris', 'Paris']);
      assert.equal(r.d.decoded.token, 'France');
      const removed = await p.$eval('#mem', (el) => {
        el.removeAttribute('token');
        return [el.token, el.query];
      });
      assert.equal(removed[0], null, 'no token attribute, no token');
      assert.ok(near(removed[1], PARIS), 'the query stays where it was');

      // The reader presses the Rome button (the query glides there); then the author sets a query by attribute.
      await p.locator('#mem button[data-token="Rome"]').click();
      await p.waitForFunction(() => document.querySelector('#mem').getAttribute('query') === '0.866,-0.500');
      const rome = await p.$eval('#mem', (el) => [el.query, el.token]);
      assert.ok(near(rome[0], ROME, 1e-12), `the Rome button: ${rome[0]}`);
      assert.equal(rome[1], 'Rome');
      r = await drive(
        p,
        '#mem',
        (el) => el.setAttribute('query', '0.2,0.3'),
        (el) => [el.query, el.token, el.getAttribute('token')],
      );
      assert.deepEqual(r.read, [[0.2, 0.3], null, null], 'a query written after a token wins, and the token goes');
      assert.ok(Math.abs(r.d.match[0] - (3.6 * 0.3 - 0.5)) < 1e-5, `Tokyo's match at (0.2, 0.3): ${r.d.match[0]}`);

      // And a token written after that query wins again; then the same by property.
      r = await drive(
        p,
        '#mem',
        (el) => el.setAttribute('token', 'Tokyo'),
        (el) => el.query,
      );
      assert.ok(near(r.read, TOKYO));
      r = await drive(
        p,
        '#mem',
        (el) => (el.query = [-0.5, 0.25]),
        (el) => [el.query, el.token],
      );
      assert.deepEqual(r.read, [[-0.5, 0.25], null]);

      // An unknown token: by property a RangeError, by attribute a line in the element; the query stays.
      const unknown = await p.$eval('#mem', (el) => {
        let thrown = '';
        try {
          el.token = 'Atlantis';
        } catch (e) {
          thrown = e.name;
        }
        el.setAttribute('token', 'Atlantis');
        return { thrown, q: el.query, alert: el.shadowRoot.querySelector('.error')?.textContent ?? '' };
      });
      assert.equal(unknown.thrown, 'RangeError');
      assert.deepEqual(unknown.q, [-0.5, 0.25]);
      assert.match(unknown.alert, /Atlantis/);
      assert.deepEqual(p.errors, []);
    } finally {
      await p.close();
    }
  },
);

test('memory widget: k, threshold and activation after the reader moved their controls', { skip }, async () => {
  const p = await open();
  try {
    await p.locator('#mem input[type="range"]').first().focus(); // top-k: 3 -> 1
    await p.keyboard.press('ArrowLeft');
    await p.keyboard.press('ArrowLeft');
    await p.locator('#mem button[data-activation="silu"]').click();
    await p.waitForFunction(() => document.querySelector('#mem').getAttribute('activation') === 'silu');
    assert.deepEqual(await p.$eval('#mem', (el) => [el.getAttribute('k'), el.k]), ['1', 1]);
    let r = await drive(
      p,
      '#mem',
      (el) => el.setAttribute('k', '3'),
      (el) => el.k,
    );
    assert.equal(r.read, 3);
    assert.equal(r.d.k, 3);
    r = await drive(
      p,
      '#mem',
      (el) => (el.activation = 'gelu'),
      (el) => el.getAttribute('activation'),
    );
    assert.equal(r.d.activation, 'gelu');
    assert.equal(r.read, 'gelu');
    r = await drive(
      p,
      '#mem',
      (el) => el.setAttribute('threshold', '1.5'),
      (el) => el.threshold,
    );
    assert.equal(r.read, 1.5);
    // On Tokyo the query matches its own key with 3.6 - threshold.
    r = await drive(p, '#mem', (el) => (el.token = 'Tokyo'));
    assert.ok(Math.abs(r.d.match[0] - (3.6 - 1.5)) < 1e-5, `match ${r.d.match[0]}`);
  } finally {
    await p.close();
  }
});

test('activation plot: x, range and curves after the keyboard and a legend button', { skip }, async () => {
  const p = await open();
  try {
    await p.locator('#plot .plotbox').focus();
    for (let i = 0; i < 3; i++) await p.keyboard.press('ArrowRight'); // 0.01 a step on [-4, 4]
    await p.locator('#plot button[data-curve="relu"]').click();
    await p.waitForFunction(() => !document.querySelector('#plot').getAttribute('curves').split(',').includes('relu'));
    assert.deepEqual(await p.$eval('#plot', (el) => [el.getAttribute('x'), el.x]), ['-0.722', -0.722]);
    let r = await drive(
      p,
      '#plot',
      (el) => el.setAttribute('x', '1.5'),
      (el) => el.x,
    );
    assert.equal(r.read, 1.5);
    assert.equal(r.d.x, 1.5);
    const gelu = r.d.rows.find((row) => row.id === 'gelu').y;
    const erf = (x) => {
      // 2/sqrt(pi) times the integral of exp(-t^2) from 0 to x, by Simpson's rule (float64)
      const n = 2000;
      let s = 0;
      for (let i = 0; i <= n; i++) s += (i === 0 || i === n ? 1 : i % 2 ? 4 : 2) * Math.exp(-(((x * i) / n) ** 2));
      return ((2 / Math.sqrt(Math.PI)) * s * x) / (3 * n);
    };
    assert.ok(Math.abs(gelu - 0.75 * (1 + erf(1.5 / Math.SQRT2))) < 1e-5, `GELU(1.5) = ${gelu}`);
    r = await drive(
      p,
      '#plot',
      (el) => (el.x = -1),
      (el) => el.getAttribute('x'),
    );
    assert.equal(r.read, '-1');
    r = await drive(
      p,
      '#plot',
      (el) => (el.curves = ['relu', 'silu']),
      (el) => [...el.shadowRoot.querySelectorAll('button[aria-pressed="true"]')].map((b) => b.dataset.curve),
    );
    assert.deepEqual(r.read, ['relu', 'silu']);
    r = await drive(
      p,
      '#plot',
      (el) => el.setAttribute('range', '0,2'),
      (el) => [el.range, el.x],
    );
    assert.deepEqual(r.read, [[0, 2], 0], 'x is clamped into the new range');
  } finally {
    await p.close();
  }
});

test(
  'parameter calculator: preset and sizes after a preset button and typing, the last write wins',
  { skip },
  async () => {
    const p = await open();
    try {
      await p.locator('#calc button[data-preset="llama7b"]').click();
      await p.waitForFunction(() => document.querySelector('#calc').result?.dff === 11008);
      // A size written after the preset: the configuration is the author's, no preset's.
      let r = await drive(
        p,
        '#calc',
        (el) => el.setAttribute('d', '2048'),
        (el) => [el.preset, el.getAttribute('preset')],
      );
      assert.equal(r.d.d, 2048);
      assert.deepEqual(r.read, [null, null]);
      // The reader types a width into the form.
      await p.locator('#calc select').selectOption('explicit');
      const dff = p.locator('#calc input[type="number"]').nth(1);
      await dff.click({ clickCount: 3 });
      await p.keyboard.type('5000');
      await p.waitForFunction(() => document.querySelector('#calc').result?.dff === 5000);
      // A preset written after that: every size is the preset's (GPT-2 small: d 768, d_ff 3072, 12 heads).
      r = await drive(
        p,
        '#calc',
        (el) => (el.preset = 'gpt2'),
        (el) => [el.preset, el.d, el.dff, el.getAttribute('d-ff')],
      );
      assert.deepEqual([r.d.d, r.d.dff, r.d.heads], [768, 3072, 12]);
      assert.deepEqual(r.read, ['gpt2', 768, 3072, '3072']);
      assert.equal(r.d.ffnParams, 2 * 768 * 3072 + 3072 + 768, "GPT-2 small's FFN: 4,722,432 parameters");
      // A size after the preset, then the same preset again by attribute: the preset wins back.
      r = await drive(p, '#calc', (el) => (el.dff = 1000));
      assert.equal(r.d.dff, 1000);
      r = await drive(
        p,
        '#calc',
        (el) => el.setAttribute('preset', 'gpt2'),
        (el) => el.dff,
      );
      assert.equal(r.d.dff, 3072);
      assert.equal(r.read, 3072);
      r = await drive(
        p,
        '#calc',
        (el) => (el.experts = 8),
        (el) => [el.experts, el.activeExperts],
      );
      assert.deepEqual(r.read, [8, 1]);
      assert.equal(r.d.moe.experts, 8);
      assert.deepEqual(p.errors, []);
    } finally {
      await p.close();
    }
  },
);

test('exercise: exercise, number, timeout and storage-key after the reader typed code', { skip }, async () => {
  const p = await open();
  try {
    await p.evaluate(() => localStorage.clear());
    const title = () => p.$eval('#ex', (el) => el.shadowRoot.querySelector('[part="title"]').textContent);
    const gelu = await title();
    await p.locator('#ex textarea[part="code"]').click();
    await p.keyboard.press('Control+End');
    await p.keyboard.type('\n// mine');
    assert.match(await p.$eval('#ex', (el) => el.code), /\/\/ mine$/);
    // By property: a heading number (a number or text), then the timeout; each written into its attribute.
    const set = await p.$eval('#ex', (el) => {
      el.number = 2;
      el.timeout = 5000;
      el.storageKey = 'ffn-lab:drive';
      return [el.getAttribute('number'), el.number, el.getAttribute('timeout'), el.timeout, el.storageKey];
    });
    assert.deepEqual(set, ['2', '2', '5000', 5000, 'ffn-lab:drive']);
    assert.equal(await title(), `2. ${gelu}`);
    // By attribute, another exercise: its own title and starter code; by property, back to the typed code.
    await p.$eval('#ex', (el) => el.setAttribute('exercise', 'swiglu'));
    await p.waitForFunction(() => document.querySelector('#ex').exercise === 'swiglu');
    assert.notEqual(await title(), `2. ${gelu}`);
    assert.doesNotMatch(await p.$eval('#ex', (el) => el.code), /\/\/ mine/);
    await p.$eval('#ex', (el) => (el.exercise = 'gelu'));
    assert.equal(await title(), `2. ${gelu}`);
    assert.match(await p.$eval('#ex', (el) => el.code), /\/\/ mine$/, 'the code typed for gelu is back');
    // A value of the wrong kind is refused with a notice, the attribute kept.
    const refused = await p.$eval('#ex', (el) => {
      el.timeout = { ms: 1 };
      return [el.getAttribute('timeout'), el.shadowRoot.querySelector('[part="notice"]')?.textContent ?? ''];
    });
    assert.equal(refused[0], '5000');
    assert.match(refused[1], /timeout/);
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});
