// The interface language in Chromium: a French page shows no English in any of the four elements, in any state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';
import { collectShownText, findEnglish } from '../helpers/english.js';
import { variantSources } from '../helpers/sandbox-variants.js';

let page;
const pageErrors = [];
const served = servedBrowser(async () => {
  page = await served.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(new URL('tests/fixtures/i18n.html', served.url).href);
  await page.waitForFunction(() => window.__ready === true);
  await page.waitForFunction(() =>
    ['#mem', '#plot', '#calc'].every((s) => document.querySelector(s).result ?? document.querySelector(s).readout),
  );
});
const { skip } = served;

/** Every text the elements matching `selector` show now, and the English found in it. */
async function english(selector) {
  const texts = await page.evaluate(collectShownText, selector);
  return { texts, found: findEnglish(texts) };
}

/** Check a state: enough text was collected (the check cannot pass on an empty element), and none is English. */
async function noEnglish(what, selector, mustShow, code = []) {
  const { texts, found: seen } = await english(selector);
  // identifiers of the exercise (result keys such as partial) are code in every language
  const found = seen.filter((f) => !code.some((c) => f.startsWith(`word "${c}" in`)));
  const all = texts.join('\n').replace(/[\u00a0\u202f]/g, ' '); // French spacing: no-break spaces
  for (const s of mustShow)
    assert.ok(all.includes(s), `${what}: expected to see ${JSON.stringify(s)} in:\n${all.slice(0, 2000)}`);
  assert.deepEqual(found, [], `${what}: English left:\n${found.join('\n')}`);
  return texts;
}

const shadow = (sel, inner) =>
  page.evaluate(
    ([s, i]) => {
      const el = document.querySelector(s).shadowRoot.querySelector(i);
      return el ? el.textContent : null;
    },
    [sel, inner],
  );

test(
  'browser, French page: the memory widget shows no English, whatever fires, leaks or is refused',
  { skip: skip || false },
  async () => {
    await noEnglish('memory widget, on a key token', '#mem', ['La mémoire de Tokyo s’active', 'Japon', 'seuil']);
    // GELU between two keys: memories leak; then a query where nothing fires
    const live = (re) =>
      page.waitForFunction(
        (src) => new RegExp(src).test(document.querySelector('#mem').shadowRoot.querySelector('.live').textContent),
        re.source,
        { timeout: 5000 },
      );
    await page.evaluate(() => {
      const m = document.querySelector('#mem');
      m.activation = 'gelu';
      m.query = [0.05, 0.1];
    });
    await live(/^Aucune mémoire ne s’active, mais 3 mémoires fuient/);
    await noEnglish('memory widget, leaking through GELU', '#mem', ['Aucune mémoire ne s’active', 'fuit']);
    await page.evaluate(() => {
      const m = document.querySelector('#mem');
      m.activation = 'relu';
      m.query = [0, 0];
    });
    await live(/rien n’est écrit/);
    await noEnglish('memory widget, nothing fires', '#mem', ['rien n’est écrit', 'muette']);
    // numbers in the French way: a decimal comma, and vectors separated by a semicolon
    assert.match(await shadow('#mem', '.out p'), /\(0,00\u202f; 0,00\)/);
    // refused attributes, shown in the element in French
    await page.evaluate(() => {
      const m = document.querySelector('#mem');
      m.setAttribute('facts', 'Tokyo');
      m.setAttribute('threshold', 'beaucoup');
      m.setAttribute('token', 'Atlantide');
    });
    await page.waitForFunction(
      () => document.querySelector('#mem').shadowRoot.querySelector('.error')?.children.length >= 2,
    );
    const shown = await noEnglish('memory widget, refused attributes', '#mem', [
      'doit s’écrire comme',
      'doit être un nombre',
    ]);
    assert.ok(shown.some((t) => t.startsWith('ffn-memory-widget: ')));
    await page.evaluate(() => {
      for (const a of ['facts', 'threshold', 'token']) document.querySelector('#mem').removeAttribute(a);
    });
  },
);

