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
 * launchBrowser() -> { context, newPage(), version(), close() }: a persistent context on a fresh temporary
 * user-data-dir, removed again by close(); version() resolves to Chromium's version ('156.0.0.0', from a page: a
 * persistent context has no Browser to ask).
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
    async version() {
      const page = await context.newPage();
      try {
        return await page.evaluate(() => navigator.userAgent.match(/Chrome\/([\d.]+)/)?.[1] ?? '');
      } finally {
        await page.close();
      }
    },
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

/** The binding a page's recorder calls when an exercise fires `ffn-exercise-result` (see runWaiter). */
export const RUN_ENDED = '__ffnRunEnded';

/**
 * runWaiter(page) -> waitRun(start, what): calls `start()` (a click, say) and resolves when the page's recorder calls
 * window[RUN_ENDED], a binding: the page tells the test, and nothing is sent into the page while the Run goes on.
 * Rejects with `what` named after `timeout` ms without a verdict.
 */
export async function runWaiter(page, { timeout = 60000 } = {}) {
  let ended = () => {};
  await page.exposeFunction(RUN_ENDED, () => ended());
  return async (start, what) => {
    let timer;
    const over = new Promise((ok, fail) => {
      ended = ok;
      timer = setTimeout(() => fail(new Error(`${what}: no verdict within ${timeout} ms`)), timeout);
    });
    try {
      await start();
      await over;
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * A trusted click at the centre of `locator` (page.mouse: input through the browser, as a learner's). Playwright's
 * locator.click() checks its target with script in the page around the click: 4 ms of a warm Run in the timings of
 * tests/bench/README.md.
 */
export async function clickCentre(page, locator) {
  const box = await locator.boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}
