// @ts-check
// Bundles the compiled daemon into one file: dist/daemon/main.js (as tsc wrote it) and every module
// it imports, askbridge's own and its dependencies', become dist/daemon/bundle.cjs, and main.js
// becomes a few lines that run it (through src/daemon/code-cache.ts, with a V8 code cache) and
// export what it exports. The daemon starts on the user's path (the SessionStart hook starts it),
// and Node spent a good part of that start finding, reading and compiling some 600 files one by
// one. `npm run build` runs this after tsc; a build by tsc alone still runs, unbundled.
//
// The bundle is CommonJS because only a script compiled with vm.Script can be given a code cache
// in Node 20. It holds no import(): a function that V8 took from a code cache has lost what import()
// needs (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), so the daemon's import() calls become require().
//
// What the daemon loads only when asked, with import(), is bundled apart, one file per package in
// dist/daemon/lazy/, loaded when it is: the log writers of one mode or the other (pino-roll in the
// background, pino-pretty on a terminal), the OpenAPI document's @fastify/swagger, web-push (the
// first push), chokidar (once the daemon serves), and pg (only with a shared store set). The compilers that fastify would build by
// default stay out altogether: askbridge gives it zod's (app.ts), so nothing calls them (were
// something to, they would still load from node_modules).
//
// zod's translations of its messages into some 50 languages (half of zod's code) stay out too:
// askbridge's messages are English, zod's default, which zod imports on its own.
//
// The modules' own files are found from the package root (src/package-root.ts), which a bundle
// does not move.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../dist/daemon/main.js', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../dist/daemon/bundle.cjs', import.meta.url));
const LAZY_DIR = fileURLToPath(new URL('../dist/daemon/lazy/', import.meta.url));
const MARK = '// askbridge: the daemon, bundled';

/** Each package the daemon imports only with import(), and its file in dist/daemon/lazy/. */
const LAZY = { 'pino-roll': 'pino-roll', 'pino-pretty': 'pino-pretty', '@fastify/swagger': 'fastify-swagger', 'web-push': 'web-push', chokidar: 'chokidar', grammy: 'grammy', pg: 'pg' };

/**
 * Never called (see above): left to node_modules. pg's native binding and its Cloudflare Workers
 * socket are loaded only when asked for (pg.native) or on that runtime: askbridge does neither.
 */
const NEVER_LOADED = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'pg-native', 'pg-cloudflare'];

/** How long after the daemon serves its code cache is written, when it had none: out of the way of the first questions. */
const SAVE_CACHE_AFTER_SERVING_MS = 500;

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
      return { path: `./lazy/${LAZY[/** @type {keyof typeof LAZY} */ (args.path)]}.cjs`, external: true };
    });
  },
};

if (readFileSync(ENTRY, 'utf8').startsWith(MARK)) {
  throw new Error(`${ENTRY} is already the bundle's loader: run tsc (npm run build) to make it anew`);
}

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.19',
  external: NEVER_LOADED,
  // import() becomes require() (see above).
  supported: { 'dynamic-import': false },
  // What the modules' import.meta.url says: the bundle's own file.
  define: { 'import.meta.url': 'bundleUrl' },
  // Strict throughout, as the ES modules inside were written for (and as they ran, bundled as one).
  banner: { js: `'use strict';\n${MARK} (scripts/bundle-daemon.mjs)\nvar bundleUrl = require('node:url').pathToFileURL(__filename).href;` },
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

const [daemon, lazy, entry] = await Promise.all([
  build({ ...common, entryPoints: [ENTRY], outfile: BUNDLE, plugins: [zodInEnglishOnly, lazyPackagesApart] }),
  build({ ...common, entryPoints: Object.entries(LAZY).map(([name, file]) => ({ in: fileURLToPath(import.meta.resolve(name)), out: file })), outdir: LAZY_DIR, outExtension: { '.js': '.cjs' } }),
  // Only to read the names main.js exports.
  build({ entryPoints: [ENTRY], bundle: false, format: 'esm', metafile: true, write: false, logLevel: 'warning' }),
]);

// With write: false, esbuild hands the files back instead of writing them.
const outputs = [...(daemon.outputFiles ?? []), ...(lazy.outputFiles ?? [])];
for (const file of outputs) {
  if (file.path.endsWith('.cjs') && file.contents.some((byte) => byte > 0x7f)) throw new Error(`${file.path} is not ASCII only (see charset above)`);
}
const bundle = outputs.find((file) => file.path === BUNDLE);
if (!bundle) throw new Error('esbuild wrote no bundle');
const exported = Object.values(entry.metafile?.outputs ?? {})[0]?.exports ?? [];
if (!exported.includes('runDaemonChild')) throw new Error(`${ENTRY} exports no runDaemonChild`);
const others = exported.filter((name) => name !== 'runDaemonChild');
const buildId = createHash('sha256').update(bundle.contents).digest('base64url').slice(0, 22);

const loader = `${MARK}: it runs in bundle.cjs (scripts/bundle-daemon.mjs).
import './v8-flags.js';
import { loadBundle } from './code-cache.js';

const bundle = loadBundle(new URL('./bundle.cjs', import.meta.url), '${buildId}', process.env);

export const { ${others.join(', ')} } = bundle.exports;

/** The bundle's own; once the daemon serves, and a moment later, the code cache is written for the next start (when this one had none). */
export async function runDaemonChild(options) {
  await bundle.exports.runDaemonChild(options);
  setTimeout(() => bundle.saveCache(), ${SAVE_CACHE_AFTER_SERVING_MS}).unref();
}
`;

rmSync(LAZY_DIR, { recursive: true, force: true });
mkdirSync(LAZY_DIR);
for (const file of outputs) writeFileSync(file.path, file.contents);
writeFileSync(ENTRY, loader);
rmSync(`${ENTRY}.map`, { force: true }); // tsc's map, of the module the loader replaced
