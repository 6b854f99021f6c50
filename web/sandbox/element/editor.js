// A small <textarea> code editor: monospace, line numbers, Tab/Shift+Tab indent, auto-indent, Ctrl/Cmd+Enter runs,
// Escape then Tab leaves.

const INDENT = '  ';
const FALLBACK_ROWS = 60; // gutter rows drawn before the editor is laid out (a ResizeObserver redraws it then)

function insertText(ta, text) {
  // execCommand keeps the browser's undo history; fall back to setRangeText where it is unavailable.
  ta.focus();
  let ok = false;
  try {
    ok = ta.ownerDocument.execCommand('insertText', false, text);
  } catch {
    ok = false;
  }
  if (!ok) {
    ta.setRangeText(text, ta.selectionStart, ta.selectionEnd, 'end');
    ta.dispatchEvent(new Event('input', { bubbles: true }));
  }
}

function lineStart(text, pos) {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/**
 * createEditor(doc, { value, label, describedBy, onRun, onChange, onBlur })
 *   -> { root, textarea, value, focus(), goTo(line, col), markLine(line|null), destroy() }
 * The same interface as an adapter's editor (codemirror.js): the element uses no other.
 */
export function createEditor(doc, { value = '', label = 'Code', describedBy, onRun, onChange, onBlur } = {}) {
  const { root, gutter, ta } = editorNodes(doc, value, label, describedBy);
  const lines = lineGutter(doc, ta, gutter);
  const keys = { tabReleased: false };
  ta.addEventListener('input', () => {
    lines.count();
    lines.render();
    if (onChange) onChange(ta.value);
  });
  ta.addEventListener('scroll', lines.render);
  if (onBlur) ta.addEventListener('blur', () => onBlur());
  ta.addEventListener('keydown', (ev) => onKey(ta, ev, keys, onRun));
  return {
    root,
    textarea: ta,
    get value() {
      return ta.value;
    },
    set value(v) {
      ta.value = v;
      lines.count();
      lines.render();
    },
    focus() {
      ta.focus();
    },
    /** Put the caret at a 1-based line and column. */
    goTo(line, column = 1) {
      const pos = offsetOf(ta.value, line, column);
      ta.focus();
      ta.setSelectionRange(pos, pos);
    },
    /** Highlight one line number in the gutter (the line of an error), or none. */
    markLine(line) {
      lines.mark(line || null);
    },
    destroy: lines.destroy,
  };
}

/** The editor's nodes: a root holding the gutter and the textarea (no spelling, no wrapping, labelled). */
function editorNodes(doc, value, label, describedBy) {
  const root = doc.createElement('div');
  root.className = 'editor';
  root.setAttribute('part', 'editor');
  const gutter = doc.createElement('div');
  gutter.className = 'gutter';
  gutter.setAttribute('part', 'gutter');
  gutter.setAttribute('aria-hidden', 'true');
  const ta = doc.createElement('textarea');
  ta.className = 'code';
  ta.setAttribute('part', 'code');
  ta.setAttribute('spellcheck', 'false');
  ta.setAttribute('autocapitalize', 'off');
  ta.setAttribute('autocomplete', 'off');
  ta.setAttribute('autocorrect', 'off');
  ta.setAttribute('wrap', 'off');
  ta.setAttribute('aria-label', label);
  if (describedBy) ta.setAttribute('aria-describedby', describedBy);
  ta.value = value;
  root.append(gutter, ta);
  return { root, gutter, ta };
}

/**
 * The gutter shows only the line numbers in view (a window of rows, moved as the code scrolls), so drawing it costs
 * the same for 10 lines or 100,000; counting the lines is one pass over the text. -> { count, render, mark, destroy }
 */
function lineGutter(doc, ta, gutter) {
  let lines = 1;
  let marked = null;
  let shown = ''; // first row, row count, digits and marked line of what the gutter holds
  const view = doc.defaultView;
  const count = () => {
    const text = ta.value;
    let n = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n += 1;
    lines = n;
  };
  const render = () => {
    const lh = view ? parseFloat(view.getComputedStyle(ta).lineHeight) : NaN;
    const laidOut = lh > 0 && ta.clientHeight > 0; // not yet in a document, or hidden: a fixed window
    const first = laidOut ? Math.floor(ta.scrollTop / lh) + 1 : 1;
    const rows = laidOut ? Math.ceil(ta.clientHeight / lh) + 2 : FALLBACK_ROWS;
    const digits = String(lines).length;
    const key = `${first},${rows},${digits},${Math.min(lines, first + rows)},${marked}`;
    if (key !== shown) {
      shown = key;
      const frag = doc.createDocumentFragment();
      for (let i = first; i < first + rows; i++) {
        const s = doc.createElement('span');
        s.textContent = i <= lines ? String(i).padStart(digits) : ' '; // padded: the width follows the last line
        if (i === marked) s.className = 'marked';
        frag.append(s);
      }
      gutter.replaceChildren(frag);
    }
    gutter.scrollTop = laidOut ? ta.scrollTop - (first - 1) * lh : ta.scrollTop;
  };
  count();
  render();
  const canObserve = view && typeof view.ResizeObserver === 'function';
  const resize = canObserve ? new view.ResizeObserver(() => render()) : null;
  if (resize) resize.observe(ta);
  const mark = (line) => {
    marked = line;
    render();
  };
  return { count, render, mark, destroy: () => resize && resize.disconnect() };
}

/** The editor's keys: Ctrl/Cmd+Enter runs, Escape releases the next Tab, Tab/Shift+Tab indent, Enter auto-indents. */
function onKey(ta, ev, keys, onRun) {
  if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
    ev.preventDefault();
    if (onRun) onRun();
    return;
  }
  if (ev.key === 'Escape') {
    keys.tabReleased = true; // the next Tab moves focus instead of indenting
    return;
  }
  if (ev.key === 'Tab' && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
    if (keys.tabReleased) {
      keys.tabReleased = false;
      return;
    }
    ev.preventDefault();
    indent(ta, ev.shiftKey);
    return;
  }
  keys.tabReleased = false;
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.altKey) {
    // Keep the current line's indentation, one level deeper after an opening bracket.
    const text = ta.value;
    const from = lineStart(text, ta.selectionStart);
    const current = text.slice(from, ta.selectionStart);
    const indentation = /^[ \t]*/.exec(current)[0];
    const extra = /[{[(]\s*$/.test(current) ? INDENT : '';
    ev.preventDefault();
    insertText(ta, '\n' + indentation + extra);
  }
}

/** Tab: an indent at the caret, or every selected line indented; Shift+Tab: every selected line outdented. */
function indent(ta, out) {
  const text = ta.value;
  const start = ta.selectionStart;
  const end = ta.selectionEnd;
  const multi = text.slice(start, end).includes('\n');
  if (!out && !multi) {
    insertText(ta, INDENT);
    return;
  }
  const from = lineStart(text, start);
  const block = text.slice(from, end);
  const changed = block
    .split('\n')
    .map((l) => (out ? l.replace(/^ {1,2}|^\t/, '') : INDENT + l))
    .join('\n');
  ta.setSelectionRange(from, end);
  insertText(ta, changed);
  ta.setSelectionRange(from, from + changed.length);
}

/** The offset of a 1-based line and column in `text` (the column clamped to the line, the line to the text). */
function offsetOf(text, line, column) {
  let pos = 0;
  for (let i = 1; i < line; i++) {
    const nl = text.indexOf('\n', pos);
    if (nl === -1) break;
    pos = nl + 1;
  }
  const end = text.indexOf('\n', pos);
  return pos + Math.max(0, Math.min(column - 1, (end === -1 ? text.length : end) - pos));
}

/** The built-in editor (a textarea with line numbers), as <ffn-exercise>'s `editor` takes it: the default. */
export const textareaEditor = Object.freeze({ kind: 'textarea', create: (doc, options) => createEditor(doc, options) });