test(
  'browser, French page: the activation plot and the parameter calculator show no English, dense, MoE or refused',
  { skip: skip || false },
  async () => {
    await noEnglish('activation plot', '#plot', ['Les activations, leurs pentes', 'ReLU au carré', 'GELU : min.']);
    assert.match(await shadow('#plot', '.readx'), /^En x = -0,752$/);
    await page.evaluate(() => document.querySelector('#plot').setAttribute('range', 'tout'));
    await page.waitForFunction(() => document.querySelector('#plot').shadowRoot.querySelector('.error'));
    await noEnglish('activation plot, refused range', '#plot', ['range doit s’écrire']);
    await page.evaluate(() => document.querySelector('#plot').removeAttribute('range'));

    await noEnglish('calculator, MoE preset', '#calc', [
      'Préréglages',
      'MoE : paramètres du FFN au total',
      'experts partagés',
    ]);
    await page.evaluate(() => document.querySelector('#calc').applyPreset('gpt2'));
    await page.waitForFunction(() => document.querySelector('#calc').result?.ffnParams === 4722432);
    // grouped the French way (narrow no-break spaces): GPT-2 small's 4,722,432 parameters per layer
    assert.equal(await shadow('#calc', '[data-out="ffnParams"]'), '4\u202f722\u202f432');
    await noEnglish('calculator, dense preset', '#calc', ['paramètres du FFN par couche', '2 par poids']);
    await page.evaluate(() => {
      const c = document.querySelector('#calc');
      c.setAttribute('d', '0');
      c.setAttribute('preset', 'inconnu');
    });
    await page.waitForFunction(
      () => document.querySelector('#calc').shadowRoot.querySelector('.error')?.children.length >= 2,
    );
    await noEnglish('calculator, refused attributes', '#calc', ['préréglage inconnu', 'doit être compris entre']);
    await page.evaluate(() => {
      const c = document.querySelector('#calc');
      c.removeAttribute('preset');
      c.setAttribute('d', '768');
    });
  },
);

test(
  'browser, French page: <ffn-exercise> shows no English: idle, hints, progress, confirmation, running, setup problem',
  { skip: skip || false },
  async () => {
    const sel = '#slot ffn-exercise';
    await page.evaluate(() => window.__mount({ storageKey: 'i18n-test' }));
    await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector('button.run'), sel);
    await noEnglish('exercise, idle', sel, [
      'Lancer les tests',
      'Indice (1 sur 2)',
      'Votre progression',
      'Disponibles dans votre code',
    ]);
    // a hint, the progress panel with its export, the solution's confirmation
    await page.evaluate((s) => {
      const r = document.querySelector(s).shadowRoot;
      r.querySelector('[part~="hint-button"]').click();
      r.querySelector('[part~="hint-button"]').click();
      r.querySelector('details.progress').open = true;
      r.querySelector('[part~="export-button"]').click();
      r.querySelector('[part~="solution-button"]').click();
    }, sel);
    await noEnglish('exercise, hint, progress and confirmation open', sel, [
      'Plus d’autre indice',
      'Copiez ce texte',
      'Afficher la solution de référence avant',
    ]);
    // running: an endless loop, seen while it runs, then stopped
    await page.evaluate((s) => {
      const e = document.querySelector(s);
      e.timeout = 60000;
      e.code = 'function reluCarre(x) {\n  while (true) {}\n}\n';
      e.run();
    }, sel);
    await page.waitForFunction(
      (s) => !document.querySelector(s).shadowRoot.querySelector('[part~="stop-button"]').hidden,
      sel,
    );
    await noEnglish('exercise, running', sel, ['Exécution…', 'Exécution des tests cachés…', 'Arrêter']);
    await page.evaluate(
      (s) => document.querySelector(s).shadowRoot.querySelector('[part~="stop-button"]').click(),
      sel,
    );
    await page.waitForFunction((s) => !document.querySelector(s).shadowRoot.querySelector('button.run').disabled, sel);
    await page.evaluate(() => document.getElementById('slot').replaceChildren());

    // a setup problem: the kernels do not load (here: an API whose ready() fails as a 404 would)
    await page.evaluate(() =>
      window.__mount({
        storageKey: 'i18n-test-setup',
        api: {
          ready: () =>
            Promise.reject(new Error('could not load the wasm module from http://127.0.0.1/web/ffn.wasm (HTTP 404)')),
        },
      }),
    );
    await page.waitForFunction(
      (s) => document.querySelector(s)?.shadowRoot.querySelector('[part~="setup-problem"]'),
      sel,
    );
    const texts = await noEnglish('exercise, setup problem', sel, [
      'Problème d’installation (votre code n’y est pour rien)',
      'À faire : servez ce fichier',
    ]);
    assert.ok(texts.length > 20, 'the check read the whole element');
    await page.evaluate(() => document.getElementById('slot').replaceChildren());
    assert.deepEqual(pageErrors, []);
  },
);

