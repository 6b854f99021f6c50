// Test helper: run the package's `ffn-lab` command (its package.json bin), unzip what it wrote, and an LMS host page
// whose SCORM API is scorm-again's (1.2 or 2004), for the SCO in an iframe.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = join(ROOT, 'tests/artifacts/lms');
const BIN = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin['ffn-lab']);

/** Run `ffn-lab <args>` in cwd: resolves to { code, stdout, stderr }, whatever the exit code. */
export function runCommand(args, cwd = ROOT) {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd, timeout: 120000 }, (err, stdout, stderr) =>
      done({ code: err ? (err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The zip's entries (path -> bytes), written out under dir (emptied first). */
export function unzipTo(zipFile, dir) {
  const files = unzipSync(new Uint8Array(readFileSync(zipFile)));
  rmSync(dir, { recursive: true, force: true });
  for (const [path, bytes] of Object.entries(files)) {
    if (path.endsWith('/')) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  }
  return files;
}

/**
 * Write an LMS page into root (host.html plus scorm-again's browser build): it makes window.API (1.2) or
 * window.API_1484_11 (2004) with scorm-again, before the SCO's iframe (sco/index.html) loads. What the page
 * does is set by window.__lms, which a test gives with addInitScript: { mode: 'ok' | 'false' | 'throw',
 * learner, suspend } (false: every SetValue returns "false"; throw: every SetValue and Commit throws; error: every
 * call leaves error 101, "general exception", in GetLastError).
 */
export function writeHost(root, version) {
  const file = version === '1.2' ? 'scorm12.min.js' : 'scorm2004.min.js';
  const dist = dirname(createRequire(import.meta.url).resolve('scorm-again/scorm12'));
  writeFileSync(join(root, file), readFileSync(join(dist, file)));
  const [Ctor, name, set, commit, lastError] =
    version === '1.2'
      ? ['Scorm12API', 'API', 'LMSSetValue', 'LMSCommit', 'LMSGetLastError']
      : ['Scorm2004API', 'API_1484_11', 'SetValue', 'Commit', 'GetLastError'];
  const learner = version === '1.2' ? 'cmi.core.student_id = l' : 'cmi.learner_id = l';
  writeFileSync(
    join(root, 'host.html'),
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>LMS</title><link rel="icon" href="data:,">
<script src="./${file}"></script>
<script>
  const cfg = window.__lms || { mode: 'ok' };
  const api = new ${Ctor}({ logLevel: 5, autocommit: false });
  const l = cfg.learner || 'learner-1';
  api.${learner};
  if (cfg.suspend) { api.cmi.suspend_data = cfg.suspend; }
  if (cfg.mode === 'false') api.${set} = () => 'false';
  if (cfg.mode === 'throw') {
    api.${set} = () => { throw new Error('LMS down'); };
    api.${commit} = () => { throw new Error('LMS down'); };
  }
  if (cfg.mode === 'error') api.${lastError} = () => '101';
  window.${name} = api;
</script></head>
<body><iframe id="sco" src="./sco/index.html" style="width: 100%; height: 3000px"></iframe></body></html>
`,
  );
}
