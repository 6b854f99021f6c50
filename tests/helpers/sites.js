// Test helper: the course sites of tests/sites/, each installed from one npm-packed tarball as a site would, built by
// its real tool (Vite, webpack, esbuild, Rollup), served, and driven in headless Chromium.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { RUN_ENDED, runWaiter, clickCentre } from './browser.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = join(ROOT, 'tests/sites');
// Inside the repository (and git-ignored): a site's rollup.config.mjs imports its plugin, and Node finds it
// in the repository's node_modules, while each site's ffn-lab comes from its own node_modules.
const WORK = join(ROOT, 'tests/artifacts/sites');

/**
 * The documented policy for a page with the elements: the first such line under "The CSP a host page should set" in
 * web/sandbox/run/SECURITY.md (its one copy; the top README links to it).
 */
export function readmeCsp() {
  const readme = readFileSync(join(ROOT, 'web/sandbox/run/SECURITY.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### The CSP a host page should set'));
  const line = /^Content-Security-Policy: (.+)$/m.exec(section);
  if (!line) throw new Error('web/sandbox/run/SECURITY.md: no Content-Security-Policy line under its host CSP heading');
  return line[1].trim();
}

function run(cmd, args, cwd) {
  return new Promise((done, fail) => {
    const env = { ...process.env, npm_config_update_notifier: 'false' };
    execFile(cmd, args, { cwd, timeout: 180000, maxBuffer: 32 << 20, env }, (err, stdout, stderr) => {
      if (err) fail(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`));
      else done(stdout);
    });
  });
}

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
};

/**
 * A static file server like the ones course sites sit behind: files under root, index.html for a folder,
 * text gzipped. headersFor(path) adds headers to a response; cdn: CORS for everyone and .html served as text/plain, as
 * public CDNs do.
 */
export function serveStatic(root, { headersFor = () => ({}), cdn = false } = {}) {
  const srv = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = resolve(root, `.${path}`);
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const ext = extname(file);
    const type = cdn && ext === '.html' ? 'text/plain; charset=utf-8' : MIME[ext] || 'application/octet-stream';
    const headers = { 'content-type': type, 'cache-control': 'no-store', ...headersFor(path) };
    if (cdn) Object.assign(headers, { 'access-control-allow-origin': '*', 'timing-allow-origin': '*' });
    let body = readFileSync(file);
    // gzip for text, as static hosts and CDNs do (and vite preview), so the sites' byte counts compare
    if (/^(text\/|application\/json)/.test(type) && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
      body = gzipSync(body);
      Object.assign(headers, { 'content-encoding': 'gzip', vary: 'accept-encoding' });
    }
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  return new Promise((ok) =>
    srv.listen(0, '127.0.0.1', () =>
      ok({
        url: `http://127.0.0.1:${srv.address().port}/`,
        close: () =>
          new Promise((done) => {
            srv.close(() => done());
            srv.closeAllConnections();
          }),
      }),
    ),
  );
}

/** npm pack of this checkout (already built by build.sh) into WORK; resolves to the tarball's path. */
async function pack() {
  const out = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', WORK], ROOT);
  const info = JSON.parse(out.slice(out.search(/^\[\s*\{/m)));
  const files = info[0].files.map((f) => f.path);
  const needed = [
    'web/sandbox/run/sandbox-inline.js',
    'web/sandbox/run/frame.html',
    'web/ffn-wasm-inline.js',
    'web/embed/exercise.html',
    'web/embed/host.js',
    'web/dist/boot.js',
  ];
  for (const f of needed) {
    if (!files.includes(f)) throw new Error(`the tarball lacks ${f} (run bash build.sh first)`);
  }
  return join(WORK, info[0].filename);
}

/** Copy fixture `name` to WORK/dir and install the tarball into it, as `npm install ffn-lab` would. */
async function install(name, tgz, dir = name) {
  const site = join(WORK, dir);
  cpSync(join(FIXTURES, name), site, { recursive: true });
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tgz], site);
  return site;
}

/** Build steps, each as the site's own tool would run it; each resolves to the list of warnings it printed. */
const builders = {
  async vite(site) {
    const vite = await import('vite');
    const warnings = [];
    const logger = vite.createLogger('warn');
    const customLogger = { ...logger, warn: (m) => warnings.push(m), warnOnce: (m) => warnings.push(m) };
    await vite.build({ root: site, logLevel: 'warn', customLogger, configFile: false });
    return warnings;
  },
  async webpack(site) {
    const { default: webpack } = await import('webpack');
    const config = (await import(pathToFileURL(join(site, 'webpack.config.js')).href)).default;
    const stats = await new Promise((ok, fail) => {
      webpack({ ...config, context: site }, (err, s) => (err ? fail(err) : ok(s)));
    });
    const info = stats.toJson({ all: false, errors: true, warnings: true });
    if (stats.hasErrors()) throw new Error(`webpack: ${info.errors.map((e) => e.message).join('\n')}`);
    return info.warnings.map((w) => w.message);
  },
  async esbuild(site) {
    const esbuild = await import('esbuild');
    // esbuild src/main.js --bundle --outfile=dist/main.js
    const r = await esbuild.build({
      absWorkingDir: site,
      entryPoints: ['src/main.js'],
      bundle: true,
      outfile: 'dist/main.js',
      logLevel: 'silent',
    });
    return r.warnings.map((w) => w.text);
  },
  async rollup(site) {
    const { rollup } = await import('rollup');
    const { loadConfigFile } = await import('rollup/loadConfigFile');
    const { options, warnings } = await loadConfigFile(join(site, 'rollup.config.mjs'));
    const seen = [];
    const cwd = process.cwd();
    process.chdir(site); // rollup -c resolves the config's relative paths against the working folder
    try {
      for (const o of options) {
        const bundle = await rollup({ ...o, onwarn: (w) => seen.push(w.message) });
        for (const out of o.output) await bundle.write(out);
        await bundle.close();
      }
    } finally {
      process.chdir(cwd);
    }
    warnings.flush();
    return seen;
  },
};

/**
 * Install, build and serve every site. Resolves to { sites: [{ name, url, build: { ms, warnings } }], dirs (each
 * installed site's folder, by fixture name), close() }.
 * Sites: vite-dev, vite-build (vite preview), webpack, esbuild, rollup, plain (node_modules), plain-copy (a copy
 * of web/ in a subfolder), cdn (absolute URLs to another origin), lms (the embed pages in iframes, sized by
 * host.js), csp (vite build served with the README's policy) and webpack-csp (the webpack build under that
 * policy). `only` limits them by name.
 */
export async function startSites({ only = null, log = () => {} } = {}) {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const want = (n) => !only || only.includes(n);
  const closers = [];
  const sites = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    const tgz = await pack();
    log(`packed ${tgz}`);
    const needs = {
      vite: want('vite-dev') || want('vite-build'),
      'vite-csp': want('csp'),
      webpack: want('webpack') || want('webpack-csp'),
      esbuild: want('esbuild'),
      rollup: want('rollup'),
      plain: want('plain') || want('plain-copy') || want('cdn') || want('lms'),
    };
    const dirs = {};
    for (const [name, needed] of Object.entries(needs)) if (needed) dirs[name] = await install(name, tgz);
    const built = {};
    const tools = [
      ['vite', 'vite'],
      ['vite-csp', 'vite'],
      ['webpack', 'webpack'],
      ['esbuild', 'esbuild'],
      ['rollup', 'rollup'],
    ];
    for (const [name, kind] of tools) {
      if (!dirs[name] || (name === 'vite' && !want('vite-build'))) continue;
      const t0 = Date.now();
      const warnings = await builders[kind](dirs[name]);
      built[name] = { ms: Date.now() - t0, warnings };
      log(`built ${name} in ${built[name].ms} ms${warnings.length ? ` (${warnings.length} warnings)` : ''}`);
    }
    const add = (name, url, build = null) => sites.push({ name, url, build });
    if (want('vite-dev')) {
      const vite = await import('vite');
      const server = await vite.createServer({
        root: dirs.vite,
        configFile: false,
        logLevel: 'error',
        server: { port: 0, host: '127.0.0.1', strictPort: false },
      });
      await server.listen();
      closers.push(() => server.close());
      add('vite-dev', server.resolvedUrls.local[0]);
    }
    if (want('vite-build')) {
      const vite = await import('vite');
      const server = await vite.preview({
        root: dirs.vite,
        configFile: false,
        logLevel: 'error',
        preview: { port: 0, host: '127.0.0.1' },
      });
      closers.push(() => new Promise((ok) => server.httpServer.close(ok)));
      add('vite-build', server.resolvedUrls.local[0], built.vite);
    }
    const csp = readmeCsp();
    const cspFor = (pages) => (p) => (pages.includes(p) ? { 'content-security-policy': csp } : {});
    for (const name of ['webpack', 'esbuild', 'rollup']) {
      if (!want(name) && !(name === 'webpack' && want('webpack-csp'))) continue;
      // webpack's csp.html: the same site under the README's policy (the frame file is webpack's minified copy)
      const s = await serveStatic(dirs[name], { headersFor: cspFor(['/csp.html']) });
      closers.push(s.close);
      if (want(name)) add(name, s.url, built[name]);
      if (name === 'webpack' && want('webpack-csp')) add('webpack-csp', new URL('csp.html', s.url).href, built[name]);
    }
    if (dirs.plain) {
      // the author's copy of the package's web/ folder, in a subfolder of the site
      cpSync(join(dirs.plain, 'node_modules/ffn-lab/web'), join(dirs.plain, 'static/ffn-lab'), { recursive: true });
      const s = await serveStatic(dirs.plain);
      closers.push(s.close);
      if (want('plain')) add('plain', s.url);
      if (want('plain-copy')) add('plain-copy', new URL('lessons/ffn.html', s.url).href);
      const pkgDir = join(dirs.plain, 'node_modules/ffn-lab');
      if (want('cdn')) {
        const cdn = await serveStatic(pkgDir, { cdn: true });
        closers.push(cdn.close);
        const page = join(WORK, 'cdn-page');
        mkdirSync(page, { recursive: true });
        const html = readFileSync(join(FIXTURES, 'cdn/index.html'), 'utf8');
        writeFileSync(join(page, 'index.html'), html.replaceAll('%CDN%', cdn.url.replace(/\/$/, '')));
        const host = await serveStatic(page);
        closers.push(host.close);
        add('cdn', host.url);
      }
      if (want('lms')) {
        const files = await serveStatic(pkgDir); // the author's static host for the embed pages
        closers.push(files.close);
        const page = join(WORK, 'lms-page');
        mkdirSync(page, { recursive: true });
        const html = readFileSync(join(FIXTURES, 'lms/index.html'), 'utf8');
        writeFileSync(join(page, 'index.html'), html.replaceAll('%EMBED%', `${files.url}web`));
        const lms = await serveStatic(page);
        closers.push(lms.close);
        add('lms', lms.url);
      }
    }
    if (want('csp')) {
      // the policy goes with the site's pages; the sandbox frame file (an .html asset) brings its own
      const s = await serveStatic(join(dirs['vite-csp'], 'dist'), { headersFor: cspFor(['/', '/index.html']) });
      closers.push(s.close);
      add('csp', s.url, built['vite-csp']);
    }
    return { sites, dirs, close };
  } catch (e) {
    await close();
    throw e;
  }
}

