// Test helper: one web/serve.js server over the package root plus one headless chromium, shared by a node:test file.
import { before, after } from 'node:test';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web/serve.js';
import { launchBrowser, browserSkipReason } from './browser.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * servedBrowser(setup?) -> { skip, url, context, newPage() }: registers before/after hooks that start the
 * server on a random 127.0.0.1 port and the browser, and close both. skip is browserSkipReason() (null when
 * browser tests can run); url and context (the browser's Playwright context) are read inside a test.
 * setup(served), if given, runs in the same before hook once both are up (Node 20 does not wait for one
 * top-level before hook to finish before starting the next, so a file's own hook could not rely on them).
 */
export function servedBrowser(setup) {
  const skip = browserSkipReason();
  let server;
  let browser;
  before(async () => {
    if (skip) return;
    server = await startServer({ root: ROOT, port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    if (setup) await setup(served);
  });
  after(async () => {
    if (browser) await browser.close();
    if (server) await server.close();
  });
  const served = {
    skip,
    get url() {
      return server.url;
    },
    get context() {
      return browser.context;
    },
    newPage: () => browser.newPage(),
  };
  return served;
}