/**
 * Mount the page's exercise (window.__mount, progress under storageKey) and wait for its Run button. Resolves to
 * run(code, timeout = 5000): the code run to its report, as { status, summary, tests: [each test's message] }.
 */
async function mountExercise(sel, storageKey) {
  await page.evaluate((k) => window.__mount({ storageKey: k }), storageKey);
  await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector('button.run'), sel);
  return (code, timeout = 5000) =>
    page.evaluate(
      async ([s, c, ms]) => {
        const e = document.querySelector(s);
        Object.assign(e, { timeout: ms, code: c });
        const r = await e.run();
        return { status: r.status, summary: r.summary.text, tests: r.tests.map((t) => t.message?.text) };
      },
      [sel, code, timeout],
    );
}

test(
  'browser, French page: <ffn-exercise> verdicts in French: passed, failed, error, timeout, crashed, setup problem',
  { skip: skip || false, timeout: 120_000 },
  async () => {
    const sel = '#slot ffn-exercise';
    const run = await mountExercise(sel, 'i18n-test-verdicts');
    const fn = (body) => `function reluCarre(x) {\n${body}\n}\n`;

    // passed
    let r = await run(fn('  return map(x, (z) => (z > 0 ? z * z : 0));'));
    assert.equal(r.summary, 'All 3 tests passed.');
    await noEnglish('exercise, passed', sel, ['Les 3 tests sont réussis.', 'réussi', 'Bravo']);

    // failed, told by grading's own diagnosis (a constant factor) and first-mismatch lines, with a note that the
    // function changed its input in place
    r = await run(
      fn(
        '  for (let i = 0; i < x.data.length; i++) x.data[i] = x.data[i] > 0 ? 2 * x.data[i] ** 2 : 0;\n' +
          '  return x;',
      ),
    );
    assert.equal(r.status, 'done');
    assert.match(r.summary, /^0 of 3 tests passed\.$/);
    await noEnglish('exercise, failed: constant factor, mismatches, impure', sel, [
      '0 tests réussis sur 3.',
      'Décalé d’un facteur constant',
      'Vos valeurs sont 2 fois les valeurs attendues',
      'premier écart en [',
      'écart maximal',
      'modifie son argument x sur place',
    ]);

    // failed where no known mistake matches: a direction from what the failing inputs share; and a wrong shape
    await run(fn('  return map(x, (z) => (z > 0 ? (z < 1.5 ? z * z : z) : 0));'));
    await noEnglish('exercise, failed: a direction', sel, [
      'Aucune erreur connue ne correspond ; là où reluCarre se trompe',
      'Elle ne se trompe que pour des entrées supérieures ou égales à',
    ]);
    await run(fn('  return { data: Array.from(x.data, (z) => (z > 0 ? z * z : 0)), shape: [x.data.length, 1] };'));
    await noEnglish('exercise, failed: a wrong shape', sel, ['renvoie la forme [8,1], attendue : [8]']);

    // an error in the learner's code: thrown, then a syntax error (the engine's own message stays as it is)
    await run(fn('  throw new RangeError("non");'));
    await noEnglish('exercise, threw', sel, ['RangeError : non (ligne 2, colonne']);
    // a toolkit function refusing its input (it runs in the worker): said in French, the report's English as before
    r = await run(fn('  return transpose(reshape(x, [1, 1, -1]));'));
    assert.match(r.summary, /^0 of 3 tests passed\.$/);
    await noEnglish('exercise, a toolkit error', sel, [
      'RangeError : transpose : un tenseur à 2 dimensions était attendu, forme reçue : [1,1,',
    ]);
    r = await run(fn('  return (;'));
    assert.equal(r.status, 'error');
    const syntax = await shadow(sel, '.summary');
    assert.match(syntax.replace(/[\u00a0\u202f]/g, ' '), /^Votre code contient une erreur de syntaxe : /);

    // timeout
    r = await run(fn('  while (true) {}'), 1000);
    assert.equal(r.status, 'timeout');
    await noEnglish('exercise, timeout', sel, [
      'Votre code a tourné plus de 1 000 ms sur le test',
      'boucle infinie',
      'arrêté après 1 000 ms',
    ]);

    // crashed: the sandbox frame goes away in the middle of a run (as when a framework re-renders the page)
    await page.evaluate(
      ([s, c]) => {
        const e = document.querySelector(s);
        Object.assign(e, { timeout: 60000, code: c });
        window.__crashRun = e.run();
      },
      [sel, fn('  while (true) {}')],
    );
    await page.waitForFunction(
      (s) => !document.querySelector(s).shadowRoot.querySelector('[part~="stop-button"]').hidden,
      sel,
    );
    r = await page.evaluate(async () => {
      // every sandbox frame removed until the run ends: on a loaded machine the run's own frame may not exist yet
      // when the stop button shows (the previous run's frame was stopped; the next one is still being made)
      let rep = null;
      window.__crashRun.then((x) => (rep = x));
      for (const end = Date.now() + 20000; !rep && Date.now() < end;) {
        for (const f of document.querySelectorAll('iframe[sandbox]')) f.remove();
        await new Promise((ok) => setTimeout(ok, 50));
      }
      return rep ? { status: rep.status, summary: rep.summary.text } : { status: 'none', summary: 'no report in 20 s' };
    });
    assert.equal(r.status, 'crashed', r.summary);
    await noEnglish('exercise, crashed', sel, [
      'Le bac à sable s’est arrêté brutalement (le cadre du bac à sable a été retiré de la page)',
    ]);

    // a setup problem of the site: the sandbox frame file the page names is not there (the inline frame, which
    // holds the next run's worker, is taken out so that the next run opens the named file)
    await page.evaluate(() => {
      for (const f of document.querySelectorAll('iframe[sandbox]')) f.remove();
      const m = document.createElement('meta');
      m.name = 'ffn-lab-sandbox';
      m.content = '/nowhere/frame.html';
      document.head.append(m);
    });
    try {
      r = await run(fn('  return map(x, (z) => (z > 0 ? z * z : 0));'));
      assert.equal(r.status, 'setup', r.summary);
      // what happened and the fix are said in French; the URL, the file and the <meta> to write are code
      await noEnglish('exercise, the sandbox file is missing', sel, [
        'Problème d’installation (votre code n’y est pour rien)',
        'le cadre du bac à sable n’a pas démarré : ',
        ' a répondu HTTP 404 : le fichier est absent. Correctif : servez avec votre site une copie intacte de ',
        'et donnez son adresse dans la page : ',
      ]);
      const code = await page.evaluate((s) => {
        const c = document.querySelector(s).shadowRoot.querySelectorAll('[part~="setup-problem"] code');
        return Array.from(c, (x) => x.textContent);
      }, sel);
      assert.match(code[0], /^http:\/\/[^ ]+\/nowhere\/frame\.html$/);
      assert.deepEqual(code.slice(1), [
        'node_modules/ffn-lab/web/sandbox/run/frame.html',
        '<meta name="ffn-lab-sandbox" content="/path/to/frame.html">',
      ]);
      // the report keeps its English
      assert.match(r.summary, /\/nowhere\/frame\.html answered HTTP 404: the file is not there\. Fix: serve a copy/);
    } finally {
      await page.evaluate(() => document.querySelector('meta[name="ffn-lab-sandbox"]').remove());
    }
    await page.evaluate(() => document.getElementById('slot').replaceChildren());
    assert.deepEqual(pageErrors, []);
  },
);

