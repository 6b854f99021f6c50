// Browser tests of the course page and its three components in Debian chromium, served from 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web/serve.js';
import { launchBrowser, browserSkipReason } from '../helpers/browser.js';

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
const skipReason = browserSkipReason();
const skip = skipReason ? skipReason : false;

let server, browser, page, base;
const consoleErrors = [];
const foreignRequests = [];

/** Record console errors, page errors and any request that leaves 127.0.0.1. */
function watch(p) {
  p.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  p.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
  p.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol === 'data:' || u.protocol === 'blob:') return;
    if (u.hostname !== '127.0.0.1') foreignRequests.push(r.url());
  });
}

async function openPage(path, viewport = { width: 1280, height: 900 }) {
  const p = await browser.newPage();
  await p.setViewportSize(viewport);
  watch(p);
  await p.goto(base + path, { waitUntil: 'load' });
  return p;
}

/** Wait until a component has computed its first result from the kernels. */
function waitReady(p, selector, prop = 'result') {
  return p.waitForFunction(
    ([s, k]) => {
      const el = document.querySelector(s);
      return el && el[k];
    },
    [selector, prop],
    { timeout: 15000 },
  );
}

const memRows = (p) =>
  p.$$eval('#memory', ([el]) =>
    [...el.shadowRoot.querySelectorAll('tbody tr')].map((tr) => ({
      name: tr.querySelector('th').textContent,
      cls: tr.className,
      coef: Number(tr.dataset.coef),
    })),
  );
const memDecoded = (p) => p.$eval('#memory', (el) => el.shadowRoot.querySelector('.out p').dataset.decoded);
const nextFrames = (p) => p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

before(async () => {
  if (skipReason) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer({ port: 0 });
  base = server.url.replace(/\/$/, '');
  browser = await launchBrowser();
  page = await openPage('/web/');
  await waitReady(page, '#memory');
  await waitReady(page, '#calc');
  await waitReady(page, '#plot', 'readout');
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the course page loads with no console error and no request outside 127.0.0.1', { skip }, async () => {
  const title = await page.title();
  assert.match(title, /feed-forward network/);
  // Every exercise of the sandbox catalog is placed in the page, once, and mounted by <ffn-exercise>.
  const { exerciseIds } = await import('ffn-lab/sandbox');
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('ffn-exercise')].every(
        (e) => e.shadowRoot && e.shadowRoot.textContent.length > 100,
      ),
    null,
    { timeout: 10000 },
  );
  const placed = await page.$$eval('ffn-exercise', (els) =>
    els.map((e) => ({
      id: e.getAttribute('exercise'),
      mounted: !!e.shadowRoot && e.shadowRoot.textContent.length > 100,
    })),
  );
  assert.deepEqual(placed.map((e) => e.id).sort(), [...exerciseIds].sort());
  assert.ok(
    placed.every((e) => e.mounted),
    JSON.stringify(placed),
  );
  await nextFrames(page);
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});

