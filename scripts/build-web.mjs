// @ts-check
// Builds the answer page into dist/web, which the daemon serves: the page's ES modules and marked's
// lexer become one script, app.js (esbuild), and the other files are copied as they are. The checks
// of an MCP form's values are a second script, form-checks.js, which app.js imports only when a form
// arrives: their pattern engine would more than double the first load. One script
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
const formChecksApart = {
  name: 'form-checks-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/form-checks\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './form-checks.js', external: true } : undefined));
  },
};

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
const common = /** @type {const} */ ({ bundle: true, format: 'esm', sourcemap: false, legalComments: 'eof', logLevel: 'warning' });
// marked's source map comment names a file that is not served: no source maps.
await build({ ...common, entryPoints: [fileURLToPath(new URL('app.js', from))], outfile: fileURLToPath(new URL('app.js', to)), plugins: [markedFromItsPackage, formChecksApart] });
await build({ ...common, entryPoints: [fileURLToPath(new URL('form-checks.js', from))], outfile: fileURLToPath(new URL('form-checks.js', to)) });
