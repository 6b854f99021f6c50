// The embed pages' URL query read within bounds: which parameters become the element's attributes, and what is refused.

/** The longest query read (presets of 16,000 JSON characters fit percent-encoded) and the longest `id` sent back. */
export const EMBED_LIMITS = Object.freeze({ query: 65_536, id: 64 });

const ID_RE = /^[\w.:-]+$/;
const quote = (s) =>
  s.length > 40 ? `${JSON.stringify(s.slice(0, 40))}… (${s.length} characters)` : JSON.stringify(s);

/**
 * Read `search` (location.search) for an embed page whose element takes the attributes named in `allowed`.
 * Returns { attributes: [[name, value]], theme: 'dark' | 'light' | null, id: string | null, problems: [text] }:
 * the query's length is checked before it is parsed (longer: nothing is applied), each allowed name is looked up
 * once (the element's own parser checks its value), `theme` must be dark or light, `id` (echoed in the height
 * messages) at most 64 letters, digits and `_ . : -`. A problem is a short English line for the page to show.
 */
export function readEmbedParams(search, allowed) {
  const out = { attributes: [], theme: null, id: null, problems: [] };
  const q = typeof search === 'string' ? search : '';
  if (q.length > EMBED_LIMITS.query) {
    out.problems.push(
      `The URL's query is ${q.length} characters long; at most ${EMBED_LIMITS.query} are read: ` +
        'its parameters were ignored.',
    );
    return out;
  }
  const params = new URLSearchParams(q);
  for (const name of allowed) {
    const v = params.get(name);
    if (v !== null) out.attributes.push([name, v]);
  }
  const theme = params.get('theme');
  if (theme === 'dark' || theme === 'light') out.theme = theme;
  else if (theme !== null) out.problems.push(`theme=${quote(theme)} is not "dark" or "light"; it was ignored.`);
  const id = params.get('id');
  if (id !== null) {
    if (id.length <= EMBED_LIMITS.id && ID_RE.test(id)) out.id = id;
    else {
      out.problems.push(
        `id=${quote(id)} is not 1 to ${EMBED_LIMITS.id} letters, digits, "_", ".", ":" or "-"; ` +
          'the height messages carry no id.',
      );
    }
  }
  return out;
}
