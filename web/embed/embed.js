// Standalone embed pages: register the components, copy allowed URL query parameters onto the element, and report the height to a parent frame.
import '../components/index.js';

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

// Tell an embedding page how tall we are, so it can size the iframe (message: { type: 'ffn-lab:height', height }).
if (window.parent !== window && typeof ResizeObserver === 'function') {
  let last = 0;
  new ResizeObserver(() => {
    const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h !== last) {
      last = h;
      window.parent.postMessage({ type: 'ffn-lab:height', height: h, id: params.get('id') }, '*');
    }
  }).observe(document.documentElement);
}