test('an exercise runs its hidden tests in the page, under the page CSP', { skip }, async () => {
  const ex = await page.$('#ex-gelu');
  await ex.scrollIntoViewIfNeeded();
  await (await ex.$('button.run')).click();
  await page.waitForFunction(
    () => /\d+ of \d+ tests passed/.test(document.querySelector('#ex-gelu').shadowRoot.textContent),
    null,
    { timeout: 20000 },
  );
  const text = await ex.evaluate((el) => el.shadowRoot.textContent);
  assert.match(text, /0 of \d+ tests passed/, 'the starter code fails every hidden test');
  assert.match(text, /not written yet \(line \d+/);
  assert.deepEqual(consoleErrors, []);
});

test('dragging the query onto Tokyo fires only Tokyo and decodes Japan', { skip }, async () => {
  const w = await page.$('#memory');
  await w.evaluate((el) => {
    el.query = [-0.9, -0.6];
  });
  await w.scrollIntoViewIfNeeded();
  await nextFrames(page);
  const start = await w.evaluate((el) => el.shadowRoot.querySelector('.query').getBoundingClientRect().toJSON());
  const tokyo = await w.evaluate((el) => {
    const g = [...el.shadowRoot.querySelectorAll('.tok')].find((t) => t.textContent === 'Tokyo');
    return g.querySelector('circle').getBoundingClientRect().toJSON();
  });
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) {
    const t = i / 8;
    await page.mouse.move(
      start.x + start.width / 2 + t * (tokyo.x + tokyo.width / 2 - start.x - start.width / 2),
      start.y + start.height / 2 + t * (tokyo.y + tokyo.height / 2 - start.y - start.height / 2),
    );
  }
  await page.mouse.up();
  await nextFrames(page);
  const rows = await memRows(page);
  assert.deepEqual(
    rows.map((r) => r.cls.includes('fires')),
    [true, false, false],
    JSON.stringify(rows),
  );
  assert.ok(rows[0].coef > 1.5, `Tokyo fires strongly, got ${rows[0].coef}`);
  assert.equal(rows[1].coef, 0);
  assert.equal(rows[2].coef, 0);
  assert.equal(await memDecoded(page), 'Japan');
  const q = await w.evaluate((el) => el.getAttribute('query'));
  const [x, y] = q.split(',').map(Number);
  assert.ok(Math.hypot(x, y - 1) < 0.08, `query attribute reflects the drag, got ${q}`);
  // A touch drag (pointer events of type touch) onto Paris.
  const paris = await w.evaluate((el) => {
    const g = [...el.shadowRoot.querySelectorAll('.tok')].find((t) => t.textContent === 'Paris');
    return g.querySelector('circle').getBoundingClientRect().toJSON();
  });
  await w.evaluate(
    (el, [from, to]) => {
      const svg = el.shadowRoot.querySelector('svg.plane.in');
      const fire = (type, x, y) =>
        svg.dispatchEvent(
          new PointerEvent(type, {
            pointerType: 'touch',
            pointerId: 7,
            isPrimary: true,
            button: 0,
            bubbles: true,
            composed: true,
            clientX: x,
            clientY: y,
          }),
        );
      fire('pointerdown', from.x + from.width / 2, from.y + from.height / 2);
      for (let i = 1; i <= 5; i++)
        fire(
          'pointermove',
          from.x + from.width / 2 + (i / 5) * (to.x - from.x),
          from.y + from.height / 2 + (i / 5) * (to.y - from.y),
        );
      fire('pointerup', to.x + to.width / 2, to.y + to.height / 2);
    },
    [tokyo, paris],
  );
  await nextFrames(page);
  assert.equal(await memDecoded(page), 'France');
  assert.deepEqual(
    (await memRows(page)).map((r) => r.cls.includes('fires')),
    [false, true, false],
  );
  await w.evaluate((el) => el.selectToken('Tokyo', { animate: false }));
  await page.waitForFunction(
    () =>
      /Tokyo's memory fires \(\d\.\d\d\) and writes Japan/.test(
        document.querySelector('#memory').shadowRoot.querySelector('[aria-live]').textContent,
      ),
    null,
    { timeout: 5000 },
  );
});

test('the token buttons: Tokyo writes Japan, "the" fires nothing', { skip }, async () => {
  const w = await page.$('#memory');
  await w.evaluate((el) => {
    el.activation = 'relu';
  });
  await (await w.$('button[data-token="Tokyo"]')).click();
  await page.waitForFunction(
    () => document.querySelector('#memory').shadowRoot.querySelector('.out p').dataset.decoded === 'Japan',
    null,
    { timeout: 5000 },
  );
  let rows = await memRows(page);
  assert.deepEqual(
    rows.map((r) => r.cls.split(' ')[0]),
    ['fires', 'silent', 'silent'],
  );
  await (await w.$('button[data-token="the"]')).click();
  // The glide ends by writing the token's position into the query attribute.
  await page.waitForFunction(() => document.querySelector('#memory').getAttribute('query') === '-0.168,0.097', null, {
    timeout: 5000,
  });
  await nextFrames(page);
  rows = await memRows(page);
  assert.deepEqual(
    rows.map((r) => r.coef),
    [0, 0, 0],
  );
  assert.deepEqual(
    rows.map((r) => r.cls.split(' ')[0]),
    ['silent', 'silent', 'silent'],
  );
  // A smooth activation lets the silent memories leak a little, and still decodes to nothing.
  await (await w.$('button[data-activation="silu"]')).click();
  await nextFrames(page);
  rows = await memRows(page);
  assert.ok(
    rows.every((r) => r.cls.startsWith('leaks') && r.coef < 0),
    JSON.stringify(rows),
  );
  assert.equal(await memDecoded(page), '');
  assert.equal(await w.evaluate((el) => el.getAttribute('activation')), 'silu');
  await (await w.$('button[data-activation="relu"]')).click();
});

