// Takes the README's screenshots (web/screenshots/*.png) from the course page in headless Chromium.
// Run: node tests/components/screenshot.js (pngquant, from Debian, makes them small).
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web/serve.js';
import { launchBrowser } from '../helpers/browser.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(ROOT, 'web/screenshots');

// A learner's first try at the warm-up: exact GELU without its 1/2, so the run shows a failing test and a diagnosis.
const WRONG_GELU = `function gelu(x) {
  return map(x, (z) => z * (1 + erf(z / Math.SQRT2)));
}

function geluTanh(x) {
  const c = Math.sqrt(2 / Math.PI);
  return map(x, (z) => 0.5 * z * (1 + Math.tanh(c * (z + 0.044715 * z ** 3))));
}
`;

/**
 * Screenshot one element (its first maxHeight CSS pixels) into file, then reduce it to a 64-colour PNG with pngquant
 * (Debian's) when it is there.
 */
async function shoot(page, locator, file, maxHeight = 1000) {
  await locator.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  const box = await locator.boundingBox();
  const clip = { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, maxHeight) };
  await page.screenshot({ path: file, clip, animations: 'disabled' });
  try {
    execFileSync('pngquant', ['--force', '--skip-if-larger', '--strip', '--output', file, '64', '--', file]);
  } catch (e) {
    console.warn(`screenshot: pngquant failed or is missing (apt-get install pngquant): ${e.message}`);
  }
  console.log(`screenshot: ${file.slice(ROOT.length + 1)} ${statSync(file).size} bytes`);
}

const server = await startServer({ root: ROOT, port: 0, host: '127.0.0.1' });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 760, height: 1000 });
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  // ffn-ready bubbles: note every element that fired it, from before the page's modules run
  await page.addInitScript(() => {
    window.__ready = new Set();
    document.addEventListener('ffn-ready', (e) => window.__ready.add(e.target.id), true);
  });
  await page.goto(`${server.url.replace(/\/$/, '')}/web/`, { waitUntil: 'load' });

  const memory = page.locator('ffn-memory-widget#memory');
  await memory.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.__ready.has('memory'));
  await page.waitForTimeout(500);
  await shoot(page, memory, join(OUT, 'memory-widget.png'));

  const exercise = page.locator('ffn-exercise#ex-gelu');
  await exercise.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.__ready.has('ex-gelu'));
  await page.evaluate(async (code) => {
    const el = document.querySelector('#ex-gelu');
    const result = new Promise((ok) => el.addEventListener('ffn-exercise-result', ok, { once: true }));
    el.code = code;
    el.run();
    await result;
  }, WRONG_GELU);
  await page.waitForTimeout(300);
  await shoot(page, exercise, join(OUT, 'exercise.png'), 930);
} finally {
  await browser.close();
  await server.close();
}
