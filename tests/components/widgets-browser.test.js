// Chromium tests of what the three widgets state and draw: status against vector, the page's claims, labels of any
// length, and hostile attributes and URL parameters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';

const served = servedBrowser();
const skip = served.skip || false;

/** Open a page at a viewport width, recording page errors and console errors. */
async function open(path, width = 1280) {
  const src = new URL('/web/embed/memory-widget.html?sync-hash=memory#memory=q', served.url).href;
  const p = await served.newPage();
  p.errors = [];
  p.on('pageerror', (e) => p.errors.push(`pageerror: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error') p.errors.push(m.text());
  });
  await p.setViewportSize({ width, height: 900 });
  await p.goto(new URL(path, served.url).href, { waitUntil: 'load' });
  return p;
}

const ready = (p, sel, prop = 'result') =>
  p.waitForFunction(([s, k]) => document.querySelector(s)?.[k], [sel, prop], { timeout: 15000 });

// In the page: apply a change to the memory widget, wait for the ffn-change it causes, and return its detail and
// what the widget then shows (row states and cells, the output lines, the status line).
const SETTLE = `async (el, change) => {
  const got = new Promise((res) => el.addEventListener('ffn-change', (e) => res(e.detail), { once: true }));
  if (change.activation) el.activation = change.activation;
  if (change.threshold !== undefined) el.threshold = change.threshold;
  if (change.token) el.selectToken(change.token, { animate: false });
  if (change.query) el.query = change.query;
  if (change.k !== undefined) el.k = change.k;
  const d = await got;
  const arr = (a) => Array.from(a);
  const rows = [...el.shadowRoot.querySelectorAll('tbody tr')].map((tr) => ({
    cls: tr.className, state: tr.querySelector('.status').textContent, phi: tr.cells[3].textContent,
    top: tr.cells[5].textContent,
  }));
  const out = [...el.shadowRoot.querySelectorAll('.out p')].map((q) => q.textContent);
  const plain = {
    match: arr(d.match), coef: arr(d.coef), written: arr(d.written), partial: arr(d.partial), top: arr(d.top),
  };
  return { d: { ...d, ...plain }, rows, out };
}`;
const settle = (p, sel, change) => p.$eval(sel, new Function(`return ${SETTLE}`)(), change);

/** The live region's text once it has caught up with the last change (it is throttled to one update per 700 ms). */
async function liveText(p, sel) {
  await p.waitForTimeout(900);
  return p.$eval(sel, (el) => el.shadowRoot.querySelector('[aria-live]').textContent);
}

test('memory widget: status line and vector agree; every row says what its numbers do', { skip }, async () => {
  const p = await open('/web/embed/memory-widget.html');
  try {
    await ready(p, 'ffn-memory-widget');
    // The case of the issue: "the" under GELU writes a small vector, so the status cannot say nothing is written.
    const the = await settle(p, 'ffn-memory-widget', { token: 'the', activation: 'gelu' });
    assert.ok(
      the.d.written.some((v) => v !== 0),
      'the leaks write a vector',
    );
    const live = await liveText(p, 'ffn-memory-widget');
    assert.doesNotMatch(live, /nothing is written/, live);
    assert.match(live, /3 memories leak through GELU and write \(/, live);
    assert.doesNotMatch(the.out[0], /writes \(0\.00, 0\.00\)/, the.out[0]);
    // Sweep positions and activations: "nothing is written" exactly when the vector is zero; each row's state
    // follows its match and activation (fires: match > 0; leaks: match <= 0 but phi != 0; silent: phi == 0).
    const tokens = ['Tokyo', 'Paris', 'Rome', 'the', 'of', 'and'];
    const grid = [];
    for (let x = -1.2; x <= 1.21; x += 0.4) for (let y = -1.2; y <= 1.21; y += 0.4) grid.push([x, y]);
    for (const activation of ['relu', 'gelu', 'silu']) {
      for (const where of [...tokens.map((token) => ({ token })), ...grid.map((query) => ({ query }))]) {
        const { d, rows, out } = await settle(p, 'ffn-memory-widget', { activation, ...where });
        const what = `${activation} at ${JSON.stringify(where)}: ${d.status}`;
        const zero = d.written[0] === 0 && d.written[1] === 0;
        assert.equal(/nothing is written/.test(d.status), zero, what);
        if (!zero) assert.doesNotMatch(out[0], /writes \(0\.00, 0\.00\)/, what);
        if (!d.fires.length && !zero) assert.match(d.status, /leaks? through \w+ and writes? \(/, what);
        d.coef.forEach((c, i) => {
          const want = d.match[i] > 0 && c > 0 ? 'fires' : c !== 0 ? 'leaks' : 'silent';
          assert.equal(rows[i].state, want, `${what}: row ${i} (match ${d.match[i]}, phi ${c})`);
          if (c !== 0) assert.notEqual(Number(rows[i].phi), 0, `${what}: row ${i} shows ${rows[i].phi} for ${c}`);
        });
      }
    }
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

test("memory widget: the seed's demonstration (Tokyo, then GELU) shows Paris and Rome leaking", { skip }, async () => {
  const p = await open('/web/embed/memory-widget.html');
  try {
    await ready(p, 'ffn-memory-widget');
    const relu = await settle(p, 'ffn-memory-widget', { token: 'Tokyo', activation: 'relu' });
    assert.deepEqual(
      relu.rows.map((r) => r.state),
      ['fires', 'silent', 'silent'],
    );
    const { d, rows } = await settle(p, 'ffn-memory-widget', { activation: 'gelu' });
    assert.deepEqual(
      rows.map((r) => r.state),
      ['fires', 'leaks', 'leaks'],
    );
    for (const i of [1, 2]) {
      assert.ok(d.coef[i] < 0, `memory ${i} leaks below zero: ${d.coef[i]}`);
      assert.ok(Number(rows[i].phi) < 0, `memory ${i} shows its leak: ${rows[i].phi}`);
    }
    assert.match(
      await liveText(p, 'ffn-memory-widget'),
      /Tokyo's memory fires \(3\.10\) and writes Japan \(score 3\.\d\d\); 2 memories leak through GELU\./,
    );
  } finally {
    await p.close();
  }
});

test('memory widget: the top-k column ranks only memories that add something to the sum', { skip }, async () => {
  const p = await open('/web/embed/memory-widget.html');
  try {
    await ready(p, 'ffn-memory-widget');
    // On "the" under ReLU nothing contributes: the kernel's top-3 still lists three memories, the column none.
    const the = await settle(p, 'ffn-memory-widget', { token: 'the', activation: 'relu', k: 3 });
    assert.equal(the.d.top.length, 3);
    assert.deepEqual(
      the.rows.map((r) => r.top),
      ['–', '–', '–'],
    );
    for (const activation of ['relu', 'gelu', 'silu']) {
      for (const k of [0, 1, 2, 3]) {
        for (const token of ['Tokyo', 'the', 'Paris']) {
          const { d, rows } = await settle(p, 'ffn-memory-widget', { token, activation, k });
          d.coef.forEach((c, i) => {
            const pos = d.top.indexOf(i);
            const want = pos >= 0 && c !== 0 ? `#${pos + 1}` : '–';
            assert.equal(rows[i].top, want, `${activation} k=${k} on ${token}: row ${i} (phi ${c}, top ${d.top})`);
          });
        }
      }
    }
  } finally {
    await p.close();
  }
});