const ELEMENTS = ['ffn-memory-widget', 'ffn-activation-plot', 'ffn-param-calculator', 'ffn-exercise'];

/* In every frame, before any script: when each element fired ffn-ready (epoch ms), the exercise's runs and results. */
const RECORDER = `(() => {
  window.__ffn = { ready: {}, runs: [] };
  const now = () => performance.timeOrigin + performance.now();
  document.addEventListener('ffn-ready', (e) => { window.__ffn.ready[e.target.localName] ??= now(); }, true);
  document.addEventListener('ffn-exercise-run', () => window.__ffn.runs.push({ start: now() }), true);
  document.addEventListener('ffn-exercise-result', (e) => {
    const r = window.__ffn.runs.at(-1);
    if (r) Object.assign(r, { end: now(), passed: e.detail.report.passed, status: e.detail.report.status });
    if (typeof window.${RUN_ENDED} === 'function') window.${RUN_ENDED}();
  }, true);
})();`;

/**
 * Open url in a fresh page of context and drive it as a learner would. Resolves to
 * { ready: { element: ms after navigation }, bytes (transferred until every element was ready), requests,
 *   runs: [{ ms, passed, summary, diagnosis }], problems: [console errors, page errors, failed requests] }.
 * runs: how many times to run the correct solution (then once a wrong one). For the lms site the elements
 * are in iframes, one per embed page.
 */
