// @ts-check
// Builds the answer page into dist/web, which the daemon serves: the page's ES modules and marked's
// lexer become one script, app.js (esbuild), and the other files are copied as they are. One script
// instead of some twenty saves a round trip and a set of response headers for each: the first load
// is half what it was. The service worker stays its own file (a worker is registered by its URL).
// Not minified: gzip takes most of what minifying would, and the page stays readable in a browser.
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const from = new URL('../src/web/', import.meta.url);
const to = new URL('../dist/web/', import.meta.url);
/** marked's ES module, which the page imports as `./marked.js` (src/web/marked.d.ts declares it). */
const MARKED = createRequire(import.meta.url).resolve('marked').replace(/[^/\\]+$/, 'marked.esm.js');

/** @type {import('esbuild').Plugin} */
const markedFromItsPackage = {
  name: 'marked-from-its-package',
  setup(build) {
    build.onResolve({ filter: /^\.\/marked\.js$/ }, () => ({ path: MARKED }));
  },
};

rmSync(to, { recursive: true, force: true });
// The modules end up in app.js; marked.d.ts only types them.
const isBundled = (/** @type {string} */ name) => (name.endsWith('.js') && name !== 'sw.js') || name.endsWith('.d.ts');
for (const name of readdirSync(from)) if (!isBundled(name)) cpSync(new URL(name, from), new URL(name, to), { recursive: true });
await build({
  entryPoints: [fileURLToPath(new URL('app.js', from))],
  outfile: fileURLToPath(new URL('app.js', to)),
  bundle: true,
  format: 'esm',
  // marked's source map comment names a file that is not served.
  sourcemap: false,
  legalComments: 'eof',
  logLevel: 'warning',
  plugins: [markedFromItsPackage],
});