test(
  'browser, French page: <ffn-exercise> says every text of a report from its key and params, never its English',
  { skip: skip || false, timeout: 120_000 },
  async () => {
    const sel = '#slot ffn-exercise';
    const run = await mountExercise(sel, 'i18n-test-texts');
    // failing tests with mismatches and a wrong shape, a constant-factor diagnosis and an in-place note
    const r = await run(
      'function reluCarre(x) {\n  for (let i = 0; i < x.data.length; i++) ' +
        'x.data[i] = x.data[i] > 0 ? 2 * x.data[i] ** 2 : 0;\n  return x;\n}\n',
    );
    assert.match(r.summary, /^0 of 3 tests passed\.$/);
    // the same report, the English of every text replaced by a marker, through JSON, drawn again
    const n = await page.evaluate(async (s) => {
      const e = document.querySelector(s);
      // (a text of no key, report.raw, is its text: the learner's or the author's words)
      const keyed = (t) => t && typeof t === 'object' && typeof t.key === 'string' && t.key !== 'report.raw';
      const mark = (t) => (keyed(t) ? { ...t, text: 'ENGLISH' } : t);
      const rep = JSON.parse(JSON.stringify(e.report));
      rep.summary = mark(rep.summary);
      rep.notes = rep.notes.map(mark);
      rep.tests = rep.tests.map((t) => ({ ...t, message: mark(t.message), problem: mark(t.problem) }));
      rep.diagnoses = rep.diagnoses.map((d) => ({ ...d, title: mark(d.title), message: mark(d.message) }));
      const { showReport } = await import('/web/sandbox/element/report-view.js');
      showReport(e, rep);
      return rep.tests.filter((t) => t.message).length + rep.notes.length + rep.diagnoses.length;
    }, sel);
    assert.ok(n >= 4, `${n} texts`);
    const texts = await noEnglish('exercise, a report drawn from its keys', sel, [
      '0 tests réussis sur 3.',
      'Vos valeurs sont 2 fois les valeurs attendues',
      'modifie son argument x sur place',
    ]);
    assert.ok(!texts.join('\n').includes('ENGLISH'), texts.join('\n').slice(0, 2000));
    await page.evaluate(() => document.getElementById('slot').replaceChildren());
  },
);

