// @ts-check
// Bundles the compiled daemon into one file, in place: dist/daemon/main.js (as tsc wrote it) and
// every module it imports, askbridge's own and its dependencies', become that one dist/daemon/main.js.
// The daemon starts on the user's path (the SessionStart hook starts it), and Node spends a good part
// of that start finding, reading and compiling some 600 files one by one. `npm run build` runs this
// after tsc; a build by tsc alone still runs, unbundled.
//
// What the daemon loads only when asked stays out, loaded from node_modules when it is: the log
// writers of the other mode (pino-roll in the background, pino-pretty on a terminal), the OpenAPI
// document's @fastify/swagger, web-push (the first push), and chokidar (once the daemon has
// started). So do the compilers that fastify would build by default, which askbridge replaces with
// zod's (app.ts): fastify names them, nothing ever calls them.
//
// zod's translations of its messages into some 50 languages (half of zod's code) stay out too:
// askbridge's messages are English, zod's default, which zod imports on its own.
//
// The modules' own files are found from the package root (src/package-root.ts), which a bundle
// does not move.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../dist/daemon/main.js', import.meta.url));
const MARK = '// askbridge: the daemon, bundled';

/** Loaded on demand, from node_modules: see above. */
const LOADED_WHEN_ASKED = ['pino-roll', 'pino-pretty', '@fastify/swagger', 'web-push', 'chokidar', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'];

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

if (readFileSync(ENTRY, 'utf8').startsWith(MARK)) {
  throw new Error(`${ENTRY} is already the bundle: run tsc (npm run build) to make it anew`);
}

const result = await build({
  entryPoints: [ENTRY],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  external: LOADED_WHEN_ASKED,
  plugins: [zodInEnglishOnly],
  // The CommonJS packages inside require Node's modules, and the external ones, with require().
  banner: { js: `${MARK} (scripts/bundle-daemon.mjs)\nimport { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);` },
  // Maps into src/*.ts, through tsc's own maps, for a stack trace read with --enable-source-maps.
  sourcemap: 'linked',
  outfile: ENTRY,
  allowOverwrite: true,
  write: false,
  logLevel: 'warning',
});
for (const file of result.outputFiles) writeFileSync(file.path, file.contents);
