// The TypeScript declarations of every entry point, resolved through package.json exports, type-check consumers
// (strict).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const project = fileURLToPath(new URL('../types/tsconfig.json', import.meta.url));

test(
  'the .d.ts of ffn-lab, ffn-lab/url, ffn-lab/components, ffn-lab/sandbox and ffn-lab/lms ' +
    'type-check their consumers (strict)',
  () => {
    let out = '';
    try {
      out = execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
    } catch (e) {
      assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`);
    }
    assert.equal(out.trim(), '');
  },
);

test(
  'every runtime export of every entry point (and of the component model namespaces) is declared in its ' +
    '.d.ts, and nothing declared is missing at run time (namespace members both ways)',
  async () => {
    const require = createRequire(import.meta.url);
    const ts = require('typescript');
    const entries = ['ffn-lab', 'ffn-lab/url', 'ffn-lab/components', 'ffn-lab/sandbox', 'ffn-lab/lms'];
    const file = fileURLToPath(new URL('../types/exports-probe.ts', import.meta.url));
    const source = entries.map((e, i) => `import * as m${i} from '${e}';\nexport { m${i} };`).join('\n');
    const options = {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    };
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    host.readFile = (f) => (f === file ? source : readFile(f));
    host.fileExists = (f) => f === file || fileExists(f);
    host.getSourceFile = (
      (get) =>
      (f, lang, ...rest) =>
        f === file ? ts.createSourceFile(f, source, lang) : get(f, lang, ...rest)
    )(host.getSourceFile.bind(host));
    const program = ts.createProgram([file], options, host);
    const checker = program.getTypeChecker();
    const sf = program.getSourceFile(file);
    const problems = [];
    for (const [i, entry] of entries.entries()) {
      const decl = sf.statements.filter(ts.isImportDeclaration)[i];
      const modSym = checker.getSymbolAtLocation(decl.moduleSpecifier);
      assert.ok(modSym, `${entry}: no declarations resolved`);
      const runtime = await import(entry);
      const resolve = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
      const declared = checker.getExportsOfModule(modSym).filter((s) => s.name !== 'default');
      const declaredValues = declared.filter((s) => resolve(s).flags & ts.SymbolFlags.Value).map((s) => s.name);
      const actual = Object.keys(runtime).filter((n) => n !== 'default');
      // a runtime value declared only as a type (an interface or alias) cannot be imported as a value: missing too
      const missing = actual.filter((n) => !declaredValues.includes(n));
      const extra = declaredValues.filter((n) => !actual.includes(n));
      if (missing.length) problems.push(`${entry}: exported but not declared: ${missing.join(', ')}`);
      if (extra.length) problems.push(`${entry}: declared but not exported: ${extra.join(', ')}`);
      // namespaces re-exported as objects (the component models): their members too
      for (const s of declared) {
        const value = runtime[s.name];
        const inner = resolve(s).exports;
        if (!value || typeof value !== 'object' || !(resolve(s).flags & ts.SymbolFlags.Namespace) || !inner) continue;
        const innerValues = [...inner.values()]
          .filter((m) => resolve(m).flags & ts.SymbolFlags.Value)
          .map((m) => m.name);
        const innerMissing = Object.keys(value).filter((n) => !innerValues.includes(n));
        const innerExtra = innerValues.filter((n) => !(n in value));
        if (innerMissing.length)
          problems.push(`${entry}: ${s.name}.${innerMissing.join(`, ${s.name}.`)} exported but not declared`);
        if (innerExtra.length)
          problems.push(`${entry}: ${s.name}.${innerExtra.join(`, ${s.name}.`)} declared but not exported`);
      }
    }
    assert.deepEqual(problems, []);
  },
);