test(
  "browser: the nearest lang picks the table (the element's first); a change re-renders; defineStrings overrides keys",
  { skip: skip || false },
  async () => {
    const r = await page.evaluate(async () => {
      const { defineStrings } = await import('/web/sandbox/index.js');
      const slot = document.getElementById('slot');
      const wrap = document.createElement('div');
      wrap.lang = 'en-GB';
      slot.append(wrap);
      const ex = document.createElement('ffn-exercise');
      ex.setAttribute('exercise', 'relu-carre');
      ex.setAttribute('storage-key', 'i18n-test-lang');
      wrap.append(ex);
      const run = () => ex.shadowRoot.querySelector('button.run').textContent;
      const out = { ancestor: run() };
      ex.lang = 'fr';
      out.own = run();
      ex.removeAttribute('lang');
      wrap.lang = 'fr-CA';
      await new Promise((res) => setTimeout(res, 0)); // the MutationObserver's turn
      out.ancestorChanged = run();
      defineStrings('fr', { exercise: { run: 'Exécuter' } });
      out.overridden = run();
      out.keptOthers = ex.shadowRoot.querySelector('[part~="reset-button"]').textContent;
      defineStrings('fr', { exercise: { run: 'Lancer les tests' } });
      wrap.lang = 'ja';
      await new Promise((res) => setTimeout(res, 0));
      out.unknownFallsBack = run();
      slot.replaceChildren();
      return out;
    });
    assert.deepEqual(r, {
      ancestor: 'Run tests',
      own: 'Lancer les tests',
      ancestorChanged: 'Lancer les tests',
      overridden: 'Exécuter',
      keptOthers: 'Réinitialiser',
      unknownFallsBack: 'Run tests',
    });
  },
);

