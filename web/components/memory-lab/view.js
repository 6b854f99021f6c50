// The memory lab's view: builds and redraws its sections from the session's numbers (draws only: no math, no input).
import { htmlEl as h, svgEl } from '../../element-base.js';
import { COUNTRY_RELATIONS } from './facts.js';
import { DFF_CHOICES, SEED_MAX } from './attributes.js';

export const css = `
section { border-top: 1px solid var(--_grid); padding-top: 8px; margin-top: 10px; contain: content; }
h3 { font-size: 1em; margin: 0 0 6px; }
.status { margin: 6px 0; }
input[type="search"] { width: 16em; max-width: 100%; padding: 2px 6px; }
select.facts { width: 100%; max-width: 36em; display: block; margin-top: 6px; }
svg.curve, svg.capacity { display: block; width: 100%; max-width: 640px; height: auto; margin-top: 6px; }
.frame { fill: var(--_surface); }
.loss { fill: none; stroke: var(--_accent); stroke-width: 2; }
.acc { fill: none; stroke: var(--_fire); stroke-width: 2; stroke-dasharray: 6 3; }
.cap { fill: var(--_accent); }
.key { display: inline-block; width: 22px; height: 0; border-top: 2px solid var(--_accent); vertical-align: middle; }
.key.acc-key { border-top: 2px dashed var(--_fire); }
table { border-collapse: collapse; margin-top: 6px; font-size: 0.9em; width: 100%; max-width: 40em; }
caption { text-align: left; color: var(--_muted); font-size: 0.95em; margin-bottom: 4px; }
th, td { padding: 3px 6px; border-bottom: 1px solid var(--_grid); text-align: left; vertical-align: top; }
td.num { text-align: right; font-family: var(--_mono); white-space: nowrap; }
.bar { display: inline-block; height: 10px; background: var(--_fire); vertical-align: middle; margin-right: 6px; }
td button { min-height: 28px; padding: 1px 8px; }
ol { margin: 4px 0 6px; padding-left: 1.6em; }
.edit-row { margin-top: 6px; }
.good { color: var(--_fg); font-weight: 600; }
p, li, td, th, label { overflow-wrap: anywhere; }
`;

/** A relation's name: the built-in ones translated, an author's as written. */
export function relationName(t, relation) {
  return COUNTRY_RELATIONS.includes(relation) ? t(`relation.${relation}`) : relation;
}

/** "Japan · capital → Tokyo" for fact f of idx (object: another object id, for an edit). */
export function factLabel(t, idx, f, object = idx.triples[3 * f + 2]) {
  const fact = idx.facts[f];
  return t('fact', { subject: fact.subject, relation: relationName(t, fact.relation), object: idx.objects[object] });
}

const button = (text, props = {}) => h('button', { type: 'button', ...props }, text);

/** Section 1: the training controls, the status line and the curve. Returns the parts the element updates. */
export function trainSection(t, tr, { seed, dff }) {
  const parts = {
    train: button(t('train'), { 'aria-pressed': 'false', class: 'train' }),
    step: button(t('step'), { class: 'one-step' }),
    reset: button(t('reset'), { class: 'reset' }),
    seed: h('input', {
      type: 'number',
      min: '1',
      max: String(SEED_MAX),
      step: '1',
      value: String(seed),
      class: 'seed',
    }),
    dff: h('select', { class: 'dff' }, ...DFF_CHOICES.map((n) => h('option', { value: String(n), text: tr.int(n) }))),
    status: h('p', { class: 'status num', role: 'status' }),
    curve: svgEl('svg', { class: 'curve', viewBox: '0 0 640 150', role: 'img', 'aria-label': t('curve') }),
  };
  parts.dff.value = String(dff);
  const legend = h(
    'p',
    { class: 'muted legend' },
    h('span', { class: 'key', 'aria-hidden': 'true' }),
    ` ${t('curveLoss')}   `,
    h('span', { class: 'key acc-key', 'aria-hidden': 'true' }),
    ` ${t('curveAcc')}`,
  );
  parts.el = h(
    'section',
    { 'aria-labelledby': 'lab-h-train' },
    h('h3', { id: 'lab-h-train', text: t('trainHeading') }),
    h(
      'div',
      { class: 'row', role: 'group', 'aria-label': t('controls') },
      parts.train,
      parts.step,
      parts.reset,
      h('label', {}, t('seed'), parts.seed),
      h('label', {}, t('dff'), parts.dff),
    ),
    parts.status,
    parts.curve,
    legend,
  );
  return parts;
}

