// Styles a shadow root with a constructable stylesheet of its document's window (or a <style> element), again after a move to another document.

const made = new WeakMap(); // a window's CSSStyleSheet constructor -> Map(css text -> sheet)
const ours = new WeakSet(); // the sheets made here

/**
 * Style root (a shadow root) with css for the document its host is in now. Where the browser has
 * constructable stylesheets, one sheet per window and css text is shared by every root (a host page's
 * CSP then needs no 'unsafe-inline' in style-src); elsewhere a <style> element carries the css.
 * A sheet can only be adopted in the document whose window made it, and a host moved to another
 * document (an iframe's, a popup's) loses it: call this again from the element's adoptedCallback.
 */
export function styleShadow(root, css) {
  for (const c of root.children) if (c.localName === 'style' && c.hasAttribute('data-ffn-style')) return; // moves with the root
  const doc = root.ownerDocument;
  const Sheet = doc.defaultView?.CSSStyleSheet;
  if (typeof Sheet === 'function' && 'adoptedStyleSheets' in root && 'replaceSync' in Sheet.prototype) {
    try {
      let byCss = made.get(Sheet);
      if (!byCss) made.set(Sheet, (byCss = new Map()));
      let sheet = byCss.get(css);
      if (!sheet) {
        sheet = new Sheet();
        sheet.replaceSync(css);
        ours.add(sheet);
        byCss.set(css, sheet);
      }
      root.adoptedStyleSheets = [...root.adoptedStyleSheets.filter((s) => !ours.has(s)), sheet];
      return;
    } catch { /* fall through to <style> */ }
  }
  const style = doc.createElement('style');
  style.setAttribute('data-ffn-style', '');
  style.textContent = css;
  root.prepend(style);
}