test(
  'browser, French page: a built-in exercise shows its French title, prompt, examples, hints and mistakes',
  { skip: skip || false },
  async () => {
    const sel = '#slot ffn-exercise';
    await page.evaluate(async () => {
      const { mountExercise } = await import('/web/sandbox/index.js');
      mountExercise(document.getElementById('slot'), 'gelu', { storageKey: 'i18n-test-gelu' });
    });
    await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector('button.run'), sel);
    await page.evaluate((s) => {
      const b = document.querySelector(s).shadowRoot.querySelector('[part~="hint-button"]');
      for (let i = 0; i < 3; i++) b.click();
    }, sel);
    await noEnglish('gelu, idle with its hints', sel, [
      'GELU, exacte et approchée',
      'Échauffement',
      'GELU pondère son entrée',
      'Vérifiez que vous n’avez pas interverti les deux.',
    ]);
    // a known mistake is named in French, from the exercise's translation of that variant
    const source = variantSources['gelu-swapped'].source;
    await page.evaluate(([s, code]) => Object.assign(document.querySelector(s), { code }).run(), [sel, source]);
    const diagnosis = (await shadow(sel, '.diagnosis')).replace(/[\u00a0\u202f]/g, ' ');
    assert.match(diagnosis, /^Erreur probable : GELU exacte et GELU tanh interverties/);
    assert.match(diagnosis, /Votre gelu donne l’approximation par tanh/);
    await page.evaluate(() => document.getElementById('slot').replaceChildren());

    // memories: the hidden tests' names, and an index line with the exercise's own words, in French
    await page.evaluate(async () => {
      const { mountExercise } = await import('/web/sandbox/index.js');
      mountExercise(document.getElementById('slot'), 'memories', { storageKey: 'i18n-test-memories' });
    });
    await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector('button.run'), sel);
    const wrongTop = await page.evaluate(async () => {
      const { exercises } = await import('/web/sandbox/index.js');
      const src = exercises.find((e) => e.id === 'memories').solution;
      return src.replace('const top = order.slice(0, k);', 'const top = order.slice(0, k).reverse();');
    });
    await page.evaluate(([s, code]) => Object.assign(document.querySelector(s), { code }).run(), [sel, wrongTop]);
    const shown = (
      await noEnglish(
        'memories, top in the wrong order',
        sel,
        [
          'ffnMemories : d = 7, dFF = 10, k = 3 : échoué',
          'ffnMemories : k = 0 (aucune mémoire : top est vide et partial est nul) : réussi',
          '1er rang (par force décroissante) : obtenu mémoire',
        ],
        ['partial'],
      )
    ).join('\n');
    assert.doesNotMatch(shown, /strongest|memory \d/);
    await page.evaluate(() => document.getElementById('slot').replaceChildren());
  },
);

