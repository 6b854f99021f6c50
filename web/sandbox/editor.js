// A small <textarea> code editor: monospace, line numbers, Tab/Shift+Tab indent, auto-indent, Ctrl/Cmd+Enter runs, Escape then Tab leaves.

const INDENT = '  ';

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
 * createEditor(doc, { value, label, describedBy, onRun, onChange }) -> { root, textarea, value, focus(), goTo(line, col), markLine(line|null) }
 */
export function createEditor(doc, { value = '', label = 'Code', describedBy, onRun, onChange } = {}) {
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

  let lines = 0;
  let marked = null;
  const renderGutter = () => {
    const n = ta.value.split('\n').length;
    if (n === lines) return;
    lines = n;
    const frag = doc.createDocumentFragment();
    for (let i = 1; i <= n; i++) {
      const s = doc.createElement('span');
      s.textContent = String(i);
      if (i === marked) s.className = 'marked';
      frag.append(s);
    }
    gutter.replaceChildren(frag);
    gutter.scrollTop = ta.scrollTop;
  };
  renderGutter();

  let tabReleased = false;
  ta.addEventListener('input', () => {
    renderGutter();
    if (onChange) onChange(ta.value);
  });
  ta.addEventListener('scroll', () => {
    gutter.scrollTop = ta.scrollTop;
  });
  ta.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      if (onRun) onRun();
      return;
    }
    if (ev.key === 'Escape') {
      tabReleased = true; // the next Tab moves focus instead of indenting
      return;
    }
    if (ev.key === 'Tab' && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      if (tabReleased) {
        tabReleased = false;
        return;
      }
      ev.preventDefault();
      const text = ta.value;
      const start = ta.selectionStart;
      const end = ta.selectionEnd;
      const multi = text.slice(start, end).includes('\n');
      if (!ev.shiftKey && !multi) {
        insertText(ta, INDENT);
        return;
      }
      // Indent or outdent every selected line.
      const from = lineStart(text, start);
      const block = text.slice(from, end);
      const changed = block
        .split('\n')
        .map((l) => (ev.shiftKey ? l.replace(/^ {1,2}|^\t/, '') : INDENT + l))
        .join('\n');
      ta.setSelectionRange(from, end);
      insertText(ta, changed);
      ta.setSelectionRange(from, from + changed.length);
      return;
    }
    tabReleased = false;
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.altKey) {
      // Keep the current line's indentation, one level deeper after an opening bracket.
      const text = ta.value;
      const from = lineStart(text, ta.selectionStart);
      const current = text.slice(from, ta.selectionStart);
      const indent = /^[ \t]*/.exec(current)[0];
      const extra = /[{[(]\s*$/.test(current) ? INDENT : '';
      ev.preventDefault();
      insertText(ta, '\n' + indent + extra);
    }
  });

  return {
    root,
    textarea: ta,
    get value() {
      return ta.value;
    },
    set value(v) {
      ta.value = v;
      renderGutter();
    },
    focus() {
      ta.focus();
    },
    /** Put the caret at a 1-based line and column. */
    goTo(line, column = 1) {
      const all = ta.value.split('\n');
      let pos = 0;
      for (let i = 0; i < Math.min(line - 1, all.length); i++) pos += all[i].length + 1;
      pos += Math.max(0, Math.min(column - 1, (all[line - 1] || '').length));
      ta.focus();
      ta.setSelectionRange(pos, pos);
    },
    /** Highlight one line number in the gutter (the line of an error), or none. */
    markLine(line) {
      marked = line || null;
      lines = 0;
      renderGutter();
    },
  };
}