test('arrow keys move the query along each slider axis and update the bars', { skip }, async () => {
  const w = await page.$('#memory');
  await w.evaluate((el) => {
    el.query = [0, 0.6];
  });
  await nextFrames(page);
  const before = await memRows(page);
  const sliders = await w.$$('[role="slider"]');
  assert.equal(sliders.length, 2);
  await sliders[1].focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowUp');
  await nextFrames(page);
  const afterUp = await memRows(page);
  assert.equal(await sliders[1].getAttribute('aria-valuenow'), '0.90');
  assert.ok(afterUp[0].coef > before[0].coef + 1, `Tokyo's bar grows: ${before[0].coef} -> ${afterUp[0].coef}`);
  const width = (p) => p.$eval('#memory', (el) => el.shadowRoot.querySelector('tbody tr .fill').style.width);
  const wUp = await width(page);
  await sliders[0].focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await nextFrames(page);
  const q = await w.evaluate((el) => el.query);
  assert.ok(Math.abs(q[0] + 0.1) < 1e-9 && Math.abs(q[1] - 0.9) < 1e-9, `query moved left: ${q}`);
  assert.equal(await sliders[0].getAttribute('aria-valuenow'), '-0.10');
  assert.notEqual(await width(page), '0%');
  assert.ok(wUp !== '0%');
  // The focus ring is visible on the focused slider.
  const outline = await sliders[0].evaluate((el) => getComputedStyle(el).outlineStyle);
  assert.equal(outline, 'solid');
});

test('the top-k control changes the partial sum', { skip }, async () => {
  const w = await page.$('#memory');
  // Between Tokyo (90 deg) and Paris (210 deg) with a low threshold both memories fire.
  await w.evaluate((el) => {
    el.threshold = 0.5;
    el.query = [-0.75, 0.43];
    el.k = 3;
  });
  await nextFrames(page);
  const r3 = await w.evaluate((el) => ({
    partial: Array.from(el.result.partial),
    written: Array.from(el.result.written),
    fires: el.result.fires,
  }));
  assert.equal(r3.fires.length, 2);
  assert.deepEqual(r3.partial, r3.written);
  const range = await w.$('input[type="range"]');
  await range.fill('1');
  await nextFrames(page);
  const r1 = await w.evaluate((el) => ({
    partial: Array.from(el.result.partial),
    top: el.result.top,
    coef: Array.from(el.result.coef),
  }));
  assert.equal(await w.evaluate((el) => el.getAttribute('k')), '1');
  assert.equal(r1.top.length, 1);
  const dist = Math.hypot(r1.partial[0] - r3.partial[0], r1.partial[1] - r3.partial[1]);
  const other = r1.coef[r1.top[0] === 0 ? 1 : 0];
  assert.ok(
    Math.abs(dist - other) < 1e-5,
    `dropping one memory moves the partial sum by its activation (${dist} vs ${other})`,
  );
  const text = await w.evaluate((el) => el.shadowRoot.querySelectorAll('.out p')[1].textContent);
  assert.match(text, /^Top-1 partial sum/);
  await w.evaluate((el) => {
    el.removeAttribute('threshold');
    el.k = 3;
    el.selectToken('Tokyo', { animate: false });
  });
});

test("the calculator's LLaMA-7B preset shows 11008", { skip }, async () => {
  const c = await page.$('#calc');
  const dff = () => c.evaluate((el) => el.shadowRoot.querySelector('[data-out="dff"]').textContent);
  assert.equal(await dff(), '3,072');
  assert.equal(
    await c.evaluate((el) => el.shadowRoot.querySelector('[data-out="ffnParams"]').textContent),
    '4,722,432',
  );
  assert.equal(
    await c.evaluate((el) => el.shadowRoot.querySelector('[data-out="attnParams"]').textContent),
    '2,362,368',
  );
  await (await c.$('button[data-preset="llama7b"]')).click();
  await page.waitForFunction(
    () => document.querySelector('#calc').shadowRoot.querySelector('[data-out="dff"]').textContent === '11,008',
    null,
    { timeout: 5000 },
  );
  assert.equal(await c.evaluate((el) => el.getAttribute('preset')), 'llama7b');
  await (await c.$('button[data-preset="llama3_8b"]')).click();
  await page.waitForFunction(
    () => document.querySelector('#calc').shadowRoot.querySelector('[data-out="share"]').textContent === '80.8%',
    null,
    { timeout: 5000 },
  );
  assert.equal(await c.evaluate((el) => el.shadowRoot.querySelector('[data-out="dff"]').textContent), '14,336');
});