/** Redraw the curve: loss (scaled to its first value) and the share stored, against the step. */
export function drawCurve(svg, history) {
  svg.replaceChildren();
  const W = 640;
  const H = 150;
  svgEl('rect', { class: 'frame', x: 0, y: 0, width: W, height: H }, svg);
  if (!history.length) return;
  const n = Math.max(history.length, 20);
  const maxLoss = Math.max(...history.map((p) => (Number.isFinite(p.loss) ? p.loss : 0)), 1e-9);
  const x = (k) => 6 + ((W - 12) * k) / Math.max(1, n - 1);
  const y = (v) => H - 6 - (H - 12) * Math.max(0, Math.min(1, v));
  const every = Math.max(1, Math.ceil(history.length / 320));
  const pick = history.filter((_, k) => k % every === 0 || k === history.length - 1);
  const pts = (f) => pick.map((p) => `${x(p.step - history[0].step).toFixed(1)},${y(f(p)).toFixed(1)}`).join(' ');
  svgEl('polyline', { class: 'loss', points: pts((p) => (Number.isFinite(p.loss) ? p.loss / maxLoss : 1)) }, svg);
  svgEl('polyline', { class: 'acc', points: pts((p) => p.accuracy) }, svg);
}

/** Section 2: the fact finder (search box and list) and the places of the reading and of one memory. */
export function inspectSection(t) {
  const parts = {
    search: h('input', { type: 'search', class: 'search', autocomplete: 'off', spellcheck: 'false' }),
    list: h('select', { class: 'facts', size: '6' }),
    listLabel: h('label', { class: 'muted', id: 'lab-list-label' }),
    reading: h('div', { class: 'reading' }),
    memory: h('div', { class: 'memory' }),
  };
  parts.list.setAttribute('aria-labelledby', 'lab-list-label');
  parts.el = h(
    'section',
    { 'aria-labelledby': 'lab-h-inspect' },
    h('h3', { id: 'lab-h-inspect', text: t('inspectHeading') }),
    h('label', {}, t('search'), parts.search),
    h('div', {}, parts.listLabel, parts.list),
    parts.reading,
    parts.memory,
  );
  return parts;
}

/** The list's options: the facts whose label contains the search text (at most `max`), all now. */
export function fillList(t, tr, parts, idx, query, selected, max = idx.facts.length) {
  for (let step = fillListSteps(t, tr, parts, idx, query, selected, max, false); step;) step = step();
}

/** Options laid out per step of the first drawing: a list of a thousand facts costs tens of ms of layout at once. */
export const LIST_CHUNK = 150;

/**
 * The list's options in steps: the first LIST_CHUNK facts now, each laid out in its own step (read back, so that
 * the layout falls in that step's task, unless `layoutEach` is false); returns the next step, or null once whole.
 */
export function fillListSteps(t, tr, parts, idx, query, selected, max = idx.facts.length, layoutEach = true) {
  const q = query.trim().toLowerCase();
  let f = 0;
  let shown = 0;
  parts.list.replaceChildren();
  const step = () => {
    const opts = [];
    const end = Math.min(idx.facts.length, f + LIST_CHUNK);
    for (; f < end && shown + opts.length < max; f++) {
      const label = factLabel(t, idx, f);
      if (q && !label.toLowerCase().includes(q)) continue;
      opts.push(h('option', { value: String(f), text: label }));
    }
    shown += opts.length;
    parts.list.append(...opts);
    if (selected !== null && opts.some((o) => o.value === String(selected))) parts.list.value = String(selected);
    parts.listLabel.textContent = shown ? t('list', { n: tr.int(shown) }) : t('noMatch');
    if (f >= idx.facts.length || shown >= max) return null;
    if (layoutEach) void parts.list.scrollHeight; // this chunk's layout now, in this task
    return step;
  };
  return step();
}