test(
  'browser, French page: saved progress that cannot be read, a refused import and a refused code are said in French',
  { skip: skip || false },
  async () => {
    const sel = '#slot ffn-exercise';
    await page.evaluate(() => {
      const progress = {
        format: 'ffn-lab-sandbox-progress',
        version: 1,
        exercises: { 'relu-carre': { code: 7, status: 'passed' } },
      };
      localStorage.setItem('i18n-test-storage', JSON.stringify(progress));
      window.__mount({ storageKey: 'i18n-test-storage' });
    });
    await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector('button.run'), sel);
    await page.evaluate((s) => {
      const e = document.querySelector(s);
      e.code = 'x\n'.repeat(6000);
      const r = e.shadowRoot;
      r.querySelector('details.progress').open = true;
      r.querySelector('.progress-json').value = '{ pas du JSON';
      r.querySelector('[part~="import-button"]').click();
    }, sel);
    const texts = await noEnglish('exercise, progress problems', sel, [
      'Votre progression enregistrée pour cet exercice n’a pas pu être chargée en entier',
      'le code doit être une chaîne de caractères, pas un nombre',
      'le code n’a pas été remplacé',
      'le code a plus de 5 000 lignes',
      'Échec de l’importation : le texte n’est pas du JSON',
    ]);
    assert.ok(texts.length > 20);
    await page.evaluate(() => document.getElementById('slot').replaceChildren());
  },
);