test('each component keeps its styles when moved into another document (an iframe) and back', { skip }, async () => {
  const p = await openPage('/web/');
  try {
    const seen = await p.evaluate(async () => {
      const frame = document.createElement('iframe');
      document.body.append(frame);
      const tick = () => new Promise((r) => setTimeout(r, 50));
      await tick();
      const look = (el) => ({
        display: el.ownerDocument.defaultView.getComputedStyle(el).display,
        // :host { display: block } in each stylesheet
        sheets: el.shadowRoot.adoptedStyleSheets.length + el.shadowRoot.querySelectorAll('style').length,
      });
      const out = {};
      for (const tag of ['ffn-memory-widget', 'ffn-activation-plot', 'ffn-param-calculator', 'ffn-exercise']) {
        const el = document.createElement(tag);
        if (tag === 'ffn-exercise') el.setAttribute('exercise', 'gelu');
        document.body.append(el);
        await tick();
        const here = look(el);
        frame.contentDocument.body.append(el);
        await tick();
        const there = look(el);
        document.body.append(el);
        await tick();
        out[tag] = { here, there, back: look(el) };
        el.remove();
      }
      frame.remove();
      return out;
    });
    for (const [tag, { here, there, back }] of Object.entries(seen)) {
      for (const [where, l] of Object.entries({ here, there, back })) {
        assert.equal(l.display, 'block', `${tag} ${where}: display ${l.display}`);
        assert.equal(l.sheets, 1, `${tag} ${where}: ${l.sheets} stylesheets`);
      }
    }
  } finally {
    await p.close();
  }
});

test('the activation plot renders and reads about -0.170 for GELU at x = -0.752', { skip }, async () => {
  const p = await page.$('#plot');
  const n = await p.evaluate((el) => el.shadowRoot.querySelectorAll('polyline.curve').length);
  assert.equal(n, 6 * 2 + 2, 'six curves, six derivatives, two error curves');
  const readGelu = () => p.evaluate((el) => el.shadowRoot.querySelector('tr[data-curve="gelu"] td').textContent);
  assert.equal(await p.evaluate((el) => el.getAttribute('x')), '-0.752');
  assert.equal(await readGelu(), '-0.1700');
  // The keyboard moves the readout: two steps right, then two back.
  await p.evaluate((el) => el.shadowRoot.querySelector('[role="slider"]').focus());
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await nextFrames(page);
  assert.equal(await p.evaluate((el) => el.getAttribute('x')), '-0.732');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await nextFrames(page);
  assert.equal(await readGelu(), '-0.1700');
  // Hovering reads the curve under the pointer: aim at x = 1 on the first panel's axis.
  const box = await p.evaluate((el) => {
    const svg = el.shadowRoot.querySelector('svg.plot');
    const tick = [...svg.querySelectorAll('text.tick')].find((t) => t.textContent === '1');
    const r = tick.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: svg.getBoundingClientRect().y + 80 };
  });
  await page.mouse.move(box.x, box.y);
  await nextFrames(page);
  const hovered = await p.evaluate((el) => el.readout.x);
  assert.ok(Math.abs(hovered - 1) < 0.03, `hover at the x = 1 tick reads x = ${hovered}`);
  const relu1 = await p.evaluate((el) => el.shadowRoot.querySelector('tr[data-curve="relu"] td').textContent);
  assert.equal(Number(relu1), Math.fround(hovered) > 0 ? Number(hovered.toFixed(4)) : 0);
  await p.evaluate((el) => {
    el.x = -0.752;
  });
  // A note may be set on two lines (one tspan each) where the plot is narrow.
  const notes = await p.evaluate((el) =>
    [...el.shadowRoot.querySelectorAll('text.note')].map((t) => [...t.childNodes].map((n) => n.textContent).join(' ')),
  );
  assert.ok(
    notes.some((t) => /GELU min -0\.170 at (x = )?-0\.752/.test(t)),
    notes.join(' | '),
  );
  assert.ok(
    notes.some((t) => /SiLU min -0\.278 at (x = )?-1\.278/.test(t)),
    notes.join(' | '),
  );
  assert.ok(
    notes.some((t) => /tanh max 4\.7e-4/.test(t)),
    notes.join(' | '),
  );
  assert.ok(
    notes.some((t) => /sigmoid max 2\.0e-2/.test(t)),
    notes.join(' | '),
  );
  const peaks = await p.evaluate((el) => el.shadowRoot.querySelector('[data-peaks]').textContent);
  assert.match(peaks, /tanh form 4\.7\de-4 at x = -?2\.\d\d, sigmoid form 2\.0\de-2 at x = -?2\.\d\d/);
});

