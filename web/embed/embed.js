// Standalone embed pages: copy allowed URL query parameters onto the page's one element (before the page's next script
// registers it) and report the page's height to a parent frame (web/embed/host.js sizes the iframe from it).
const el = document.querySelector('[data-embed]');
const allowed = (el?.dataset.embed || '').split(/\s+/).filter(Boolean);
const params = new URLSearchParams(location.search);
for (const name of allowed) {
  const v = params.get(name);
  if (v !== null) el.setAttribute(name, v);
}
if (params.get('theme') === 'dark' || params.get('theme') === 'light') {
  el.setAttribute('theme', params.get('theme'));
  document.documentElement.dataset.theme = params.get('theme');
}
// Tell an embedding page how tall we are, so it can size the iframe (message: { type: 'ffn-lab:height', height, id }):
// from the element's ffn-ready on (the page is only a few pixels tall before), then on every change.
if (window.parent !== window && typeof ResizeObserver === 'function' && el) {
  let last = 0;
  let live = false;
  const report = () => {
    const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (live && h !== last) {
      last = h;
      window.parent.postMessage({ type: 'ffn-lab:height', height: h, id: params.get('id') }, '*');
    }
  };
  el.addEventListener('ffn-ready', () => {
    live = true;
    report();
  }, { once: true });
  new ResizeObserver(report).observe(document.documentElement);
}