export async function driveSite(context, url, { solution, wrong, runs = 1, timeout = 60000 } = {}) {
  const page = await context.newPage();
  const problems = [];
  const finished = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    // Chromium reports a worker started soon after its blob: URL was made as an aborted load, though the worker
    // runs (web/sandbox/README.md); a blob: URL is never a network request, and the run's results are checked
    if (r.url().startsWith('blob:') && r.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  page.on('requestfinished', async (r) => {
    const t = r.timing();
    const sizes = await r.sizes().catch(() => null);
    if (!sizes) return;
    const bytes = sizes.responseBodySize + sizes.responseHeadersSize;
    finished.push({ url: r.url(), end: t.startTime + Math.max(t.responseEnd, 0), bytes });
  });
  await page.addInitScript(RECORDER);
  try {
    const t0 = Date.now();
    await page.goto(url);
    // one frame per element (lms), or every element in the page
    const where = async () => {
      const frames = page.frames().filter((f) => f !== page.mainFrame());
      if (url.includes('lms') || (await page.locator('iframe[src*="embed/"]').count()) > 0) {
        const out = {};
        for (const f of frames) {
          const r = await f.evaluate(() => (window.__ffn ? window.__ffn.ready : {})).catch(() => ({}));
          Object.assign(out, Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { at: v, frame: f }])));
        }
        return out;
      }
      const r = await page.evaluate(() => window.__ffn.ready);
      return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { at: v, frame: page.mainFrame() }]));
    };
    let ready = {};
    for (const deadline = Date.now() + timeout; Date.now() < deadline;) {
      ready = await where();
      if (ELEMENTS.every((e) => ready[e])) break;
      await new Promise((ok) => setTimeout(ok, 100));
    }
    const missing = ELEMENTS.filter((e) => !ready[e]);
    if (missing.length) {
      const seen = problems.join(' | ');
      throw new Error(`${url}: no ffn-ready from ${missing.join(', ')} within ${timeout} ms; problems: ${seen}`);
    }
    const lastReady = Math.max(...ELEMENTS.map((e) => ready[e].at));
    await new Promise((ok) => setTimeout(ok, 300)); // let requestfinished events of the loads before it arrive
    const before = finished.filter((f) => f.end <= lastReady + 5);
    const ex = ready['ffn-exercise'].frame;
    const rendered = {};
    for (const e of ELEMENTS) {
      const f = ready[e].frame;
      rendered[e] = await f
        .locator(e)
        .first()
        .evaluate((el) => {
          const box = el.getBoundingClientRect();
          const text = el.shadowRoot ? el.shadowRoot.textContent.length : 0;
          return { width: Math.round(box.width), height: Math.round(box.height), text };
        });
    }
    // A Run is a trusted click at the button, and the page says when it is over (helpers/browser.js)
    const waitRun = await runWaiter(page, { timeout });
    const button = ex.locator('ffn-exercise button.run');
    const grade = async (source, { first = false } = {}) => {
      await ex.locator('ffn-exercise textarea.code').fill(source); // (an iframe off screen is scrolled in first)
      await button.scrollIntoViewIfNeeded();
      // the first Run as a learner makes it: the exercise in view, the code typed, Run a second later
      if (first) await new Promise((ok) => setTimeout(ok, 1000));
      const n = await ex.evaluate(() => window.__ffn.runs.length);
      await waitRun(() => clickCentre(page, button), `${url}: Run clicked`);
      if ((await ex.evaluate(() => window.__ffn.runs.length)) !== n + 1)
        throw new Error(`${url}: not one Run per click`);
      const r = await ex.evaluate(() => window.__ffn.runs.at(-1));
      const summary = await ex.locator('ffn-exercise .summary').first().textContent();
      const diagnosis = await ex.locator('ffn-exercise .diagnosis').allTextContents();
      return { ms: r.end - r.start, passed: r.passed, status: r.status, summary, diagnosis };
    };
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await grade(solution, { first: i === 0 }));
    const wrongRun = wrong ? await grade(wrong) : null;
    // lms: each iframe, once scrolled into view as a reader would, as tall as the page inside it
    const frameHeights = {};
    for (const f of await page.locator('iframe[src*="embed/"]').all()) {
      await f.scrollIntoViewIfNeeded();
      const inner = await (await f.elementHandle()).contentFrame();
      let h = {};
      for (let i = 0; i < 20; i++) {
        await new Promise((ok) => setTimeout(ok, 100));
        h = {
          iframe: await f.evaluate((el) => Math.round(el.getBoundingClientRect().height)),
          content: await inner.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height)),
        };
        if (Math.abs(h.iframe - h.content) <= 1) break;
      }
      frameHeights[await f.getAttribute('id')] = h;
    }
    return {
      loadMs: Date.now() - t0,
      ready: Object.fromEntries(ELEMENTS.map((e) => [e, ready[e].at])),
      bytes: before.reduce((s, f) => s + f.bytes, 0),
      requests: before.length,
      rendered,
      runs: results,
      wrong: wrongRun,
      frameHeights,
      urls: finished.map((f) => f.url),
      problems,
    };
  } finally {
    await page.close();
  }
}

/** Median of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
}
