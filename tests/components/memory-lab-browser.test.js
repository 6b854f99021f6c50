// Chromium tests of <ffn-memory-lab>: it trains the default facts, reads and edits them, by keyboard alone, within the
// long-task bound, at 360 px, axe-clean, in French, and refuses a bad fact list naming the line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as ffn from 'ffn-lab';
import { servedBrowser } from '../helpers/served-browser.js';
import { installStretch } from '../helpers/stretch.js';
import { ATTEMPTS } from '../helpers/timing.js';
import { collectShownText, findEnglish } from '../helpers/english.js';

const served = servedBrowser();
const noTrainer = typeof ffn.createMemoryModel !== 'function' && 'ffn.createMemoryModel (issue 24) is not there yet';
const skip = served.skip || noTrainer || false;
const SLOW = { skip, timeout: 240_000 };
const LONG_TASK_MS = 50;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The fixture page at a width, with the lab ready; page errors recorded in p.errors. */
async function open(width = 1000, lang = 'en') {
  const p = await served.newPage();
  p.errors = [];
  p.on('pageerror', (e) => p.errors.push(`pageerror: ${e.message}`));
  await p.setViewportSize({ width, height: 900 });
  await p.goto(new URL('tests/fixtures/memory-lab.html', served.url).href);
  if (lang !== 'en') {
    await p.waitForFunction(() => window.__loaded);
    await p.evaluate(async (l) => {
      await window.__components.loadStrings(l); // the element redraws itself in it once loaded
      document.documentElement.lang = l;
    }, lang);
  }
  await p.waitForFunction(
    () => document.querySelector('#lab')?.state && !document.querySelector('#lab').hasAttribute('ffn-strings-loading'),
    null,
    { timeout: 30000 },
  );
  return p;
}

const state = (p) => p.$eval('#lab', (el) => JSON.parse(JSON.stringify(el.state)));
const shadowText = (p, sel) => p.$eval('#lab', (el, s) => el.shadowRoot.querySelector(s)?.textContent ?? null, sel);

/**
 * Train by the Train button until the lab stops by itself and has read and drawn the new weights; the main thread's
 * long tasks meanwhile: `long` while training, `after` once training stopped (the reading of the new weights).
 */
async function trainWatched(p) {
  return p.evaluate(async () => {
    const el = document.querySelector('#lab');
    const entries = [];
    const obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => entries.push(e)));
    obs.observe({ type: 'longtask' });
    let stop = Infinity; // the ffn-change that says training stopped
    const seen = (e) => !e.detail.training && e.detail.step > 0 && (stop = Math.min(stop, performance.now()));
    el.addEventListener('ffn-change', seen);
    const t0 = performance.now();
    el.shadowRoot.querySelector('button.train').click();
    await el.train(); // training runs: this waits for the run to end and the new weights to be read and drawn
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 100)); // long-task entries come after the task
    obs.disconnect();
    el.removeEventListener('ffn-change', seen);
    const dur = (list) => list.map((e) => Math.round(e.duration));
    const long = dur(entries.filter((e) => e.startTime < stop));
    return { long, after: dur(entries.filter((e) => e.startTime >= stop)), ms, steps: el.state.step };
  });
}

/** Edit the fact shown by rank-one (twice: the first builds C) and by fine-tuning, then Undo; the long tasks. */
async function editWatched(p) {
  return p.evaluate(async () => {
    const el = document.querySelector('#lab');
    const entries = [];
    const obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => entries.push(e)));
    obs.observe({ type: 'longtask' });
    // each from a task of its own (a timer), as a click is: work in it is a long task (not so in this evaluate's)
    const inTask = (fn) => new Promise((ok) => setTimeout(() => ok(fn())));
    const done = [];
    for (const m of ['rankOne', 'rankOne', 'fineTune']) done.push(await inTask(() => el.edit(m)));
    await inTask(() => el.undo());
    await new Promise((r) => setTimeout(r, 100));
    obs.disconnect();
    return { long: entries.map((e) => Math.round(e.duration)), flipped: done.map((e) => e?.flipped) };
  });
}

