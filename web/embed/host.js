// For a page that shows ffn-lab's embed pages in iframes (an LMS page): one <script src=".../embed/host.js"></script>
// sizes each such iframe to the height its page reports, and fires `ffn-lab-result` on the iframe for each exercise
// result its page reports. Results are accepted from host.js's own origin (where the embed pages are), or with
// data-origins="https://a.example https://b.example" on the script from those origins only (heights too, then).
(() => {
  if (window.ffnLabEmbedHost) return; // loaded twice: one listener is enough
  const script = document.currentScript;
  const listed = (script && script.dataset.origins ? script.dataset.origins : '').split(/\s+/).filter(Boolean);
  const own = script && script.src ? new URL(script.src, location.href).origin : location.origin;
  const origins = new Set(listed.length ? listed : [own]); // whose results are accepted
  window.ffnLabEmbedHost = { origins };
  const MAX_PX = 20000;
  const ID = /^[\w-]{1,64}$/;
  const count = (v) => (Number.isInteger(v) && v >= 0 && v <= 1e6 ? v : 0);
  /** the iframe of this page whose window sent the message, or null (another frame, a popup, this page) */
  const frameOf = (source) => {
    for (const frame of document.querySelectorAll('iframe')) if (frame.contentWindow === source) return frame;
    return null;
  };
  /** a result message -> the event's detail: the documented fields only, checked; null when it is not one */
  const resultDetail = (m) => {
    if (typeof m.exercise !== 'string' || !ID.test(m.exercise) || typeof m.passed !== 'boolean') return null;
    const tests = m.tests && typeof m.tests === 'object' ? m.tests : {};
    const diagnoses = Array.isArray(m.diagnoses) ? m.diagnoses.slice(0, 20) : [];
    return {
      id: typeof m.id === 'string' && /^[\w.:-]{1,64}$/.test(m.id) ? m.id : null,
      exercise: m.exercise,
      passed: m.passed,
      tests: { passed: count(tests.passed), total: count(tests.total) },
      diagnoses: diagnoses.filter((d) => typeof d === 'string' && ID.test(d)),
      timestamp: typeof m.timestamp === 'string' ? m.timestamp.slice(0, 40) : '',
    };
  };
  window.addEventListener('message', (ev) => {
    const m = ev.data;
    if (!m || typeof m !== 'object') return;
    if (listed.length && !origins.has(ev.origin)) return;
    const frame = frameOf(ev.source); // only the iframe whose page sent the message
    if (!frame) return;
    if (m.type === 'ffn-lab:height' && m.height > 0) {
      frame.style.height = `${Math.min(Math.ceil(m.height), MAX_PX)}px`;
    } else if (m.type === 'ffn-lab:result' && origins.has(ev.origin)) {
      const detail = resultDetail(m);
      if (detail) frame.dispatchEvent(new CustomEvent('ffn-lab-result', { detail, bubbles: true }));
    }
  });
})();
