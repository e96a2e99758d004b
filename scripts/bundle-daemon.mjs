// @ts-check
// Bundles the compiled daemon into one file, in place: dist/daemon/main.js (as tsc wrote it) and
// every module it imports, askbridge's own and its dependencies', become that one dist/daemon/main.js.
// The daemon starts on the user's path (the SessionStart hook starts it), and Node spends a good part
// of that start finding, reading and compiling some 600 files one by one. `npm run build` runs this
// after tsc; a build by tsc alone still runs, unbundled.
//
// What the daemon loads only when asked, with import(), is bundled apart, one file per package in
// dist/daemon/lazy/, loaded when it is: the log writers of one mode or the other (pino-roll in the
// background, pino-pretty on a terminal), the OpenAPI document's @fastify/swagger, web-push (the
// first push), and chokidar (once the daemon has started). The compilers that fastify would build
// by default stay out altogether: askbridge gives it zod's (app.ts), so nothing calls them (were
// something to, they would still load from node_modules).
//
// zod's translations of its messages into some 50 languages (half of zod's code) stay out too:
// askbridge's messages are English, zod's default, which zod imports on its own.
//
// The modules' own files are found from the package root (src/package-root.ts), which a bundle
// does not move.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../dist/daemon/main.js', import.meta.url));
const LAZY_DIR = fileURLToPath(new URL('../dist/daemon/lazy/', import.meta.url));
const MARK = '// askbridge: the daemon, bundled';

/** Each package the daemon imports only with import(), and its file in dist/daemon/lazy/. */
const LAZY = { 'pino-roll': 'pino-roll', 'pino-pretty': 'pino-pretty', '@fastify/swagger': 'fastify-swagger', 'web-push': 'web-push', chokidar: 'chokidar' };

/** Never called (see above): left to node_modules. */
const NEVER_LOADED = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'];

/** The CommonJS packages inside require Node's own modules with require(). */
const requireBanner = (what) => `${MARK}: ${what} (scripts/bundle-daemon.mjs)\nimport { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);`;

/** @type {import('esbuild').Plugin} */
const zodInEnglishOnly = {
  name: 'zod-in-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: dirname(args.path),
    }));
  },
};

/** The daemon's import() of a lazy package loads its own bundle; a static import of one fails the build. */
/** @type {import('esbuild').Plugin} */
const lazyPackagesApart = {
  name: 'lazy-packages-apart',
  setup(build) {
    const names = new RegExp(`^(${Object.keys(LAZY).map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`);
    build.onResolve({ filter: names }, (args) => {
      if (args.kind !== 'dynamic-import') return { errors: [{ text: `${args.path} is bundled apart, to be loaded when asked: import it with import(), or take it out of LAZY` }] };
      return { path: `./lazy/${LAZY[/** @type {keyof typeof LAZY} */ (args.path)]}.js`, external: true };
    });
  },
};

if (readFileSync(ENTRY, 'utf8').startsWith(MARK)) {
  throw new Error(`${ENTRY} is already the bundle: run tsc (npm run build) to make it anew`);
}

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  external: NEVER_LOADED,
  // Less source to read, scan and keep in memory (V8 keeps a script's source as long as the script
  // lives); names are kept, for readable stack traces. The source map leads into src/*.ts (through
  // tsc's own maps) and node_modules, for a stack trace read with --enable-source-maps.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  // The packages' licence comments go to a file beside the bundle, and the bundle stays ASCII only:
  // a single other character anywhere makes V8 keep the whole source at two bytes a character.
  legalComments: 'linked',
  charset: 'ascii',
  write: false,
  logLevel: 'warning',
};

const [daemon, lazy] = await Promise.all([
  build({ ...common, entryPoints: [ENTRY], outfile: ENTRY, allowOverwrite: true, banner: { js: requireBanner('the daemon') }, plugins: [zodInEnglishOnly, lazyPackagesApart] }),
  build({
    ...common,
    entryPoints: Object.entries(LAZY).map(([name, file]) => ({ in: fileURLToPath(import.meta.resolve(name)), out: file })),
    outdir: LAZY_DIR,
    banner: { js: requireBanner('a package it loads when asked') },
  }),
]);
rmSync(LAZY_DIR, { recursive: true, force: true });
mkdirSync(LAZY_DIR);
for (const file of [...(daemon.outputFiles ?? []), ...(lazy.outputFiles ?? [])]) {
  if (file.path.endsWith('.js') && file.contents.some((byte) => byte > 0x7f)) throw new Error(`${file.path} is not ASCII only (see charset above)`);
  writeFileSync(file.path, file.contents);
}