/** WCAG relative luminance contrast of two #rrggbb colours. */
function contrast(a, b) {
  const lum = (hex) => {
    const [r, g, bl] = [1, 3, 5]
      .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
  return (x + 0.05) / (y + 0.05);
}

test('default colours meet 4.5:1 for text and 3:1 for marks, in light and dark', { skip }, async () => {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const id of ['#memory', '#plot', '#calc']) {
      const v = await page.$eval(id, (el) => {
        const cs = getComputedStyle(el);
        const out = {};
        for (const n of ['fg', 'muted', 'bg', 'surface', 'accent', 'fire', 'leak', 'focus', 'border'])
          out[n] = cs.getPropertyValue(`--_${n}`).trim();
        return out;
      });
      for (const [fg, bg] of [
        ['fg', 'bg'],
        ['muted', 'bg'],
        ['fg', 'surface'],
        ['muted', 'surface'],
        ['accent', 'bg'],
        ['fire', 'bg'],
        ['accent', 'surface'],
        ['fire', 'surface'],
      ]) {
        const c = contrast(v[fg], v[bg]);
        assert.ok(c >= 4.5, `${scheme} ${id}: ${fg} ${v[fg]} on ${bg} ${v[bg]} has contrast ${c.toFixed(2)}`);
      }
      for (const [fg, bg] of [
        ['leak', 'bg'],
        ['leak', 'surface'],
        ['focus', 'bg'],
        ['border', 'bg'],
      ]) {
        const c = contrast(v[fg], v[bg]);
        assert.ok(c >= 3, `${scheme} ${id}: ${fg} ${v[fg]} on ${bg} ${v[bg]} has contrast ${c.toFixed(2)}`);
      }
    }
    const curves = await page.$eval('#plot', (el) =>
      [...el.shadowRoot.querySelectorAll('polyline.curve')].map((c) => getComputedStyle(c).stroke),
    );
    const surface = await page.$eval('#plot', (el) => getComputedStyle(el).getPropertyValue('--_surface').trim());
    for (const rgb of new Set(curves)) {
      const hex =
        '#' +
        rgb
          .match(/\d+/g)
          .slice(0, 3)
          .map((n) => Number(n).toString(16).padStart(2, '0'))
          .join('');
      assert.ok(
        contrast(hex, surface) >= 3,
        `${scheme}: curve ${hex} on ${surface}: ${contrast(hex, surface).toFixed(2)}`,
      );
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('state round-trips through attributes and the URL hash; reduced motion jumps', { skip }, async () => {
  const w = await page.$('#memory');
  await w.evaluate((el) => {
    el.activation = 'gelu';
    el.threshold = 1.2;
    el.k = 2;
    el.query = [0.4, 0.3];
  });
  await nextFrames(page);
  const attrs = await w.evaluate((el) =>
    Object.fromEntries(['query', 'k', 'threshold', 'activation'].map((n) => [n, el.getAttribute(n)])),
  );
  assert.deepEqual(attrs, { query: '0.400,0.300', k: '2', threshold: '1.2', activation: 'gelu' });
  const before = await w.evaluate((el) => Array.from(el.result.coef));
  // A fresh element built from those attributes computes the same thing.
  const copy = await page.evaluate(async (a) => {
    const el = document.createElement('ffn-memory-widget');
    for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
    document.body.append(el);
    await new Promise((r) => el.addEventListener('ffn-change', r, { once: true }));
    const out = { coef: Array.from(el.result.coef), k: el.result.k, act: el.result.activation };
    el.remove();
    return out;
  }, attrs);
  assert.deepEqual(copy, { coef: before, k: 2, act: 'gelu' });
  await w.evaluate((el) => {
    el.activation = 'relu';
    el.removeAttribute('threshold');
    el.k = 3;
  });
  // Moving the elements in the DOM keeps them working (no second load, plot still resizes).
  const moved = await page.evaluate(async () => {
    const w = document.querySelector('#memory'),
      plot = document.querySelector('#plot');
    const hostW = w.parentNode,
      hostP = plot.parentNode;
    const box = document.createElement('div');
    box.style.width = '420px';
    document.body.append(box);
    box.append(w, plot);
    await new Promise((r) => setTimeout(r, 100));
    w.selectToken('Rome', { animate: false });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const out = {
      decoded: w.result.decoded.token,
      loading: w.shadowRoot.querySelectorAll('p.loading').length,
      svgWidth: plot.shadowRoot.querySelector('svg.plot').getAttribute('width'),
    };
    hostW.prepend(w);
    hostP.prepend(plot);
    box.remove();
    w.selectToken('Tokyo', { animate: false });
    return out;
  });
  assert.equal(moved.decoded, 'Italy');
  assert.equal(moved.loading, 0);
  assert.ok(Number(moved.svgWidth) < 420, `the plot redraws for its new width, got ${moved.svgWidth}`);

  const p = await openPage('/web/embed/memory-widget.html', { width: 600, height: 900 });
  await p.emulateMedia({ reducedMotion: 'reduce' });
  await waitReady(p, 'ffn-memory-widget');
  await p.$eval('ffn-memory-widget', (el) => el.setAttribute('sync-hash', 'mem'));
  await p.click('button[data-token="Rome"]');
  // With reduced motion the query lands on Rome at once (no glide).
  const q = await p.$eval('ffn-memory-widget', (el) => el.getAttribute('query'));
  assert.equal(q, '0.866,-0.500');
  await p.waitForFunction(() => location.hash.includes('mem='), null, { timeout: 3000 });
  const hash = await p.evaluate(() => location.hash);
  assert.match(decodeURIComponent(hash), /mem=q:0\.866,-0\.500;k:3;t:0\.5;a:relu/);
  // A link carrying that hash restores the state.
  await p.goto(base + '/web/embed/memory-widget.html?sync-hash=mem#mem=q:-0.866,-0.500;k:1;t:1.2;a:silu');
  await waitReady(p, 'ffn-memory-widget');
  await p.waitForFunction(() => document.querySelector('ffn-memory-widget').result.activation === 'silu', null, {
    timeout: 3000,
  });
  const r = await p.$eval('ffn-memory-widget', (el) => ({
    q: el.query,
    k: el.result.k,
    t: el.threshold,
    fires: el.result.fires,
    decoded: el.result.decoded.token,
  }));
  assert.deepEqual(r, { q: [-0.866, -0.5], k: 1, t: 1.2, fires: [1], decoded: 'France' });
  await p.close();
});

test('screenshots of each component, light and dark (tests/artifacts/)', { skip }, async () => {
  const w = await page.$('#memory');
  await w.evaluate((el) => {
    el.activation = 'silu';
    el.selectToken('the', { animate: false });
  });
  await nextFrames(page);
  await w.screenshot({ path: join(ARTIFACTS, 'memory-widget-silu-leaks.png') });
  await w.evaluate((el) => {
    el.activation = 'relu';
    el.selectToken('Tokyo', { animate: false });
  });
  await nextFrames(page);
  for (const [id, name] of [
    ['#memory', 'memory-widget'],
    ['#plot', 'activation-plot'],
    ['#calc', 'param-calculator'],
  ]) {
    await (await page.$(id)).screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'dark' });
  await nextFrames(page);
  await (await page.$('#memory')).screenshot({ path: join(ARTIFACTS, 'memory-widget-dark.png') });
  await (await page.$('#plot')).screenshot({ path: join(ARTIFACTS, 'activation-plot-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
});

test('at 360 px the page has no horizontal scroll', { skip }, async () => {
  const p = await openPage('/web/', { width: 360, height: 740 });
  await waitReady(p, '#memory');
  await waitReady(p, '#calc');
  await waitReady(p, '#plot', 'readout');
  await nextFrames(p);
  const { sw, cw } = await p.evaluate(() => ({
    sw: document.documentElement.scrollWidth,
    cw: document.documentElement.clientWidth,
  }));
  assert.ok(sw <= cw, `scrollWidth ${sw} > clientWidth ${cw}`);
  await p.screenshot({ path: join(ARTIFACTS, 'page-360.png'), fullPage: false });
  await (await p.$('#memory')).screenshot({ path: join(ARTIFACTS, 'memory-widget-360.png') });
  await p.close();
});

test('each embed page loads its component and takes attributes from the URL', { skip }, async () => {
  const p = await openPage('/web/embed/memory-widget.html?token=the&activation=gelu', { width: 480, height: 800 });
  await waitReady(p, 'ffn-memory-widget');
  const r = await p.$eval('ffn-memory-widget', (el) => ({
    act: el.result.activation,
    fires: el.result.fires.length,
    decoded: el.result.decoded.token,
  }));
  assert.deepEqual(r, { act: 'gelu', fires: 0, decoded: null });
  // Author facts from the URL, then through the property; a malformed one is reported, not fatal.
  await p.goto(
    base +
      '/web/embed/memory-widget.html?facts=' +
      encodeURIComponent('Berlin>Germany, ' + 'Madrid>Spain@0.8, Lisbon>Portugal, Oslo>Norway') +
      '&token=Oslo',
  );
  await waitReady(p, 'ffn-memory-widget');
  await p.waitForFunction(() => document.querySelector('ffn-memory-widget').result?.decoded.token === 'Norway', null, {
    timeout: 5000,
  });
  assert.deepEqual(await p.$eval('ffn-memory-widget', (el) => el.result.fires), [3]);
  assert.equal(await p.$$eval('ffn-memory-widget >> tbody tr', (rows) => rows.length), 4);
  await p.$eval('ffn-memory-widget', (el) => {
    el.facts = [
      { key: 'Cairo', value: 'Egypt' },
      { key: 'Lima', value: 'Peru' },
    ];
    el.selectToken('Lima', { animate: false });
  });
  await p.waitForFunction(() => document.querySelector('ffn-memory-widget').result?.decoded.token === 'Peru', null, {
    timeout: 5000,
  });
  await p.$eval('ffn-memory-widget', (el) => el.setAttribute('facts', 'Cairo-Egypt'));
  const alert = await p.$eval('ffn-memory-widget', (el) => el.shadowRoot.querySelector('[role="alert"]')?.textContent);
  assert.match(alert, /ffn-memory-widget: parseFacts: fact 0 "Cairo-Egypt" should look like "Tokyo>Japan"/);
  assert.equal(await p.$eval('ffn-memory-widget', (el) => el.result.decoded.token), 'Peru');
  await p.goto(base + '/web/embed/param-calculator.html?preset=llama2_70b');
  await waitReady(p, 'ffn-param-calculator');
  assert.equal(await p.$eval('ffn-param-calculator', (el) => el.result.dff), 28672);
  await p.$eval('ffn-param-calculator', (el) => el.setAttribute('preset', 'gpt5'));
  assert.match(
    await p.$eval('ffn-param-calculator', (el) => el.shadowRoot.querySelector('[role="alert"]').textContent),
    /unknown preset "gpt5"/,
  );
  assert.equal(await p.$eval('ffn-param-calculator', (el) => el.result.dff), 28672);
  await p.goto(base + '/web/embed/activation-plot.html?x=-1.278');
  await waitReady(p, 'ffn-activation-plot', 'readout');
  const silu = await p.$eval('ffn-activation-plot', (el) => el.readout.rows.find((row) => row.id === 'silu').y);
  assert.ok(Math.abs(silu + 0.2785) < 5e-4, `SiLU(-1.278) = ${silu}`);
  await p.$eval('ffn-activation-plot', (el) => el.setAttribute('range', '3,1'));
  assert.match(
    await p.$eval('ffn-activation-plot', (el) => el.shadowRoot.querySelector('[role="alert"]').textContent),
    /range must be "lo,hi" with lo < hi/,
  );
  await p.$eval('ffn-activation-plot', (el) => {
    el.setAttribute('range', '-2,2');
    el.setAttribute('x', '0.5');
  });
  await p.waitForFunction(() => document.querySelector('ffn-activation-plot').readout.x === 0.5, null, {
    timeout: 3000,
  });
  await p.close();
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});