test("memory widget: the course page's claims hold (halfway between cities, lower threshold)", { skip }, async () => {
  const p = await open('/web/');
  try {
    await ready(p, '#memory');
    const text = await p.$eval('#kv-memory', (s) => s.textContent.replace(/\s+/g, ' '));
    assert.match(
      text,
      new RegExp(
        'Put the query halfway between two cities and both their memories fire: the write ' +
          'is an even blend of the two values and decodes to neither; move it a little toward one city and the blend ' +
          "decodes to that city's country\\.",
      ),
    );
    assert.match(text, /Lower the threshold and every firing region grows, until one query fires all three memories\./);
    assert.match(
      text,
      /back on "Tokyo", switch φ to GELU or SiLU and watch the memories of Paris and Rome, silent under ReLU, leak/,
    );
    const pos = await p.$eval('#memory', async (el) => {
      const at = {};
      for (const t of ['Tokyo', 'Paris', 'Rome']) {
        el.selectToken(t, { animate: false });
        at[t] = el.query;
      }
      return at;
    });
    const name = ['Tokyo', 'Paris', 'Rome'];
    const country = ['Japan', 'France', 'Italy'];
    for (const [a, b] of [
      [0, 2],
      [0, 1],
      [1, 2],
    ]) {
      const A = pos[name[a]],
        B = pos[name[b]];
      const along = (t) => [A[0] + t * (B[0] - A[0]), A[1] + t * (B[1] - A[1])];
      const mid = await settle(p, '#memory', { activation: 'relu', query: along(0.5) });
      assert.deepEqual([...mid.d.fires].sort(), [a, b], `halfway between ${name[a]} and ${name[b]}: ${mid.d.status}`);
      assert.equal(mid.d.decoded.token, null, `an even blend decodes to neither: ${mid.d.status}`);
      for (const [t, want] of [
        [0.45, a],
        [0.55, b],
      ]) {
        const r = await settle(p, '#memory', { query: along(t) });
        assert.deepEqual([...r.d.fires].sort(), [a, b], `at ${t} of the way: ${r.d.status}`);
        assert.equal(r.d.decoded.token, country[want], `at ${t} of the way: ${r.d.status}`);
      }
    }
    // Lower the threshold: on Tokyo all three fire at the slider's lowest value.
    const low = await settle(p, '#memory', { token: 'Tokyo', threshold: -2 });
    assert.deepEqual(low.d.fires.sort(), [0, 1, 2], low.d.status);
    await p.$eval('#memory', (el) => el.removeAttribute('threshold'));
  } finally {
    await p.close();
  }
});

