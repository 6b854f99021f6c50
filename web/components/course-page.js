// Wires the demo course page (web/index.html): registers the three components and the <ffn-exercise> sandbox element.
import './index.js';
import '../sandbox/ffn-exercise.js';