/** How many memories the reading lists by name; the others firing are summed in one row. */
export const SHOWN_MEMORIES = 8;

/** An activation bar of w pixels (set through the CSSOM: a style attribute would need 'unsafe-inline'). */
function bar(w) {
  const el = h('span', { class: 'bar' });
  el.style.width = `${w}px`;
  return el;
}

/** The reading of one fact (session.inspect's result): the answer, the memories firing, and the sum. */
export function drawReading(t, tr, box, idx, r, dff) {
  const obj = idx.objects[r.object];
  const answer =
    r.predicted === r.object
      ? t('answer', { object: obj, p: tr.fixed(r.pObject, 3) })
      : t('answerWrong', { object: idx.objects[r.predicted], expected: obj, p: tr.fixed(r.pObject, 3) });
  const shown = r.memories.slice(0, SHOWN_MEMORIES);
  const rest = r.memories.slice(SHOWN_MEMORIES);
  const top = Math.max(1e-9, ...shown.map((m) => m.activation));
  const row = (first, a, c) =>
    h('tr', {}, h('th', { scope: 'row' }, first), h('td', { class: 'num' }, a), h('td', { class: 'num' }, c));
  const rows = shown.map((m) =>
    row(
      button(t('memory', { i: tr.int(m.memory) }), { class: 'mem', 'data-memory': String(m.memory) }),
      [bar(Math.round((60 * m.activation) / top)), tr.fixed(m.activation, 3)],
      tr.fixed(m.contribution, 3),
    ),
  );
  if (rest.length) {
    rows.push(
      row(
        t('rest', { n: tr.int(rest.length) }),
        '',
        tr.fixed(
          rest.reduce((s, m) => s + m.contribution, 0),
          3,
        ),
      ),
    );
  }
  rows.push(row(t('residual'), '', tr.fixed(r.residual, 3)));
  const head = h(
    'tr',
    {},
    ...['colMemory', 'colActivation', 'colContribution'].map((k) => h('th', { scope: 'col', text: t(k) })),
  );
  box.replaceChildren(
    h('p', { class: 'answer', text: answer }),
    h('p', { text: t('firing', { k: tr.int(r.memories.length), dff: tr.int(dff), object: obj }) }),
    h(
      'table',
      { class: 'memories' },
      h('caption', { text: t('tableCaption', { fact: factLabel(t, idx, r.fact), object: obj }) }),
      h('thead', {}, head),
      h('tbody', {}, ...rows),
    ),
    h('p', { class: 'sum num', text: t('sum', { sum: tr.fixed(r.sum, 3), logit: tr.fixed(r.logit, 3), object: obj }) }),
  );
}

/** One memory (session.memory's result): the objects its value promotes, its top triggers, how widely it fires. */
export function drawMemory(t, tr, box, idx, i, m, stats) {
  box.replaceChildren(
    h('h4', { text: t('memoryHeading', { i: tr.int(i) }) }),
    h('p', { text: t('promotes') }),
    h(
      'ol',
      { class: 'promotes' },
      ...m.promotes.map((p) => h('li', {}, `${idx.objects[p.object]} (${tr.fixed(p.score, 2)})`)),
    ),
    h('p', { text: t('triggers') }),
    h('ol', { class: 'triggers' }, ...m.triggers.map((g) => h('li', {}, factLabel(t, idx, g.fact)))),
    h('p', {
      class: 'use',
      text: t('use', { fires: tr.int(m.use.fires), n: tr.int(idx.facts.length), helps: tr.int(m.use.helps) }),
    }),
    h('p', {
      class: 'muted sharing',
      text: t('sharing', { mean: tr.fixed(stats.meanPerFact, 1), silent: tr.int(stats.silent) }),
    }),
  );
}

