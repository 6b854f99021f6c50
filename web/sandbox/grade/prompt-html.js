// Prompt HTML: an allow-list parser (checked at definition) and a renderer that builds DOM nodes, never innerHTML.

/*
 * A prompt may hold only the elements below, with only the attributes listed for each. Everything else is a
 * problem at definition time (defineExercise throws, naming `prompt`), and is dropped with its content if it
 * ever reaches the renderer. The renderer creates elements, attributes and text nodes one by one, so nothing
 * in a prompt is ever parsed as HTML by the browser: no script, no event handler, no style, no URL other than
 * http:, https:, mailto: or a relative one.
 */
export const PROMPT_ELEMENTS = Object.freeze({
  p: [],
  br: [],
  em: [],
  strong: [],
  b: [],
  i: [],
  u: [],
  s: [],
  small: [],
  code: [],
  pre: [],
  kbd: [],
  var: [],
  samp: [],
  sub: [],
  sup: [],
  span: [],
  ul: [],
  ol: ['start'],
  li: [],
  blockquote: [],
  dl: [],
  dt: [],
  dd: [],
  h4: [],
  h5: [],
  h6: [],
  hr: [],
  table: [],
  caption: [],
  thead: [],
  tbody: [],
  tr: [],
  th: ['colspan', 'rowspan'],
  td: ['colspan', 'rowspan'],
  a: ['href', 'title'],
  abbr: ['title'],
});

const VOID = new Set(['br', 'hr']);
// Elements whose content is not markup: skipped whole up to their end tag.
const RAW = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
  'plaintext',
]);
const MAX_PROMPT_CHARS = 20000;
const MAX_PROBLEMS = 10;

const ENTITIES = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  times: '×',
  minus: '−',
  le: '≤',
  ge: '≥',
  ne: '≠',
  middot: '·',
  rarr: '→',
  larr: '←',
  deg: '°',
  asymp: '≈',
  sup2: '²',
  sup3: '³',
  frac12: '½',
  plusmn: '±',
  sum: '∑',
  prod: '∏',
  radic: '√',
  infin: '∞',
  thinsp: '\u2009',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  alpha: 'α',
  beta: 'β',
  sigma: 'σ',
  phi: 'φ',
  Phi: 'Φ',
};

function decode(text, problems) {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z][a-z0-9]{1,9});?/gi, (m, body) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
        ? String.fromCodePoint(code)
        : '\ufffd';
    }
    if (Object.prototype.hasOwnProperty.call(ENTITIES, body)) return ENTITIES[body];
    if (problems && m.endsWith(';')) problems.push(`unknown character reference ${m.slice(0, 20)}`);
    return m;
  });
}

const show = (s) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** Whether a decoded href is safe: http(s), mailto, or relative (no scheme at all). */
function safeHref(value) {
  // URL parsers drop ASCII tab and newline anywhere and leading/trailing spaces and controls: judge what they see.
  // eslint-disable-next-line no-control-regex
  const seen = value.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(seen);
  return !scheme || ['http', 'https', 'mailto'].includes(scheme[1].toLowerCase());
}

function checkAttribute(tag, name, value, problems) {
  if (!PROMPT_ELEMENTS[tag].includes(name)) {
    problems.push(
      `the attribute ${show(name)} on <${tag}> is not allowed (allowed: ${PROMPT_ELEMENTS[tag].join(', ') || 'none'})`,
    );
    return false;
  }
  if (name === 'href' && !safeHref(value)) {
    problems.push(`the link ${show(value)} is not allowed: only http:, https:, mailto: and relative links`);
    return false;
  }
  if ((name === 'colspan' || name === 'rowspan' || name === 'start') && !/^[0-9]{1,4}$/.test(value)) {
    problems.push(`${name}=${show(value)} on <${tag}> must be a whole number`);
    return false;
  }
  return true;
}

