// Wires the demo course page (web/index.html): registers the components and, when present, the exercise sandbox.
import './index.js';