/** Section 3: capacity, its measure button, plot and table. */
export function capacitySection(t) {
  const parts = {
    measure: button(t('measure'), { class: 'measure', 'aria-pressed': 'false' }),
    plot: svgEl('svg', { class: 'capacity', viewBox: '0 0 640 120', 'aria-hidden': 'true' }),
    table: h('div', { class: 'cap-table' }),
  };
  parts.el = h(
    'section',
    { 'aria-labelledby': 'lab-h-capacity' },
    h('h3', { id: 'lab-h-capacity', text: t('capacityHeading') }),
    h('p', { text: t('capacityText') }),
    parts.measure,
    parts.plot,
    parts.table,
  );
  return parts;
}

/** The capacity plot (bars of the share stored per d_ff) and its table. */
export function drawCapacity(t, tr, parts, results, sizes, steps) {
  const svg = parts.plot;
  svg.replaceChildren();
  svgEl('rect', { class: 'frame', x: 0, y: 0, width: 640, height: 120 }, svg);
  const w = 640 / sizes.length;
  for (const p of results) {
    const k = sizes.indexOf(p.dff);
    const hh = (110 * p.stored) / p.n;
    svgEl('rect', { class: 'cap', x: k * w + w * 0.2, y: 115 - hh, width: w * 0.6, height: hh }, svg);
  }
  if (!results.length) {
    parts.table.replaceChildren(h('p', { class: 'muted', text: t('capacityNone') }));
    return;
  }
  const row = (p) => h('tr', {}, h('td', { class: 'num' }, tr.int(p.dff)), h('td', { class: 'num' }, tr.int(p.stored)));
  parts.table.replaceChildren(
    h(
      'table',
      {},
      h('caption', { text: t('capacityPlot', { steps: tr.int(steps) }) }),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col', text: 'd_ff' }), h('th', { scope: 'col', text: t('colStored') })),
      ),
      h('tbody', {}, ...results.map(row)),
    ),
  );
}

/** Section 4: the fact to edit, its new object, the two methods, Undo, and the results side by side. */
export function editSection(t) {
  const parts = {
    fact: h('p', { class: 'edit-fact' }),
    object: h('select', { class: 'new-object' }),
    rankOne: button(t('rankOne'), { class: 'rank-one' }),
    fineTune: button(t('fineTune'), { class: 'fine-tune' }),
    undo: button(t('undo'), { class: 'undo' }),
    results: h('div', { class: 'results' }),
    status: h('p', { class: 'edit-status', role: 'status' }),
  };
  parts.el = h(
    'section',
    { 'aria-labelledby': 'lab-h-edit' },
    h('h3', { id: 'lab-h-edit', text: t('editHeading') }),
    parts.fact,
    h('div', { class: 'row edit-row' }, h('label', {}, t('newObject'), parts.object)),
    h('div', { class: 'row edit-row' }, parts.rankOne, parts.fineTune, parts.undo),
    parts.results,
    parts.status,
  );
  return parts;
}

/** The two methods' outcomes side by side (session.edits). */
export function drawEdits(t, tr, box, idx, edits) {
  const methods = ['rankOne', 'fineTune'].filter((m) => edits[m]);
  if (!methods.length) {
    box.replaceChildren();
    return;
  }
  const cell = (fn) => methods.map((m) => h('td', {}, fn(edits[m])));
  const neighbours = (e) =>
    e.neighbours.map((n) => {
      const rel = relationName(t, idx.facts[n.fact].relation);
      const key = n.after === n.before ? 'relKept' : 'relLost';
      return h('div', { text: t(key, { relation: rel, object: idx.objects[n.after] }) });
    });
  const row = (key, fn) => h('tr', {}, h('th', { scope: 'row', text: t(key) }), ...cell(fn));
  box.replaceChildren(
    h(
      'table',
      { class: 'edits' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col', text: t('method') }),
          ...methods.map((m) => h('th', { scope: 'col', text: t(m) })),
        ),
      ),
      h(
        'tbody',
        {},
        row('efficacy', (e) => t('now', { object: idx.objects[e.predicted] })),
        row('specificity', (e) => t('kept', { k: tr.int(e.kept), n: tr.int(e.of) })),
        row('neighbours', neighbours),
        row('steps', (e) => tr.int(e.steps)),
      ),
    ),
  );
}
