// web/serve.js: MIME types, / -> /web/, path traversal and dot-files refused, 127.0.0.1 only, a taken port reported
// clearly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { startServer } from '../../web/serve.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let srv;

before(async () => {
  srv = await startServer({ root: ROOT, port: 0 });
});
after(() => srv && srv.close());

/** Raw GET (no URL normalisation, so ../ reaches the server as sent). */
function get(path, method = 'GET') {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: srv.port, path, method }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (c) => (body += c));
      res.on('end', () => done({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

test('startServer binds 127.0.0.1 on a random port and returns its URL', () => {
  assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.equal(srv.server.address().address, '127.0.0.1');
});

test('MIME types: .wasm application/wasm, .js text/javascript, .html, .json, .d.ts', async () => {
  const wasm = await get('/web/ffn.wasm');
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers['content-type'], 'application/wasm');
  assert.equal(wasm.body.slice(0, 4), '\0asm');
  const js = await get('/web/index.js');
  assert.equal(js.status, 200);
  assert.match(js.headers['content-type'], /^text\/javascript/);
  assert.equal(js.headers['x-content-type-options'], 'nosniff');
  const html = await get('/tests/fixtures/core.html');
  assert.match(html.headers['content-type'], /^text\/html/);
  const pkg = await get('/package.json');
  assert.match(pkg.headers['content-type'], /^application\/json/);
  const head = await get('/web/ffn.wasm', 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
});

test(
  'only the sandbox frame is served with a CSP: worker.js (fetched as text, never run from its ' +
    'URL) and pages carry none',
  async () => {
    const frame = await get('/web/sandbox/run/frame.html');
    assert.equal(frame.status, 200);
    // its exact value (the frame's meta policy plus sandbox allow-scripts) is checked in sandbox/sandbox.test.js
    assert.ok(frame.headers['content-security-policy'], 'the frame carries a CSP');
    const worker = await get('/web/sandbox/run/worker.js');
    assert.equal(worker.status, 200);
    assert.equal(worker.headers['content-security-policy'], undefined);
    const page = await get('/web/index.html');
    assert.equal(page.headers['content-security-policy'], undefined);
  },
);

test('/ redirects to /web/, directories get a trailing slash, missing files 404, other methods 405', async () => {
  const root = await get('/');
  assert.equal(root.status, 302);
  assert.equal(root.headers.location, '/web/');
  const dir = await get('/web');
  assert.equal(dir.status, 301);
  assert.equal(dir.headers.location, '/web/');
  assert.equal((await get('/web/no-such-file.js')).status, 404);
  assert.equal((await get('/web/index.js', 'POST')).status, 405);
});

test('path traversal and dot-files are refused', async () => {
  for (const p of [
    '/../etc/passwd',
    '/web/../../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/web/%2e%2e%2f%2e%2e%2fetc/passwd',
    '/..%5c..%5cetc/passwd',
    '/.git/config',
    '/web/%00.js',
    '/%E0%A4%A',
  ]) {
    const r = await get(p);
    assert.ok([400, 403, 404].includes(r.status), `${p} -> ${r.status}`);
    assert.ok(!r.body.includes('root:'), `${p} leaked a file`);
  }
});

test('a taken port is reported clearly (API and CLI)', async () => {
  await assert.rejects(
    startServer({ root: ROOT, port: srv.port }),
    (e) => e.message.includes(`port ${srv.port}`) && /already in use/.test(e.message),
  );
  const child = spawn(process.execPath, [resolve(ROOT, 'web/serve.js'), '--port', String(srv.port)], { cwd: ROOT });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const code = await new Promise((done) => child.on('exit', done));
  assert.equal(code, 1);
  assert.match(err, new RegExp(`port ${srv.port} .*already in use`));
});

test('the CLI prints the URL it serves', async () => {
  const child = spawn(process.execPath, [resolve(ROOT, 'web/serve.js'), '--port', '0'], { cwd: ROOT });
  let out = '';
  await new Promise((done, fail) => {
    const t = setTimeout(() => fail(new Error(`no URL printed: ${out}`)), 10000);
    child.stdout.on('data', (c) => {
      out += c;
      if (/http:\/\/127\.0\.0\.1:\d+\/web\//.test(out)) {
        clearTimeout(t);
        done();
      }
    });
  });
  child.kill();
  assert.match(out, /http:\/\/127\.0\.0\.1:\d+\/web\//);
});
