// `ffn-lab scorm` (the package's bin): the zip's imsmanifest.xml read back with a real XML parser for both versions,
// every file it names in the zip and every file of the zip named; the SCO page's own references; bad arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { unzipSync } from 'fflate';
import { getExercise } from 'ffn-lab/sandbox';
import { ARTIFACTS, ROOT, runCommand } from '../helpers/scorm.js';

const WORK = join(ARTIFACTS, 'package');
const CUBE = join(ROOT, 'tests/fixtures/lms/cube.js');
const NAMESPACES = {
  1.2: 'http://www.imsproject.org/xsd/imscp_rootv1p1p2',
  2004: 'http://www.imsglobal.org/xsd/imscp_v1p1',
};
const asList = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

async function build(version) {
  mkdirSync(WORK, { recursive: true });
  const out = join(WORK, `course-${version}.zip`);
  const args = ['scorm', '--scorm', version, '--exercises', `gelu,ffn,${CUBE}`, '--widgets', 'memory-widget'];
  const made = await runCommand([...args, '--out', out, '--force']);
  assert.equal(made.code, 0, made.stderr);
  return { made, out, files: unzipSync(new Uint8Array(readFileSync(out))) };
}

for (const version of ['1.2', '2004']) {
  test(`SCORM ${version}: the manifest parses, names every file of the zip, and only those`, async () => {
    const { made, out, files } = await build(version);
    const xml = new TextDecoder().decode(files['imsmanifest.xml']);
    assert.equal(XMLValidator.validate(xml), true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(xml);
    const m = doc.manifest;
    assert.equal(m['@xmlns'], NAMESPACES[version]);
    assert.equal(m.metadata.schema, 'ADL SCORM');
    assert.equal(String(m.metadata.schemaversion), version === '1.2' ? '1.2' : '2004 4th Edition');
    const org = m.organizations.organization;
    assert.equal(m.organizations['@default'], org['@identifier']);
    const titles = ['gelu', 'ffn', 'cube'].map((id) =>
      id === 'cube' ? 'Cube <every> value & keep the shape' : getExercise(id).title,
    );
    for (const t of titles) assert.ok(org.title.includes(t), `${org.title} names ${t}`);
    const resources = asList(m.resources.resource);
    assert.equal(resources.length, 1);
    const r = resources[0];
    assert.equal(asList(org.item)[0]['@identifierref'], r['@identifier']);
    assert.equal(r[version === '1.2' ? '@adlcp:scormtype' : '@adlcp:scormType'], 'sco');
    const named = asList(r.file).map((f) => decodeURIComponent(f['@href']));
    const inZip = Object.keys(files).filter((p) => p !== 'imsmanifest.xml' && !p.endsWith('/'));
    assert.ok(named.includes(r['@href']));
    assert.deepEqual(
      named.filter((p) => !files[p]),
      [],
      'named but not in the zip',
    );
    assert.deepEqual(inZip.filter((p) => !named.includes(p)).sort(), [], 'in the zip but not named');
    assert.equal(new Set(named).size, named.length);
    // the size printed is the zip's
    const kib = (statSync(out).size / 1024).toFixed(1);
    assert.match(made.stdout, new RegExp(`${kib.replace('.', '\\.')} KiB`));
  });
}

test('the SCO page: its elements, and every script, stylesheet and import-map target in the zip', async () => {
  const { files } = await build('2004');
  const html = new TextDecoder().decode(files['index.html']);
  assert.deepEqual(
    [...html.matchAll(/<ffn-exercise exercise="([^"]+)"/g)].map((x) => x[1]),
    ['gelu', 'ffn', 'cube'],
  );
  assert.match(html, /<ffn-memory-widget>/);
  assert.match(html, /<html lang="en">/, 'English unless --lang says otherwise');
  const refs = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((x) => x[1]);
  const map = JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(html)[1]).imports;
  refs.push(...Object.values(map).map((p) => p.replace(/^\.\//, '')));
  assert.ok(refs.length >= 8);
  assert.deepEqual(
    refs.filter((p) => !files[p]),
    [],
  );
  // the LMS link runs before the script that defines <ffn-exercise>
  assert.ok(html.indexOf('web/lms/sco.js') < html.indexOf('web/sandbox/index.js"></script>'));
});

test('bad arguments: a clear error and nothing written', async () => {
  mkdirSync(WORK, { recursive: true });
  const out = join(WORK, 'bad.zip');
  rmSync(out, { force: true });
  const cases = [
    [['--exercises', 'gelu,no-such-exercise'], /unknown exercise "no-such-exercise"; built in: gelu, ffn/],
    [['--exercises', join(ROOT, 'tests/fixtures/lms/throws.js')], /threw: this module is broken on purpose/],
    [['--exercises', join(WORK, 'missing.js')], /no author module at/],
    [['--scorm', '2005'], /--scorm must be 1\.2 or 2004; got 2005/],
    [['--lang', 'fr"><script>'], /--lang must be a language tag such as en, fr or fr-CA; got "fr\\"><script>"/],
    [['--lang', 'french-language'], /--lang must be a language tag .*; got "french-language"/],
    [['--widgets', 'clock'], /unknown widget "clock"/],
    [['--bogus'], /Unknown option '--bogus'/],
  ];
  for (const [args, said] of cases) {
    const r = await runCommand(['scorm', ...args, '--out', out]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, said);
    assert.equal(existsSync(out), false, `${args.join(' ')} wrote ${out}`);
  }
  writeFileSync(out, 'mine');
  const kept = await runCommand(['scorm', '--exercises', 'gelu', '--out', out]);
  assert.equal(kept.code, 1);
  assert.match(kept.stderr, /exists; pass --force/);
  assert.equal(readFileSync(out, 'utf8'), 'mine');
  const forced = await runCommand(['scorm', '--exercises', 'gelu', '--out', out, '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.ok(unzipSync(new Uint8Array(readFileSync(out)))['imsmanifest.xml']);
  const help = await runCommand(['scorm', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--scorm 1\.2\|2004/);
  assert.match(help.stdout, /--exercises/);
  assert.match(help.stdout, /--lang tag/);
});

test('the published files hold the command and every file it puts in a package', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.dependencies.fflate !== undefined, true, 'fflate is a runtime dependency');
  const packed = await new Promise((done, fail) =>
    execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT }, (err, stdout) =>
      err ? fail(err) : done(JSON.parse(stdout.slice(stdout.search(/^\[\s*\{/m)))),
    ),
  );
  const shipped = new Set(packed[0].files.map((f) => f.path));
  assert.ok(shipped.has(pkg.bin['ffn-lab']));
  const { files } = await build('1.2');
  const fromPackage = Object.keys(files)
    .filter((p) => p.startsWith('ffn-lab/web/'))
    .map((p) => p.slice('ffn-lab/'.length));
  assert.ok(fromPackage.length > 20);
  assert.deepEqual(
    fromPackage.filter((p) => !shipped.has(p)),
    [],
  );
});