test(
  "browser, French page: the worker's refusals of a result and of the code, in French; the learner's text as text",
  { skip: skip || false, timeout: 120_000 },
  async () => {
    const sel = '#slot ffn-exercise';
    const run = await mountExercise(sel, 'i18n-test-worker');
    // the three tests get the three values, in order
    const three = (a, b, c) =>
      `let k = 0;\nconst cases = [() => { ${a} }, () => { ${b} }, () => { ${c} }];\n` +
      'function reluCarre(x) {\n  return cases[k++ % 3]();\n}\n';
    const key = '<img src=x onerror=window.__pwned=1>';
    const html = async () =>
      page.evaluate(
        (s) => document.querySelector(s).shadowRoot.querySelectorAll('img, b').length + (window.__pwned ? 100 : 0),
        sel,
      );
    // a path is code (result[0][0]...): the word result in it is not English prose
    const path = ['result'];

    let r = await run(
      three(
        `const a = {}; a[${JSON.stringify(key)}] = a; return a;`,
        'let w = 1; for (let i = 0; i < 12; i++) w = [w]; return w;',
        'const o = {}; for (let i = 0; i < 40; i++) o["k" + i] = 1; return o;',
      ),
    );
    assert.deepEqual(r.tests, [
      `Refused: the result contains a cycle (at result.${key})`,
      'Refused: the result is nested deeper than 8 levels (at result[0][0][0][0][0][0][0][0][0])',
      'Refused: the result object has 40 keys, more than 32',
    ]);
    await noEnglish(
      'exercise, a cycle, too deep, too many keys',
      sel,
      [
        `Refusé : le résultat contient un cycle (en result.${key})`,
        'Refusé : le résultat est imbriqué sur plus de 8 niveaux (en result[0]',
        'Refusé : l’objet résultat a 40 clés, plus de 32',
      ],
      path,
    );
    assert.equal(await html(), 0, 'a key that looks like HTML is shown as text');

    r = await run(
      three('return { ["k".repeat(65)]: 1 };', 'return new Float64Array(200001);', 'return "<b>gras</b>";'),
    );
    assert.equal(r.tests[0], 'Refused: the result object has a key longer than 64 characters');
    assert.equal(r.tests[1], 'Refused: the result holds more than 200000 numbers');
    await noEnglish('exercise, a long key, too many numbers, a string', sel, [
      'Refusé : l’objet résultat a une clé de plus de 64 caractères',
      'Refusé : le résultat contient plus de 200 000 nombres',
      'renvoie une chaîne "<b>gras</b>"',
    ]);
    assert.equal(await html(), 0, 'a string that looks like HTML is shown as text');

    r = await run(
      three(
        'return undefined;',
        'return Promise.resolve(1);',
        'return { get data() { throw new TypeError("zut"); } };',
      ),
    );
    assert.match(r.tests[2], /^TypeError: reading your result threw: zut \(line/);
    await noEnglish('exercise, undefined, a Promise, a result that throws when read', sel, [
      'renvoie undefined (avez-vous oublié return ?)',
      'renvoie une Promise (les fonctions d’exercice doivent être synchrones)',
      'la lecture de votre résultat a levé une erreur : zut (ligne',
    ]);

    // what the lockdown's stubs throw
    r = await run(three('return fetch("x");', 'return setTimeout("1");', 'return new Function("return 1")();'));
    assert.match(r.tests[0], /^Error: fetch is disabled inside exercises: your code runs offline, in a sandbox/);
    // (the stubs throw an Error: its name is the class's, code in every language)
    await noEnglish(
      'exercise, fetch, a string timer, the Function constructor',
      sel,
      [
        'Error : fetch est désactivé dans les exercices : votre code s’exécute hors ligne, dans un bac à sable (ligne',
        'TypeError : setTimeout : passez une fonction, pas une chaîne de code',
        'new Function(...) (le constructeur de fonctions) est désactivé',
      ],
      ['Error'],
    );

    // the worker refuses the code itself
    for (const [code, french] of [
      ['function reluCarre(x) {\n  return import("x");\n}\n', 'l’instruction "import" n’est pas disponible'],
      ['return 5;\n', 'votre code ferme trop tôt l’enveloppe de l’exercice'],
      ['throw 5;\n', 'votre code a levé 5 (levez une erreur'],
    ]) {
      r = await run(code);
      assert.equal(r.status, 'error', r.summary);
      await noEnglish(`exercise, ${code.trim()}`, sel, [french]);
    }
    await page.evaluate(() => document.getElementById('slot').replaceChildren());
    assert.deepEqual(pageErrors, []);
  },
);

test(
  'browser: an embed page with ?lang=fr says what it refused in French, and its element is French',
  { skip: skip || false },
  async () => {
    const p = await served.newPage();
    const errors = [];
    p.on('pageerror', (e) => errors.push(String(e)));
    try {
      const q = `lang=fr&theme=violet&id=${'<'.repeat(70)}&preset=gpt2`;
      await p.goto(new URL(`/web/embed/param-calculator.html?${q}`, served.url).href);
      await p.waitForFunction(() => document.querySelector('ffn-param-calculator')?.result?.ffnParams === 4722432);
      await p.waitForFunction(() => document.querySelector('.embed-problem'));
      const r = await p.evaluate(() => ({
        lang: document.documentElement.lang,
        problem: document.querySelector('.embed-problem')?.textContent ?? '',
        tags: document.querySelector('.embed-problem')?.children.length ?? -1,
      }));
      assert.equal(r.lang, 'fr');
      const lines = r.problem.replace(/[\u00a0\u202f]/g, ' ').split('\n');
      assert.deepEqual(lines, [
        'theme="violet" ne vaut ni "dark" ni "light" ; il a été ignoré.',
        `id="${'<'.repeat(40)}"… (70 caractères) ne compte pas de 1 à 64 lettres, chiffres, "_", ".", ":" ou "-" ; ` +
          'les messages de hauteur ne portent pas d’id.',
      ]);
      assert.equal(r.tags, 0, 'text only');
      const texts = await p.evaluate(collectShownText, 'body');
      assert.deepEqual(findEnglish(texts), []);
      assert.ok(texts.join('\n').includes('paramètres du FFN par couche'), texts.join('\n').slice(0, 500));
      assert.deepEqual(errors, []);
    } finally {
      await p.close();
    }
  },
);