/** Read the attributes of a start tag from `i` (after its name); returns { attrs, end, selfClosing } or null. */
function readAttributes(html, i, tag, problems) {
  const attrs = [];
  const allowed = tag !== null;
  for (;;) {
    while (i < html.length && /[\s/]/.test(html[i]) && !(html[i] === '/' && html[i + 1] === '>')) i++;
    if (i >= html.length) return null;
    if (html[i] === '>') return { attrs, end: i + 1 };
    if (html[i] === '/' && html[i + 1] === '>') return { attrs, end: i + 2 };
    const nameMatch = /^[^\s"'>/=]+/.exec(html.slice(i, i + 200));
    if (!nameMatch) return null;
    const name = nameMatch[0].toLowerCase();
    i += nameMatch[0].length;
    while (i < html.length && /\s/.test(html[i])) i++;
    let value = '';
    if (html[i] === '=') {
      i++;
      while (i < html.length && /\s/.test(html[i])) i++;
      const q = html[i];
      if (q === '"' || q === "'") {
        const close = html.indexOf(q, i + 1);
        if (close < 0) return null;
        value = html.slice(i + 1, close);
        i = close + 1;
      } else {
        const m = /^[^\s>]*/.exec(html.slice(i));
        value = m[0];
        i += value.length;
      }
    }
    value = decode(value, null);
    if (allowed && checkAttribute(tag, name, value, problems)) attrs.push([name, value]);
  }
}

// The parse's state: the html, the position i, the pending text, the open elements (stack) and the problems.
const STOP = 'stop';
const top = (p) => p.stack[p.stack.length - 1];

function append(p, node) {
  const t = top(p);
  if (!t.dropped) t.children.push(node);
}

function flush(p) {
  if (p.text) append(p, decode(p.text, p.problems));
  p.text = '';
}

/** A comment at p.i: skipped (STOP when it is never closed). */
function readComment(p) {
  flush(p);
  const close = p.html.indexOf('-->', p.i + 4);
  if (close < 0) {
    p.problems.push('a comment <!-- is never closed');
    return STOP;
  }
  p.i = close + 3;
  return null;
}

/** An end tag at p.i: closes the innermost open element of its name (true), or false when there is none. */
function readEndTag(p) {
  const end = /^<\/([a-z][a-z0-9]*)\s*>/i.exec(p.html.slice(p.i, p.i + 80));
  if (!end) return false;
  flush(p);
  const tag = end[1].toLowerCase();
  p.i += end[0].length;
  const at = p.stack.map((s) => s.tag).lastIndexOf(tag);
  if (at <= 0) {
    if (!VOID.has(tag)) p.problems.push(`</${tag}> closes nothing that is open`);
    return true;
  }
  for (const s of p.stack.slice(at + 1)) p.problems.push(`<${s.tag}> is not closed before </${tag}>`);
  p.stack.length = at;
  return true;
}

/** A "<" at p.i that starts no tag: a declaration or processing instruction (refused), or a lone "<" (text). */
function readOther(p) {
  const { html, i } = p;
  if (html[i + 1] === '!' || html[i + 1] === '?' || html[i + 1] === '/') {
    p.problems.push(`${show(html.slice(i, i + 12))} is not allowed`);
    const close = html.indexOf('>', i);
    p.i = close < 0 ? html.length : close + 1;
    return;
  }
  p.text += '<'; // a lone "<" is text, as in "a < b"
  p.i++;
}

/** A tag at p.i: an end tag, a start tag (its element opened, kept when allowed) or another "<". */
function readTag(p) {
  if (readEndTag(p)) return null;
  const start = /^<([a-z][a-z0-9-]*)/i.exec(p.html.slice(p.i, p.i + 80));
  if (!start) return readOther(p);
  flush(p);
  const tag = start[1].toLowerCase();
  const known = Object.prototype.hasOwnProperty.call(PROMPT_ELEMENTS, tag);
  const allowed = known && !top(p).dropped;
  if (!known) p.problems.push(`<${tag}> is not allowed`);
  const read = readAttributes(p.html, p.i + start[0].length, allowed ? tag : null, p.problems);
  if (!read) {
    p.problems.push(`the tag <${tag} is never closed with >`);
    return STOP;
  }
  p.i = read.end;
  if (RAW.has(tag)) {
    const close = p.html.toLowerCase().indexOf(`</${tag}`, p.i);
    p.i = close < 0 ? p.html.length : p.html.indexOf('>', close) + 1 || p.html.length;
  } else if (VOID.has(tag)) {
    if (allowed) append(p, { tag, attrs: read.attrs, children: [] });
  } else {
    const node = { tag, attrs: read.attrs, children: [], dropped: !allowed };
    append(p, node);
    p.stack.push(node);
  }
  return null;
}

/**
 * Parse prompt HTML against the allow-list. Returns { nodes, problems }: nodes are strings (text) and
 * { tag, attrs: [[name, value]], children } for allowed elements only; problems name what was not allowed.
 */
export function parsePromptHtml(html) {
  if (typeof html !== 'string') return { nodes: [], problems: ['it must be a string of HTML'] };
  const root = { tag: null, children: [] };
  const p = { html, i: 0, text: '', stack: [root], problems: [] };
  if (html.length > MAX_PROMPT_CHARS)
    p.problems.push(`it has ${html.length} characters; the limit is ${MAX_PROMPT_CHARS}`);
  while (p.i < html.length && p.problems.length < MAX_PROBLEMS) {
    if (html[p.i] !== '<') p.text += html[p.i++];
    else if ((html.startsWith('<!--', p.i) ? readComment(p) : readTag(p)) === STOP) break;
  }
  flush(p);
  for (const s of p.stack.slice(1)) if (!s.dropped) p.problems.push(`<${s.tag}> is not closed`);
  const strip = (n) => (typeof n === 'string' ? n : { tag: n.tag, attrs: n.attrs, children: n.children.map(strip) });
  return { nodes: root.children.map(strip), problems: p.problems.slice(0, MAX_PROBLEMS) };
}

/** Build the prompt's DOM in `doc` from the allow-listed parse: a DocumentFragment of created nodes. */
export function renderPromptHtml(doc, html) {
  const frag = doc.createDocumentFragment();
  const build = (parent, node) => {
    if (typeof node === 'string') {
      parent.append(doc.createTextNode(node));
      return;
    }
    if (!Object.prototype.hasOwnProperty.call(PROMPT_ELEMENTS, node.tag)) return;
    const e = doc.createElement(node.tag);
    for (const [name, value] of node.attrs) {
      if (PROMPT_ELEMENTS[node.tag].includes(name) && (name !== 'href' || safeHref(value))) e.setAttribute(name, value);
    }
    if (node.tag === 'a') {
      e.setAttribute('target', '_blank');
      e.setAttribute('rel', 'noopener noreferrer');
    }
    for (const child of node.children) build(e, child);
    parent.append(e);
  };
  for (const node of parsePromptHtml(html).nodes) build(frag, node);
  return frag;
}
