// Functions fit on a screen: no function or method of web/'s hand-written JavaScript is over 60 lines, and each file
// opens with one line on what it is for (a comment, after any #! line). Read with acorn, not with regular expressions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acorn from 'acorn';
import { ROOT, webFiles } from '../helpers/web-files.js';

const MAX_LINES = 60;

/** The name a function is known by: its own, its method's or property's key, or the variable it is assigned to. */
function nameOf(node, parent) {
  if (node.id) return node.id.name;
  const key = parent && (parent.key || (parent.type === 'VariableDeclarator' && parent.id));
  if (key && key.type === 'Identifier') return key.name;
  if (key && key.type === 'Literal') return String(key.value);
  if (parent && parent.type === 'AssignmentExpression' && parent.left.type === 'MemberExpression') {
    const p = parent.left.property;
    if (p.type === 'Identifier') return p.name;
  }
  return '(anonymous)';
}

/** Functions of `source` over `max` lines: [{ line, name, lines }], nested ones included. */
function longFunctions(source, max = MAX_LINES) {
  const ast = acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  const found = [];
  const visit = (node, parent) => {
    if (/Function/.test(node.type)) {
      const lines = node.loc.end.line - node.loc.start.line + 1;
      if (lines > max) found.push({ line: node.loc.start.line, name: nameOf(node, parent), lines });
    }
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c.type === 'string') visit(c, node);
      } else if (v && typeof v.type === 'string') visit(v, node);
    }
  };
  visit(ast, null);
  return found;
}

test(`no function in web/ is over ${MAX_LINES} lines`, () => {
  const files = webFiles();
  assert.ok(files.length > 60, `web/ holds its modules (${files.length})`);
  const over = [];
  for (const f of files) {
    for (const { line, name, lines } of longFunctions(readFileSync(join(ROOT, f), 'utf8'))) {
      over.push(`${f}:${line}: ${name} (${lines} lines)`);
    }
  }
  assert.deepEqual(over, [], `functions over ${MAX_LINES} lines: split them by job`);
});

test('every file of web/ opens with one line on what it is for', () => {
  const bare = webFiles().filter((f) => {
    const lines = readFileSync(join(ROOT, f), 'utf8').split('\n');
    const first = lines[0].startsWith('#!') ? lines[1] : lines[0];
    return !/^\/\/ \S/.test(first ?? '');
  });
  assert.deepEqual(bare, [], 'open these files with a // comment on what they are for');
});

test('the check finds a function of 61 lines, by its name, and lets one of 60 pass', () => {
  const body = (n) => Array.from({ length: n - 2 }, (_, i) => `  x += ${i};`).join('\n');
  const src = [
    `function fits(x) {\n${body(60)}\n}`,
    `export const tooLong = (x) => {\n${body(61)}\n};`,
    `class A {\n  method(x) {\n${body(61)}\n  }\n}`,
    `const o = { inner: function (x) {\n${body(61)}\n} };`,
  ].join('\n');
  const found = longFunctions(src).map(({ name, lines }) => `${name} ${lines}`);
  assert.deepEqual(found, ['tooLong 61', 'method 61', 'inner 61']);
});