test('memory widget at 360 px: the top-k rank stays visible (in the stacked layout)', { skip }, async () => {
  const p = await open('/web/embed/memory-widget.html?activation=gelu', 360);
  try {
    await ready(p, 'ffn-memory-widget');
    await settle(p, 'ffn-memory-widget', { token: 'Tokyo' });
    const cells = await p.$eval('ffn-memory-widget', (el) => {
      const host = el.getBoundingClientRect();
      return [...el.shadowRoot.querySelectorAll('tbody tr')].map((tr) => {
        const c = tr.cells[5];
        const r = c.getBoundingClientRect();
        return {
          text: c.textContent,
          shown: getComputedStyle(c).display !== 'none' && r.width > 0 && r.height > 0,
          inside: r.left >= host.left && r.right <= host.right,
          label: getComputedStyle(c, '::before').content,
        };
      });
    });
    assert.deepEqual(
      cells.map((c) => c.text),
      ['#1', '#2', '#3'],
      JSON.stringify(cells),
    );
    for (const c of cells) {
      assert.ok(c.shown && c.inside, JSON.stringify(c));
      assert.match(c.label, /top-k/, 'the rank is labelled in place');
    }
    const { sw, cw } = await p.evaluate(() => {
      const e = document.documentElement;
      return { sw: e.scrollWidth, cw: e.clientWidth };
    });
    assert.ok(sw <= cw, `no horizontal scroll: ${sw} > ${cw}`);
  } finally {
    await p.close();
  }
});

const LONG_FACTS = [
  ['Saint Petersburg', 'Russian Federation'],
  ['Rio de Janeiro', 'Brazil'],
  ['Llanfairpwllgwyngyllgogerychwyrndrobwll', 'Wales'],
  ['Ouagadougou', 'Burkina Faso'],
  ['Madrid', 'Spain'],
  ['Kuala Lumpur', 'Malaysia'],
  ['Washington D.C.', 'United States of America'],
  ['Reykjavik', 'Iceland'],
];

