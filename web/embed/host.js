// For a page that shows ffn-lab's embed pages in iframes (an LMS page): one <script src=".../embed/host.js"></script>
// sizes each such iframe to the height its page reports.
(() => {
  if (window.ffnLabEmbedHost) return; // loaded twice: one listener is enough
  window.ffnLabEmbedHost = true;
  const MAX_PX = 20000;
  window.addEventListener('message', (ev) => {
    const m = ev.data;
    if (!m || typeof m !== 'object' || m.type !== 'ffn-lab:height' || !(m.height > 0)) return;
    // only the iframe whose page sent the message, and only its height
    for (const frame of document.querySelectorAll('iframe')) {
      if (frame.contentWindow === ev.source) {
        frame.style.height = `${Math.min(Math.ceil(m.height), MAX_PX)}px`;
        return;
      }
    }
  });
})();
