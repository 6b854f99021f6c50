// Test helper: start Debian's chromium headless through playwright-core (never downloads a browser).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipUnless } from './tools.js';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

/**
 * Why browser tests cannot run here, or null if they can. With CI set, a missing browser is an error
 * (throws) rather than a skip.
 */
export function browserSkipReason() {
  const why = `${CHROMIUM} is missing (install Debian's chromium: apt-get install chromium)`;
  return skipUnless(existsSync(CHROMIUM), why, 'browser tests');
}

/**
 * launchBrowser() -> { context, newPage(), close() }: a persistent context on a fresh temporary
 * user-data-dir, removed again by close().
 */
export async function launchBrowser({ args = [] } = {}) {
  const reason = browserSkipReason();
  if (reason) throw new Error(reason);
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'ffn-lab-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, ...args],
    });
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      try {
        await context.close();
      } finally {
        rmSync(userDataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The control of a no-network check: an ordinary worker of the page (no lockdown, no CSP of its own) fetches
 * url and says when it is done, so a request log that stays empty under the lockdown is shown able to see one.
 */
export async function fetchFromPlainWorker(page, url) {
  await page.evaluate(async (u) => {
    const w = new Worker(
      URL.createObjectURL(
        new Blob([`fetch('${u}').catch(() => {}).finally(() => postMessage(1))`], { type: 'text/javascript' }),
      ),
    );
    await new Promise((done) => {
      w.onmessage = done;
    });
    w.terminate();
  }, url);
}
