// Static file server for the ffn-lab course page and browser tests: `node web/serve.js [--port N]`, bound to 127.0.0.1.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat, realpath, readFile } from 'node:fs/promises';
import { extname, join, resolve, sep, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The sandbox frame's CSP is the one in its own <meta> (which may change with ffn-lab versions),
// sent again as a header together with `sandbox allow-scripts`, which only a header can carry: the frame
// is then sandboxed (an opaque origin) even if a page embeds it without the iframe's sandbox attribute.
// If the meta cannot be read, the fallback blocks every script, so grading fails loudly, never unconfined.
const FRAME_CSP_META = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/;
async function frameCsp(file) {
  const m = FRAME_CSP_META.exec(await readFile(file, 'utf8'));
  return `${m ? m[1] : "default-src 'none'"}; sandbox allow-scripts`;
}

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** The package root: the folder above web/. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function send(res, status, body, headers = {}) {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(body);
}

/** Map a request path to a file inside root, or null if it escapes root or touches a dot-file/folder. */
async function resolvePath(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { error: 400 };
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return { error: 400 };
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s.startsWith('.'))) return { error: 403 };
  const full = resolve(root, ...segments);
  if (full !== root && !full.startsWith(root + sep)) return { error: 403 };
  let real;
  try {
    real = await realpath(full);
  } catch {
    return { error: 404 };
  }
  const realRoot = await realpath(root);
  if (real !== realRoot && !real.startsWith(realRoot + sep)) return { error: 403 };
  return { file: real };
}

/** The file a request names (a directory's index.html) and its stat; null once an error or a redirect is sent. */
async function fileFor(res, root, url) {
  const r = await resolvePath(root, url.pathname);
  if (r.error) {
    send(res, r.error, r.error === 404 ? 'not found\n' : r.error === 403 ? 'forbidden\n' : 'bad request\n');
    return null;
  }
  let file = r.file;
  let st = await stat(file);
  if (st.isDirectory()) {
    if (!url.pathname.endsWith('/')) {
      res.writeHead(301, { Location: url.pathname + '/' + url.search });
      res.end();
      return null;
    }
    file = join(file, 'index.html');
    try {
      st = await stat(file);
    } catch {
      send(res, 404, 'not found\n');
      return null;
    }
  }
  if (!st.isFile()) {
    send(res, 404, 'not found\n');
    return null;
  }
  return { file, st };
}

/** A 200 with the file's type, length and headers (the sandbox frame's no-network CSP); the body unless HEAD. */
async function sendFile(req, res, file, st) {
  const type = MIME[extname(file).toLowerCase()] || 'application/octet-stream';
  const headers = {
    'Content-Type': type,
    'Content-Length': st.size,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
  // The learner's workers inherit the sandbox frame's CSP: no network at all.
  if (file.endsWith(`${sep}sandbox${sep}run${sep}frame.html`))
    headers['Content-Security-Policy'] = await frameCsp(file);
  res.writeHead(200, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

function handler(root) {
  return async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(res, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
        return;
      }
      const url = new URL(req.url, 'http://127.0.0.1');
      if (url.pathname === '/') {
        res.writeHead(302, { Location: '/web/' });
        res.end();
        return;
      }
      const found = await fileFor(res, root, url);
      if (found) await sendFile(req, res, found.file, found.st);
    } catch {
      if (!res.headersSent) send(res, 404, 'not found\n');
      else res.destroy();
    }
  };
}

/**
 * Start serving `root` (default: the package root). port 0 picks a free port.
 * Resolves to { url, port, close() }; rejects with a clear message if the port is taken.
 */
export function startServer({ root = PACKAGE_ROOT, port = 8080, host = '127.0.0.1' } = {}) {
  const absRoot = resolve(root);
  const server = createServer(handler(absRoot));
  return new Promise((resolvePromise, reject) => {
    server.once('error', (e) => {
      if (e.code === 'EADDRINUSE') {
        reject(
          new Error(`ffn-lab serve: port ${port} on ${host} is already in use; pass another one with --port N`, {
            cause: e,
          }),
        );
      } else reject(e);
    });
    server.listen(port, host, () => {
      const actual = server.address().port;
      const url = `http://${host}:${actual}/`;
      resolvePromise({
        url,
        port: actual,
        server,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
  });
}

function parsePort(argv) {
  const i = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  if (i < 0) return 8080;
  const raw = argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`ffn-lab serve: --port needs an integer between 0 and 65535; got ${raw}`);
    process.exit(2);
  }
  return n;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const port = parsePort(process.argv.slice(2));
  startServer({ port }).then(
    ({ url }) => {
      console.log(`ffn-lab: serving ${PACKAGE_ROOT}`);
      console.log(`ffn-lab: course page at ${url}web/  (Ctrl-C to stop)`);
    },
    (e) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
