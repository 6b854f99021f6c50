#!/usr/bin/env node
// The ffn-lab command (package.json "bin"): `npx ffn-lab scorm ...` writes a SCORM package of exercises and widgets.
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const HELP = `Usage: npx ffn-lab scorm [options]

Writes a SCORM package (a zip an LMS imports as it is: Moodle, Canvas, Blackboard, Brightspace, Open edX) holding one
SCO page with the chosen exercises and widgets, and every file that page loads.

Options:
  --scorm 1.2|2004       the SCORM version (default 1.2; 2004 is the 4th edition)
  --exercises a,b,...    built-in exercise ids (gelu, ffn, swiglu, swiglu-backward, memories, gqa-budget,
                         value-to-vocab, rank-one-edit) or paths of your modules that call defineExercise from
                         'ffn-lab/sandbox' (default: the eight built-ins)
  --widgets a,b,...      memory-widget, activation-plot, param-calculator (default: none)
  --title text           the course item's title (default: the exercises' titles)
  --lang tag             the page's language, which its elements speak: en, fr, fr-CA... (default en; a language
                         ffn-lab has no table for is English until your module calls defineStrings)
  --out file.zip         where to write it (default ffn-lab-scorm.zip)
  --force                overwrite --out if it exists
  --help                 this text

Example: npx ffn-lab scorm --scorm 2004 --exercises gelu,ffn --widgets memory-widget --out course.zip`;

const list = (s) =>
  s
    ? s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : [];

function fail(message) {
  process.stderr.write(`ffn-lab scorm: ${message}\n`);
  process.exitCode = 1;
}

async function scorm(args) {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        scorm: { type: 'string', default: '1.2' },
        exercises: { type: 'string' },
        widgets: { type: 'string' },
        title: { type: 'string' },
        lang: { type: 'string', default: 'en' },
        out: { type: 'string', default: 'ffn-lab-scorm.zip' },
        force: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    return fail(`${e.message}\n\n${HELP}`);
  }
  if (values.help) return void process.stdout.write(`${HELP}\n`);
  const out = resolve(values.out);
  if (existsSync(out) && !values.force) return fail(`${out} exists; pass --force to overwrite it`);
  const { buildScormPackage } = await import('./package.js');
  const { exerciseIds } = await import('../sandbox/index.js');
  let pkg;
  try {
    pkg = await buildScormPackage({
      version: values.scorm,
      exercises: values.exercises === undefined ? [...exerciseIds] : list(values.exercises),
      widgets: list(values.widgets),
      title: values.title,
      lang: values.lang,
      cwd: process.cwd(),
    });
  } catch (e) {
    return fail(e.message);
  }
  writeFileSync(out, pkg.zip);
  const kb = (pkg.zip.length / 1024).toFixed(1);
  const what = pkg.exercises.map((e) => e.id).join(', ') || 'no exercise';
  process.stdout.write(`wrote ${out}: SCORM ${values.scorm}, ${what}; ${pkg.files.length} files, ${kb} KiB\n`);
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'scorm') await scorm(rest);
else if (!command || command === '--help' || command === 'help') process.stdout.write(`${HELP}\n`);
else fail(`unknown command "${command}"\n\n${HELP}`);