/** Geometry of every label and mark of both planes, and overflow of the widget's HTML parts. */
const GEOMETRY = (el) => {
  const R = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
  // A label's text: its lines (tspans) joined by spaces.
  const lines = (t) =>
    t.querySelector('tspan') ? [...t.querySelectorAll('tspan')].map((s) => s.textContent).join(' ') : t.textContent;
  const planes = [...el.shadowRoot.querySelectorAll('svg.plane')].map((svg) => ({
    svg: R(svg.getBoundingClientRect()),
    labels: [...svg.querySelectorAll('text')]
      .filter((t) => t.getAttribute('visibility') !== 'hidden')
      .map((t) => ({
        text: lines(t),
        box: R(t.getBoundingClientRect()),
      })),
    marks: [...svg.querySelectorAll('.tok circle')].map((c) => ({
      name: c.parentNode.textContent,
      box: R(c.getBoundingClientRect()),
    })),
  }));
  const overflow = [...el.shadowRoot.querySelectorAll('th, td, button, .out p, .live, .tablewrap')]
    .filter((e) => e.scrollWidth > e.clientWidth + 1)
    .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`);
  const host = el.getBoundingClientRect();
  return {
    planes,
    overflow,
    host: R(host),
    hostScroll: el.shadowRoot.host.scrollWidth - el.shadowRoot.host.clientWidth,
    buttons: [...el.shadowRoot.querySelectorAll('button[data-token]')].map((b) => b.textContent),
    errors: el.shadowRoot.querySelector('.error')?.textContent ?? '',
  };
};

function assertLabelsClear(g, names, what) {
  const overlap = (a, b) => a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5;
  for (const [pi, plane] of g.planes.entries()) {
    for (const lab of plane.labels) {
      const b = lab.box,
        s = plane.svg;
      assert.ok(
        b.l >= s.l - 0.5 && b.r <= s.r + 0.5 && b.t >= s.t - 0.5 && b.b <= s.b + 0.5,
        `${what}: plane ${pi} label "${lab.text}" ${JSON.stringify(b)} is cut by the plane ${JSON.stringify(s)}`,
      );
      for (const other of plane.labels) {
        if (other !== lab) assert.ok(!overlap(b, other.box), `${what}: "${lab.text}" overlaps "${other.text}"`);
      }
      for (const m of plane.marks) assert.ok(!overlap(b, m.box), `${what}: "${lab.text}" covers the mark of ${m.name}`);
    }
  }
  // Every label is there in full (lines joined), on the plane and on its button.
  const shown = g.planes[0].labels.map((l) => l.text.replace(/\s+/g, ''));
  for (const n of names) {
    assert.ok(shown.includes(n.replace(/\s+/g, '')), `${what}: label ${n} shown in full (got ${shown.join(' | ')})`);
  }
  assert.deepEqual(g.overflow, [], `${what}: text overflows its box`);
  assert.ok(g.hostScroll <= 0, `${what}: the widget scrolls sideways`);
}

test('memory widget: 8 author facts, long labels, none clipped or overlapping at 360/1280 px', { skip }, async () => {
  const facts = LONG_FACTS.map(([k, v]) => `${k}>${v}`).join(', ');
  for (const width of [360, 1280]) {
    const p = await open(`/web/embed/memory-widget.html?facts=${encodeURIComponent(facts)}`, width);
    try {
      await ready(p, 'ffn-memory-widget');
      const g = await p.$eval('ffn-memory-widget', GEOMETRY);
      assert.equal(g.errors, '');
      assert.equal(await p.$eval('ffn-memory-widget', (el) => el.result.k), 8);
      assertLabelsClear(g, [...LONG_FACTS.map((f) => f[0]), 'the', 'of', 'and'], `${width} px`);
      const vocab = g.planes[1].labels.map((l) => l.text.replace(/\s+/g, ''));
      for (const [, v] of LONG_FACTS) {
        assert.ok(vocab.includes(v.replace(/\s+/g, '')), `${width} px: value ${v} in full`);
      }
      assert.deepEqual(
        g.buttons.slice(0, 8),
        LONG_FACTS.map((f) => f[0]),
      );
      // Each fact is still recalled alone from its own key token.
      for (const [i, [key, value]] of LONG_FACTS.entries()) {
        const { d } = await settle(p, 'ffn-memory-widget', { token: key, activation: 'relu' });
        assert.deepEqual(d.fires, [i], `${key}: ${d.status}`);
        assert.equal(d.decoded.token, value);
      }
      assert.deepEqual(p.errors, []);
    } finally {
      await p.close();
    }
  }
});

test('memory widget: "Madrid" on the left edge and eight filler words are drawn in full', { skip }, async () => {
  const facts = 'Berlin>Germany, Madrid>Spain, Lisbon>Portugal, Oslo>Norway';
  const distractors = 'the, of, and, a, to, in, is, it';
  for (const width of [360, 1280]) {
    const query = `facts=${encodeURIComponent(facts)}&distractors=${encodeURIComponent(distractors)}`;
    const p = await open(`/web/embed/memory-widget.html?${query}`, width);
    try {
      await ready(p, 'ffn-memory-widget');
      const g = await p.$eval('ffn-memory-widget', GEOMETRY);
      assert.equal(g.errors, '');
      assertLabelsClear(g, ['Berlin', 'Madrid', 'Lisbon', 'Oslo', ...distractors.split(', ')], `${width} px`);
    } finally {
      await p.close();
    }
  }
});

/** Every annotation of the activation plot: its box, its leader (in page px), the frame of its panel. */
const NOTES = (el) => {
  const svg = el.shadowRoot.querySelector('svg.plot');
  const m = svg.getScreenCTM();
  const pt = (x, y) => {
    const q = new DOMPoint(x, y).matrixTransform(m);
    return [q.x, q.y];
  };
  const R = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
  const frames = [...svg.querySelectorAll('rect.frame')].map((f) => R(f.getBoundingClientRect()));
  const notes = [...svg.querySelectorAll('text.note')].map((t) => ({
    text: t.querySelector('tspan')
      ? [...t.querySelectorAll('tspan')].map((s) => s.textContent).join(' ')
      : t.textContent,
    box: R(t.getBoundingClientRect()),
  }));
  const leaders = [...svg.querySelectorAll('line.leader')].map((l) => {
    const v = (n) => Number(l.getAttribute(n));
    return [pt(v('x1'), v('y1')), pt(v('x2'), v('y2'))];
  });
  return { notes, leaders, frames, svg: R(svg.getBoundingClientRect()) };
};

/** True when segment p-q passes through the inside of box b. */
function crosses(p, q, b) {
  let t0 = 0,
    t1 = 1;
  const dx = q[0] - p[0],
    dy = q[1] - p[1];
  for (const [pp, qq] of [
    [-dx, p[0] - b.l],
    [dx, b.r - p[0]],
    [-dy, p[1] - b.t],
    [dy, b.b - p[1]],
  ]) {
    if (pp === 0) {
      if (qq <= 0) return false;
      continue;
    }
    const r = qq / pp;
    if (pp < 0) {
      if (r > t1) return false;
      t0 = Math.max(t0, r);
    } else {
      if (r < t0) return false;
      t1 = Math.min(t1, r);
    }
  }
  return t1 - t0 > 1e-6;
}

test('activation plot: annotations never cross or crowd each other (360 px and 1280 px)', { skip }, async () => {
  for (const width of [360, 1280]) {
    const p = await open('/web/embed/activation-plot.html', width);
    try {
      await ready(p, 'ffn-activation-plot', 'readout');
      const g = await p.$eval('ffn-activation-plot', NOTES);
      const texts = g.notes.map((n) => n.text);
      const want = [
        /GELU min -0\.170 (at|at x =) -0\.752/,
        /SiLU min -0\.278 (at|at x =) -1\.278/,
        /tanh max 4\.7e-4/,
        /sigmoid max 2\.0e-2/,
      ];
      for (const re of want) {
        assert.ok(
          texts.some((t) => re.test(t)),
          `${width} px: ${re} in ${texts.join(' | ')}`,
        );
      }
      const gap = 2;
      const near = (a, b) => a.l < b.r + gap && b.l < a.r + gap && a.t < b.b + gap && b.t < a.b + gap;
      for (const [i, a] of g.notes.entries()) {
        const inside = (f) =>
          a.box.l >= f.l - 0.5 && a.box.r <= f.r + 0.5 && a.box.t >= f.t - 0.5 && a.box.b <= f.b + 0.5;
        assert.ok(g.frames.some(inside), `${width} px: "${a.text}" lies inside its panel`);
        for (const b of g.notes.slice(i + 1)) {
          assert.ok(!near(a.box, b.box), `${width} px: "${a.text}" and "${b.text}" crowd each other`);
        }
      }
      for (const [p0, p1] of g.leaders) {
        const gap = (n) =>
          Math.hypot(Math.max(n.box.l - p1[0], 0, p1[0] - n.box.r), Math.max(n.box.t - p1[1], 0, p1[1] - n.box.b));
        const own = g.notes.filter((n) => gap(n) < 3);
        for (const n of g.notes) {
          if (own.includes(n)) continue;
          const inner = { l: n.box.l + 0.5, r: n.box.r - 0.5, t: n.box.t + 0.5, b: n.box.b - 0.5 };
          assert.ok(!crosses(p0, p1, inner), `${width} px: a leader line runs through "${n.text}"`);
        }
      }
    } finally {
      await p.close();
    }
  }
});

test('parameter calculator: an author preset (attribute, property, URL) joins the built-ins', { skip }, async () => {
  // Mistral-7B-like sizes: the seed's GQA figures (41,943,040 projection weights, 176,160,768 FFN weights).
  const mine = [
    {
      id: 'mistral7b',
      label: 'Mistral 7B (mine)',
      d: 4096,
      dff: 14336,
      heads: 32,
      kvHeads: 8,
      gated: true,
      bias: false,
    },
  ];
  const p = await open('/web/embed/param-calculator.html'); // an embed page registers its own element only
  try {
    const r = await p.evaluate(async (presets) => {
      const box = document.createElement('div');
      const json = JSON.stringify(presets);
      box.innerHTML = `<ffn-param-calculator preset="mistral7b" presets='${json}'></ffn-param-calculator>`;
      document.body.append(box);
      const el = box.firstElementChild;
      await new Promise((res) => el.addEventListener('ffn-change', res, { once: true }));
      const buttons = () => [...el.shadowRoot.querySelectorAll('button[data-preset]')].map((b) => b.textContent);
      const out = {
        first: { dff: el.result.dff, ffn: el.result.ffnParams, attn: el.result.attnParams },
        buttons: buttons(),
        error: el.shadowRoot.querySelector('.error')?.textContent ?? '',
        preset: el.getAttribute('preset'),
      };
      el.applyPreset('gpt2');
      await new Promise((res) => el.addEventListener('ffn-change', res, { once: true }));
      el.shadowRoot.querySelector('button[data-preset="mistral7b"]').click();
      await new Promise((res) => el.addEventListener('ffn-change', res, { once: true }));
      out.clicked = { dff: el.result.dff, preset: el.getAttribute('preset') };
      el.presets = [...el.presets, { id: 'tiny', label: 'Tiny', d: 64, dff: 256, heads: 4, kvHeads: 4 }];
      out.more = buttons();
      el.setAttribute('presets', '[{"id":"bad","label":"Bad","d":0}]');
      out.refused = el.shadowRoot.querySelector('.error')?.textContent ?? '';
      out.kept = buttons();
      el.setAttribute('presets', '['.repeat(20000));
      out.long = el.shadowRoot.querySelector('.error')?.textContent ?? '';
      return out;
    }, mine);
    assert.deepEqual(r.first, { dff: 14336, ffn: 176160768, attn: 41943040 });
    assert.equal(r.error, '');
    assert.equal(r.preset, 'mistral7b');
    assert.equal(r.buttons.length, 7);
    assert.equal(r.buttons[6], 'Mistral 7B (mine)');
    assert.deepEqual(r.clicked, { dff: 14336, preset: 'mistral7b' });
    assert.deepEqual(r.more.slice(6), ['Mistral 7B (mine)', 'Tiny']);
    assert.match(r.refused, /presets: preset "bad": d must be a positive integer/);
    assert.deepEqual(r.kept, r.more, 'a refused definition keeps the presets that were there');
    assert.match(r.long, /presets is 20000 characters long; at most 16000/);
    // Through the embed page's URL.
    const query = `presets=${encodeURIComponent(JSON.stringify(mine))}&preset=mistral7b`;
    await p.goto(new URL(`/web/embed/param-calculator.html?${query}`, served.url).href);
    await ready(p, 'ffn-param-calculator');
    assert.equal(await p.$eval('ffn-param-calculator', (el) => el.result.ffnParams), 176160768);
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

/** Load an embed page with a hostile query (and hash): the element answers (a result or a message), nothing throws. */
async function hostile(path, sel, prop = 'result') {
  const p = await open(path, 600);
  try {
    await p.waitForFunction(
      ([s, k]) => {
        const el = document.querySelector(s);
        return el && (el[k] || el.shadowRoot?.querySelector('.error'));
      },
      [sel, prop],
      { timeout: 10000 },
    );
    await p.waitForTimeout(100);
    return await p
      .$eval(
        sel,
        (el, k) => ({
          value: el[k]
            ? JSON.parse(JSON.stringify(el[k], (key, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)))
            : null,
          alert: el.shadowRoot.querySelector('.error')?.textContent ?? '',
          nodes: el.shadowRoot.querySelectorAll('*').length,
          errors: null,
        }),
        prop,
      )
      .then((r) => ({ ...r, errors: p.errors }));
  } finally {
    await p.close();
  }
}

test('activation plot: a hostile range is refused with a message, a wide one stays light', { skip }, async () => {
  // (A URL carries a few kilobytes at most: the server refuses longer request lines.)
  const plot = (query) => hostile(`/web/embed/activation-plot.html?${query}`, 'ffn-activation-plot', 'readout');
  const ranges = ['-1e300,1e300', '-1e6,1e6', '1e300,1e301', '0,1e-9', 'NaN,1', '1,2,3', '-1e6', 'x'.repeat(5000)];
  for (const range of ranges) {
    const r = await plot(`range=${encodeURIComponent(range)}`);
    assert.match(r.alert, /ffn-activation-plot: range (must be "lo,hi"|is 5000 characters long)/, range.slice(0, 20));
    assert.ok(r.alert.length < 400, `a short message: ${r.alert.length}`);
    assert.ok(r.value.x >= -4 && r.value.x <= 4, 'the default range stays in use');
    assert.ok(r.nodes < 1500, `${r.nodes} elements`);
    assert.deepEqual(r.errors, []);
  }
  const wide = await plot('range=-1000,1000&x=1e300');
  assert.equal(wide.alert, '');
  assert.equal(wide.value.x, 1000, 'x is clamped to the range');
  assert.ok(wide.nodes < 1500, `${wide.nodes} elements for a range 2000 wide`);
  const curves = await plot(`curves=${'relu,'.repeat(1000)}`);
  assert.match(curves.alert, /curves is 5000 characters long/);
});

test('memory widget: a malformed hash is reported, nothing throws, the height is sent', { skip }, async () => {
  const hashes = [
    'memory=q',
    'memory=q:',
    'memory=q:1,2,3;k:1e300;t:1e300;a:tanh',
    `memory=${'q:0,1;'.repeat(20000)}`,
    'memory=%E0%A4%A',
  ];
  for (const hash of hashes) {
    const r = await hostile(`/web/embed/memory-widget.html?sync-hash=memory#${hash}`, 'ffn-memory-widget');
    assert.match(r.alert, /sync-hash/, hash.slice(0, 30));
    assert.ok(r.alert.length < 2000, `${r.alert.length} characters`);
    assert.deepEqual(r.errors, [], hash.slice(0, 30));
  }
  const src = new URL('/web/embed/memory-widget.html?sync-hash=memory#memory=q', served.url).href;
  const p = await served.newPage();
  p.errors = [];
  p.on('pageerror', (e) => p.errors.push(`pageerror: ${e.message}`));
  try {
    await p.setContent(`<script>window.msgs = []; addEventListener('message', (e) => msgs.push(e.data));</script>
      <iframe style="width: 600px; height: 400px" src="${src}"></iframe>`);
    await p.waitForFunction(() => window.msgs.some((m) => m?.type === 'ffn-lab:height' && m.height > 300), null, {
      timeout: 10000,
    });
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

test('memory widget: hostile URL parameters are clamped or refused with a message', { skip }, async () => {
  const mem = [
    ['facts', Array.from({ length: 9 }, (_, i) => `k${i}>v${i}`).join(','), /expected 1 to 8 facts, got 9/],
    ['facts', 'a>b,'.repeat(1500), /facts is 6000 characters long/],
    ['facts', `Tokyo>${'J'.repeat(65)}`, /has 65 characters; at most 64/],
    ['threshold', '1e300', /threshold must be between -2 and 3.5/],
    ['threshold', 'NaN', /threshold must be a number/],
    ['k', 'lots', /k must be a number/],
    ['activation', 'tanh'.repeat(1000), /activation is 4000 characters long/],
    ['token', 'x'.repeat(5000), /token is 5000 characters long/],
    ['distractors', 'a '.repeat(9), /at most 8 distractor tokens, got 9/],
    ['query', '1,2,3', /query must be "x,y"/],
    ['sync-hash', '__proto__ x', /sync-hash must be a name/],
  ];
  for (const [name, value, re] of mem) {
    const r = await hostile(`/web/embed/memory-widget.html?${name}=${encodeURIComponent(value)}`, 'ffn-memory-widget');
    assert.match(r.alert, re, `${name}=${value.slice(0, 30)}: ${r.alert.slice(0, 200)}`);
    assert.ok(r.alert.length < 400, `${name}: a short message`);
    assert.deepEqual(r.value.fires, [0], `${name}: the defaults stay in use`);
    assert.deepEqual(r.errors, []);
  }
  const clamped = await hostile('/web/embed/memory-widget.html?k=1e300&query=1e300,-1e300', 'ffn-memory-widget');
  assert.equal(clamped.alert, '');
  assert.equal(clamped.value.k, 3);
  assert.deepEqual(clamped.value.query, [1.25, -1.25]);
});

test('parameter calculator: hostile URL parameters (prototype keys, huge sizes) are refused', { skip }, async () => {
  const calc = [
    ['preset', '__proto__', /unknown preset "__proto__"/],
    ['preset', 'constructor', /unknown preset "constructor"/],
    ['preset', 'toString', /unknown preset "toString"/],
    ['d', '1e300', /d must be between 1 and 131072/],
    ['d', '12.5', /d must be a whole number/],
    ['heads', '-3', /heads must be between 1 and 4096/],
    ['experts', '1e9', /experts must be between 1 and 4096/],
    ['multiplier', 'Infinity', /multiplier must be a number/],
    ['rule', 'gpt', /rule must be "llama" or "explicit"/],
    ['gated', 'maybe', /gated must be "true" or "false"/],
    ['presets', '['.repeat(5000), /presets must be JSON/],
    ['presets', '{"__proto__":{"d":1}}', /presets must be an array/],
  ];
  for (const [name, value, re] of calc) {
    const r = await hostile(
      `/web/embed/param-calculator.html?${name}=${encodeURIComponent(value)}`,
      'ffn-param-calculator',
    );
    assert.match(r.alert, re, `${name}=${value.slice(0, 30)}: ${r.alert.slice(0, 200)}`);
    assert.equal(r.value.dff, 3072, `${name}: the defaults stay in use`);
    assert.deepEqual(r.errors, []);
  }
});

test('plot and memory widget still follow their width after a change of language rebuilt them', { skip }, async () => {
  const p = await open('/web/', 1280);
  try {
    await ready(p, '#memory');
    await ready(p, '#plot', 'readout');
    // the width each draws at: the viewBox of the plot and of the memory widget's embedding plane
    const widths = () =>
      p.evaluate(() => ({
        plot: Number(document.querySelector('#plot').shadowRoot.querySelector('svg.plot').viewBox.baseVal.width),
        memory: Number(document.querySelector('#memory').shadowRoot.querySelector('.planes svg').viewBox.baseVal.width),
      }));
    const frames = () => p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    // a language change draws each element anew (new boxes in its shadow root)
    await p.evaluate(() => ['#plot', '#memory'].forEach((s) => document.querySelector(s).setAttribute('lang', 'fr')));
    await p.waitForFunction(() => !document.querySelector('[ffn-strings-loading]'), null, { timeout: 15000 });
    await frames();
    const wide = await widths();
    await p.setViewportSize({ width: 340, height: 900 });
    await p.waitForTimeout(200);
    await frames();
    const narrow = await widths();
    assert.ok(narrow.plot < wide.plot, `the plot redraws for its new width: ${wide.plot} -> ${narrow.plot}`);
    assert.ok(narrow.memory < wide.memory, `the planes are laid out anew: ${wide.memory} -> ${narrow.memory}`);
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});
