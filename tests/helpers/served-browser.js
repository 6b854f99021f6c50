// Test helper: one web/serve.js server over the package root plus one headless chromium, shared by a node:test file.
import { before, after } from 'node:test';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web/serve.js';
import { launchBrowser, browserSkipReason } from './browser.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * servedBrowser() -> { skip, url, newPage() }: registers before/after hooks that start the server on a
 * random 127.0.0.1 port and the browser, and close both. skip is browserSkipReason() (null when browser
 * tests can run); url is the server's base URL (read it inside a test).
 */
export function servedBrowser() {
  const skip = browserSkipReason();
  let server;
  let browser;
  before(async () => {
    if (skip) return;
    server = await startServer({ root: ROOT, port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  after(async () => {
    if (browser) await browser.close();
    if (server) await server.close();
  });
  return {
    skip,
    get url() {
      return server.url;
    },
    newPage: () => browser.newPage(),
  };
}
