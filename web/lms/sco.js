// The SCO page's first module (the page `npx ffn-lab scorm` writes): connects to the LMS and restores the learner's
// progress before the next script defines <ffn-exercise>. Its settings are the JSON of <script id="ffn-lab-sco">.
import { connectScorm } from './connect.js';

function settings() {
  try {
    const s = JSON.parse(document.getElementById('ffn-lab-sco')?.textContent || '{}');
    return s && typeof s === 'object' ? s : {};
  } catch {
    return {};
  }
}

const { version, course } = settings();
/** The page's link to its LMS ({ connected, version, problems, storageKey, record, terminate }), for scripts. */
globalThis.ffnLabSco = connectScorm({ version: version || 'auto', course });