test('the default lab stores >= 99 % from seed 1; no task over 50 ms training, after it, editing', SLOW, async () => {
  const p = await open();
  try {
    await installStretch(p);
    const seen = [];
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt) await p.$eval('#lab', (el) => el.reset());
      const r = await trainWatched(p);
      const s = await state(p);
      assert.ok(s.stored / s.nFacts >= 0.99, `stored ${s.stored} of ${s.nFacts} after ${s.step} steps`);
      assert.match(await shadowText(p, '.status'), new RegExp(`stored ${s.stored.toLocaleString('en')} of 1,001`));
      const e = await editWatched(p);
      assert.deepEqual(e.flipped, [true, true, true]);
      const bound = LONG_TASK_MS * (await p.evaluate(() => window.__stretch()));
      const tasks = `long tasks [${r.long}], after stop [${r.after}], editing [${e.long}]`;
      seen.push(`${r.steps} steps in ${Math.round(r.ms)} ms, ${tasks} (bound ${Math.round(bound)} ms)`);
      if ([...r.long, ...r.after, ...e.long].every((d) => d < bound)) break;
      if (attempt === ATTEMPTS - 1) assert.fail(`long tasks in every attempt: ${seen.join('; ')}`);
    }
    console.log(`# Chromium: ${seen.at(-1)}`);
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

/** Press Tab until the focused element in the lab's shadow root matches sel (at most 60 presses). */
async function tabTo(p, sel) {
  for (let i = 0; i < 60; i++) {
    await p.keyboard.press('Tab');
    const ok = await p.$eval('#lab', (el, s) => !!el.shadowRoot.activeElement?.matches(s), sel);
    if (ok) return;
  }
  assert.fail(`Tab never reached ${sel}`);
}

test('keyboard only: train, find a fact, open a memory, measure, edit both ways, undo', SLOW, async () => {
  const p = await open();
  try {
    await tabTo(p, 'button.train');
    await p.keyboard.press('Enter');
    await p.waitForFunction(() => !document.querySelector('#lab').training, null, { timeout: 120000 });
    assert.ok((await state(p)).stored >= 991);
    await tabTo(p, 'input.search');
    await p.keyboard.type('France · cap');
    await p.keyboard.press('Enter');
    assert.equal((await state(p)).fact.subject, 'France');
    await p.keyboard.press('ArrowDown'); // into the list; arrows move through the facts shown
    await tabTo(p, 'input.search');
    await p.keyboard.press('Control+A');
    await p.keyboard.type('Japan');
    await p.keyboard.press('ArrowDown');
    let s = await state(p);
    assert.deepEqual([s.fact.subject, s.fact.relation], ['Japan', 'capital']);
    assert.match(await shadowText(p, '.answer'), /The model answers Tokyo/);
    await tabTo(p, 'button.mem');
    await p.keyboard.press('Enter');
    s = await state(p);
    assert.ok(Number.isInteger(s.memory));
    assert.match(await shadowText(p, '.memory'), new RegExp(`Memory ${s.memory}.*promotes.*fires most for`, 's'));
    await tabTo(p, 'button.measure');
    await p.keyboard.press('Enter');
    await p.waitForFunction(() => document.querySelector('#lab').state.capacity.length === 5, null, {
      timeout: 200000,
    });
    const cap = (await state(p)).capacity;
    console.log(`# Chromium capacity (80 steps): ${cap.map((c) => `d_ff ${c.dff}: ${c.stored}`).join(', ')}`);
    // what the section says: 32 memories leave facts out; far fewer memories than facts store them all
    assert.ok(cap[0].stored < cap[0].n, `d_ff 32 stored ${cap[0].stored}`);
    assert.ok(
      cap.some((c) => c.dff * 4 <= c.n && c.stored === c.n),
      'a quarter as many memories as facts stores all',
    );
    assert.equal(await p.$eval('#lab', (el) => el.shadowRoot.querySelectorAll('.cap-table tbody tr').length), 5);
    await tabTo(p, 'button.rank-one');
    await p.keyboard.press('Enter');
    await p.waitForFunction(() => document.querySelector('#lab').state.edited === 'rankOne');
    await tabTo(p, 'button.fine-tune');
    await p.keyboard.press('Enter');
    await p.waitForFunction(() => document.querySelector('#lab').state.edited === 'fineTune');
    assert.match(await shadowText(p, '.edit-status'), /Fine-tune: Japan · capital → Paris\./);
    s = await state(p);
    const { rankOne, fineTune } = s.edits;
    assert.equal(rankOne.flipped, true);
    assert.equal(fineTune.flipped, true);
    const cells = await p.$eval('#lab', (el) =>
      [...el.shadowRoot.querySelectorAll('table.edits td')].map((c) => c.textContent),
    );
    assert.ok(
      cells.includes(`${rankOne.kept.toLocaleString('en')} of ${rankOne.of.toLocaleString('en')}`),
      cells.join('|'),
    );
    assert.ok(
      cells.includes(`${fineTune.kept.toLocaleString('en')} of ${fineTune.of.toLocaleString('en')}`),
      cells.join('|'),
    );
    await tabTo(p, 'button.undo');
    await p.keyboard.press('Enter');
    assert.equal((await state(p)).edited, null);
    assert.match(await shadowText(p, '.answer'), /The model answers Tokyo/);
    console.log(
      `# Chromium, Japan · capital -> Paris: rank-one kept ${rankOne.kept} of ${rankOne.of}, ` +
        `fine-tuning (${fineTune.steps} steps) kept ${fineTune.kept} of ${fineTune.of}`,
    );
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

test('a rank-one edit keeps >= 99 % of the other facts and Undo restores every weight bit', SLOW, async () => {
  const p = await open();
  try {
    const r = await p.evaluate(async () => {
      const el = document.querySelector('#lab');
      await el.train();
      const bits = (w) => ['W1', 'b1', 'W2'].map((k) => Array.from(new Uint32Array(w[k].slice().buffer)));
      const before = bits(el.trainer.copyWeights());
      const e = await el.edit('rankOne');
      const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
      const edited = bits(el.trainer.copyWeights());
      el.undo();
      const after = bits(el.trainer.copyWeights());
      return {
        e,
        changed: edited.map((w, k) => !same(w, before[k])),
        undone: after.every((w, k) => same(w, before[k])),
      };
    });
    assert.equal(r.e.flipped, true);
    assert.ok(r.e.kept >= 0.99 * r.e.of, `kept ${r.e.kept} of ${r.e.of}`);
    // the course section: the edit changes only the second matrix
    assert.deepEqual(r.changed, [false, false, true], 'W1, b1 as they were; W2 changed');
    assert.equal(r.undone, true, 'Undo restored W1, b1 and W2 bit for bit');
  } finally {
    await p.close();
  }
});

test('360 px: no horizontal scroll; axe-core finds nothing, trained and edited, light and dark', SLOW, async () => {
  const p = await open(360);
  try {
    await p.evaluate(async () => {
      const el = document.querySelector('#lab');
      await el.train();
      el.setAttribute('memory', '3');
      await el.edit('rankOne');
      await el.edit('fineTune');
    });
    assert.ok((await p.evaluate(() => document.documentElement.scrollWidth)) <= 360);
    await p.evaluate(AXE);
    for (const theme of ['light', 'dark']) {
      await p.$eval('#lab', (el, t) => el.setAttribute('theme', t), theme);
      const v = await p.evaluate(async () => (await window.axe.run('#lab')).violations);
      assert.deepEqual(
        v.map((x) => `${x.id}: ${x.nodes.map((n) => n.target.join(' ')).join(', ')}`),
        [],
        theme,
      );
    }
  } finally {
    await p.close();
  }
});

test('in French: no English left, relations translated, refusals named in French', SLOW, async () => {
  const p = await open(1000, 'fr');
  try {
    await p.waitForFunction(() =>
      /^Le labo/.test(document.querySelector('#lab').shadowRoot.querySelector('.title')?.textContent),
    );
    await p.evaluate(async () => {
      const el = document.querySelector('#lab');
      for (let i = 0; i < 30; i++) await el.step();
      el.setAttribute('memory', '3');
      await el.edit('rankOne');
      await el.edit('fineTune');
      el.setAttribute('seed', '0');
    });
    const texts = await p.evaluate(collectShownText, '#lab');
    assert.ok(texts.join(' ').includes('Japan · capitale → Tokyo'), 'relations in French, labels as the data has them');
    assert.ok(texts.some((t) => /seed doit être un nombre entier/.test(t)));
    const facts = await p.$eval('#lab', (el) => el.facts);
    const labels = [...new Set(facts.flatMap((f) => [f.subject, f.object]))].sort((a, b) => b.length - a.length);
    const shown = texts.map((t) => labels.reduce((s, l) => s.split(l).join(' '), t)); // the data's labels stay
    assert.deepEqual(findEnglish(shown), []);
  } finally {
    await p.close();
  }
});

test('a refused fact list names its line and the lab keeps its facts', SLOW, async () => {
  const p = await open();
  try {
    const r = await p.evaluate(async () => {
      const el = document.querySelector('#lab');
      el.setAttribute('facts', 'Japan | capital | Tokyo\nFrance | capital\nItaly | capital | Rome');
      const one = el.shadowRoot.querySelector('.error')?.textContent;
      let thrown = null;
      try {
        el.facts = 'a | r | x\na | r | y';
      } catch (e) {
        thrown = e.message;
      }
      // every attribute has its property
      el.fact = 'France | capital';
      el.memory = 5;
      const props = [el.getAttribute('fact'), el.state.fact.subject, el.getAttribute('memory'), el.memory];
      el.memory = null;
      props.push(el.hasAttribute('memory'), el.memory, el.dff, el.seed);
      return { one, thrown, n: el.state.nFacts, props };
    });
    assert.match(r.one, /ffn-memory-lab: facts, line 2: "France \| capital" should be/);
    assert.match(r.thrown, /line 2: "a" · "r" is "y", but line 1 says "x"/);
    assert.equal(r.n, 1001);
    assert.deepEqual(r.props, ['France · capital', 'France', '5', 5, false, null, 512, 1]);
  } finally {
    await p.close();
  }
});

test('a page without Worker: Train runs in main-thread slices (driver "frames") and stores >= 99 %', SLOW, async () => {
  const p = await served.newPage();
  try {
    const errors = [];
    p.on('pageerror', (e) => errors.push(e.message));
    await p.addInitScript(() => Object.defineProperty(window, 'Worker', { value: undefined, configurable: true }));
    await p.goto(new URL('tests/fixtures/memory-lab.html', served.url).href);
    await p.waitForFunction(() => document.querySelector('#lab')?.state, null, { timeout: 30000 });
    const s = await p.$eval('#lab', async (el) => {
      await el.train();
      return JSON.parse(JSON.stringify(el.state));
    });
    assert.equal(s.driver, 'frames');
    assert.ok(s.stored >= 0.99 * s.nFacts, `stored ${s.stored} of ${s.nFacts} at step ${s.step}`);
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});

test('hostile attribute and property values are refused and named; the lab keeps what it had', SLOW, async () => {
  const p = await open();
  try {
    const r = await p.evaluate(async () => {
      const el = document.querySelector('#lab');
      const keep = () => JSON.stringify([el.seed, el.dff, el.fact, el.memory, el.state?.nFacts, el.facts[5]]);
      el.setAttribute('memory', '5');
      const before = keep();
      // a valid value clears a refusal (said until the attribute changes); facts' stays said
      const valid = { seed: '1', 'd-ff': '512', fact: 'Japan · capital', memory: '5' };
      const clear = async (name) => {
        if (valid[name]) el.setAttribute(name, valid[name]);
        await new Promise((ok) => setTimeout(ok, 50)); // a new d_ff builds its model anew
      };
      const throwing = {
        toString() {
          throw new Error('no text');
        },
      };
      const attrs = {
        facts: ['x'.repeat(1e6), 'a | b', '__proto__', 'a|b|c\n'.repeat(5000), ' '],
        seed: ['0', '1e300', '-1', 'NaN', '0x10', '9'.repeat(1e5), '__proto__'],
        'd-ff': ['48', '1025', '1e3', 'Infinity', '\u0000'],
        fact: ['Nowhere · capital', 'x'.repeat(1e6), '·', 'constructor'],
        memory: ['1024', '-1', '1.5', 'x'.repeat(1e6)],
      };
      const out = [];
      for (const [name, values] of Object.entries(attrs)) {
        for (const v of values) {
          let threw = null;
          try {
            el.setAttribute(name, v);
          } catch (e) {
            threw = e.message;
          }
          const alert = el.shadowRoot.querySelector('.error')?.textContent ?? '';
          out.push({ name, v: v.slice(0, 20), threw, alert: alert.slice(0, 2000), kept: keep() === before });
        }
        await clear(name);
      }
      for (const name of ['seed', 'dff', 'fact', 'memory']) {
        for (const v of [Symbol('s'), throwing, 10n, { valueOf: () => 5 }]) {
          let threw = null;
          try {
            el[name] = v;
          } catch (e) {
            threw = e.message;
          }
          const alert = el.shadowRoot.querySelector('.error')?.textContent ?? '';
          out.push({ name, v: typeof v, threw, alert: alert.slice(0, 2000), kept: keep() === before });
          await clear(name === 'dff' ? 'd-ff' : name);
        }
      }
      return { out, after: keep(), before };
    });
    for (const o of r.out) {
      const attr = o.name === 'dff' ? 'd-ff' : o.name;
      assert.equal(o.threw, null, `${o.name} = ${o.v}: threw`);
      assert.ok(o.kept, `${o.name} = ${o.v}: the lab changed`);
      assert.match(o.alert, new RegExp(`ffn-memory-lab: ${attr}\\b`), `${o.name} = ${o.v}: ${o.alert.slice(0, 200)}`);
      assert.ok(o.alert.length < 1500, `${o.name} = ${o.v}: an alert of ${o.alert.length} characters`);
    }
    assert.equal(r.after, r.before);
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

test("the course section's statements: the sum is the logit, memories fire for hundreds of facts", SLOW, async () => {
  const p = await open();
  try {
    const r = await p.evaluate(async () => {
      const el = document.querySelector('#lab');
      await el.train();
      const root = el.shadowRoot;
      const top = [...root.querySelectorAll('button.mem')].slice(0, 3).map((b) => Number(b.dataset.memory));
      const uses = [];
      for (const i of top) {
        el.setAttribute('memory', String(i));
        const relations = [...root.querySelectorAll('.triggers li')].map((li) => li.textContent.split(' · ')[1]);
        uses.push({ text: root.querySelector('.use').textContent, relations });
      }
      return {
        stored: el.state.stored,
        sum: root.querySelector('.sum').textContent,
        uses,
      };
    });
    assert.equal(r.stored, 1001, 'every fact stored');
    const [, sum, logit] = /^Sum: (-?[\d.]+)\. The logit of Tokyo: (-?[\d.]+)\.$/.exec(r.sum);
    assert.equal(sum, logit, r.sum);
    for (const u of r.uses) {
      const [, fires] = /It fires for ([\d,]+) of the 1,001 facts/.exec(u.text);
      assert.ok(Number(fires.replace(/,/g, '')) >= 200, u.text); // "hundreds of facts"
    }
  } finally {
    await p.close();
  }
});

test('the embed page takes its attributes from the URL, and says a refused one', SLOW, async () => {
  const p = await served.newPage();
  try {
    const q = '?seed=3&d-ff=256&fact=France%20%C2%B7%20capital&memory=9999&theme=dark';
    await p.goto(new URL(`web/embed/memory-lab.html${q}`, served.url).href);
    await p.waitForFunction(() => document.querySelector('ffn-memory-lab')?.state, null, { timeout: 30000 });
    const r = await p.$eval('ffn-memory-lab', (el) => ({
      s: [el.state.seed, el.state.dff, el.state.fact.subject, el.state.memory, el.getAttribute('theme')],
      alert: el.shadowRoot.querySelector('.error')?.textContent,
    }));
    assert.deepEqual(r.s, [3, 256, 'France', null, 'dark']);
    assert.match(r.alert, /ffn-memory-lab: memory must be between 0 and 1023, got "9999"/);
  } finally {
    await p.close();
  }
});

test('a lab far below the fold starts no worker until the reader scrolls near it', SLOW, async () => {
  const p = await open();
  try {
    const far = await p.evaluate(async () => {
      const spacer = Object.assign(document.createElement('div'), { style: 'height: 5000px' });
      const lab = document.createElement('ffn-memory-lab');
      lab.id = 'far';
      document.body.append(spacer, lab);
      await new Promise((ok) => lab.addEventListener('ffn-ready', ok, { once: true }));
      await new Promise((ok) => setTimeout(ok, 3000)); // past the idle start's 2 s deadline
      return lab.state.driver;
    });
    assert.equal(far, null, 'drawn far below the fold: no driver');
    await p.$eval('#far', (el) => el.scrollIntoView());
    await p.waitForFunction(() => document.querySelector('#far').state.driver === 'worker', null, { timeout: 30000 });
  } finally {
    await p.close();
  }
});
