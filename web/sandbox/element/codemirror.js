// The CodeMirror 6 adapter of <ffn-exercise>: a site's own CodeMirror (its modules, its extensions) as the editor.

/*
 * ffn-lab imports no CodeMirror: the site hands over the modules it already loads, so there is one copy of
 * @codemirror/state on the page (two copies break CodeMirror's extensions) and the site keeps its own setup
 * (basicSetup or its pick of extensions, a theme, a language). The adapter adds what the element needs: the
 * learner's error line marked, Ctrl/Cmd+Enter running the tests (above any binding of the site's), the label and
 * description of the editing area, saving on change and on blur.
 */

const ERROR_LINE = 'cm-ffn-error-line';

/** The CodeMirror classes the adapter uses, from the site's modules; a TypeError naming any that is missing. */
function cmClasses(view, state) {
  const { EditorView, Decoration, keymap } = view || {};
  const { EditorState, StateField, StateEffect, Prec } = state || {};
  const cm = { EditorView, Decoration, keymap, EditorState, StateField, StateEffect, Prec };
  const missing = Object.entries(cm)
    .filter(([, v]) => typeof v !== 'function' && typeof v !== 'object')
    .map(([k]) => k);
  if (missing.length) {
    throw new TypeError(
      "codeMirrorEditor: pass { view, state }: the site's @codemirror/view and @codemirror/state modules; " +
        `missing ${missing.join(', ')}`,
    );
  }
  return cm;
}

/** The learner's error line: the effect that sets it (a 1-based line, or null) and the field that draws it. */
function errorLineField({ EditorView, Decoration, StateField, StateEffect }) {
  const setError = StateEffect.define();
  const errorLine = StateField.define({
    create: () => Decoration.none,
    update(deco, tr) {
      let d = deco.map(tr.changes);
      for (const e of tr.effects) {
        if (!e.is(setError)) continue;
        const line = e.value;
        d = Decoration.none;
        if (line !== null && line >= 1 && line <= tr.state.doc.lines) {
          const from = tr.state.doc.line(line).from;
          d = Decoration.set([Decoration.line({ class: ERROR_LINE }).range(from)]);
        }
      }
      return d;
    },
    provide: (f) => EditorView.decorations.from(f),
  });
  return { setError, errorLine };
}

/** The element's editor around a CodeMirror view: { root, view, value, focus(), goTo(), markLine(), destroy() }. */
function editorOf(root, cmView, setError) {
  return {
    root,
    view: cmView,
    get value() {
      return cmView.state.doc.toString();
    },
    set value(v) {
      cmView.dispatch({ changes: { from: 0, to: cmView.state.doc.length, insert: v }, effects: setError.of(null) });
    },
    focus() {
      cmView.focus();
    },
    /** Put the caret at a 1-based line and column, in view. */
    goTo(line, column = 1) {
      const d = cmView.state.doc;
      const l = d.line(Math.max(1, Math.min(d.lines, line)));
      const pos = l.from + Math.max(0, Math.min(column - 1, l.length));
      cmView.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
      cmView.focus();
    },
    /** Mark one line (the line of an error), or none. */
    markLine(line) {
      cmView.dispatch({ effects: setError.of(line || null) });
    },
    destroy() {
      cmView.destroy();
    },
  };
}

/**
 * codeMirrorEditor({ view, state, extensions }) -> an editor for <ffn-exercise> (`element.editor = ...`, or the
 * `editor` option of mountExercise). `view` is the site's @codemirror/view module (EditorView, Decoration, keymap)
 * and `state` its @codemirror/state module (EditorState, StateField, StateEffect, Prec); `extensions` are the
 * site's (for example [basicSetup, javascript()] from codemirror and @codemirror/lang-javascript).
 */
export function codeMirrorEditor({ view, state, extensions = [] } = {}) {
  const cm = cmClasses(view, state);
  const { EditorView, EditorState, Prec, keymap } = cm;
  const { setError, errorLine } = errorLineField(cm);
  return Object.freeze({
    kind: 'codemirror',
    /** Called by the element: { root, value, focus(), goTo(line, column), markLine(line), destroy() }. */
    create(doc, { value = '', label = 'Code', describedBy, onRun, onChange, onBlur, root: shadow } = {}) {
      const root = doc.createElement('div');
      root.className = 'editor cm';
      root.setAttribute('part', 'editor');
      const attrs = { 'aria-label': label };
      if (describedBy) attrs['aria-describedby'] = describedBy;
      const cmView = new EditorView({
        parent: root,
        root: shadow || undefined, // CodeMirror mounts its styles in the element's shadow root
        state: EditorState.create({
          doc: value,
          extensions: [
            Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (onRun && onRun(), true) }])),
            extensions,
            errorLine,
            EditorView.contentAttributes.of(attrs),
            EditorView.updateListener.of((u) => {
              if (u.docChanged && onChange) onChange(u.state.doc.toString());
            }),
            EditorView.domEventHandlers({ blur: () => (onBlur && onBlur(), false) }),
          ],
        }),
      });
      return editorOf(root, cmView, setError);
    },
  });
}
