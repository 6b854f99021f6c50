// Rollup, as a course site would configure it: node-resolve for packages, ES modules into dist/.
import { nodeResolve } from '@rollup/plugin-node-resolve';

export default {
  input: 'src/main.js',
  output: { dir: 'dist', format: 'es' },
  plugins: [nodeResolve({ browser: true })],
};
