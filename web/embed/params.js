// The embed pages' URL query read within bounds: which parameters become the element's attributes, and what is refused.
import { msg, numeral, LANG_TAG } from '../i18n/index.js';

/** The longest query read (presets of 16,000 JSON characters fit percent-encoded) and the longest `id` sent back. */
export const EMBED_LIMITS = Object.freeze({ query: 65_536, id: 64, lang: 35 });

const ID_RE = /^[\w.:-]+$/;
const quote = (s) =>
  s.length > 40
    ? msg('errors.quoteCut', { text: JSON.stringify(s.slice(0, 40)), n: numeral(s.length) })
    : JSON.stringify(s);

/**
 * Read `search` (location.search) for an embed page whose element takes the attributes named in `allowed`.
 * Returns { attributes: [[name, value]], theme: 'dark' | 'light' | null, id: string | null, lang: string | null,
 * problems: [message] }: the query's length is checked before it is parsed (longer: nothing is
 * applied), each allowed name is looked up once (the element's own parser checks its value), `theme` must be dark
 * or light, `id` (echoed in the height messages) at most 64 letters, digits and `_ . : -`, `lang` (the page's
 * language) a language tag of at most 35 characters. A problem is a message (embed.* in web/i18n/en.js) for the
 * page to show in its language; its String() is the short English line.
 */
export function readEmbedParams(search, allowed) {
  const out = { attributes: [], theme: null, id: null, lang: null, problems: [] };
  const problem = (key, params) => out.problems.push(msg(`embed.${key}`, params));
  const q = typeof search === 'string' ? search : '';
  if (q.length > EMBED_LIMITS.query) {
    problem('queryTooLong', { n: numeral(q.length), max: numeral(EMBED_LIMITS.query) });
    return out;
  }
  const params = new URLSearchParams(q);
  for (const name of allowed) {
    const v = params.get(name);
    if (v !== null) out.attributes.push([name, v]);
  }
  const theme = params.get('theme');
  if (theme === 'dark' || theme === 'light') out.theme = theme;
  else if (theme !== null) problem('theme', { value: quote(theme) });
  const id = params.get('id');
  if (id !== null) {
    if (id.length <= EMBED_LIMITS.id && ID_RE.test(id)) out.id = id;
    else problem('id', { value: quote(id), max: numeral(EMBED_LIMITS.id) });
  }
  const lang = params.get('lang');
  if (lang !== null) {
    if (lang.length <= EMBED_LIMITS.lang && LANG_TAG.test(lang)) out.lang = lang;
    else problem('lang', { value: quote(lang) });
  }
  return out;
}
