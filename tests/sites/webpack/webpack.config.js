// webpack 5, as a course site would configure it: one entry, production mode, output in dist/.
export default {
  mode: 'production',
  entry: './src/index.js',
  output: { path: new URL('./dist', import.meta.url).pathname, filename: 'main.js', clean: true },
};
