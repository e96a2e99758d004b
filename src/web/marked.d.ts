// The page imports marked's ES module as `./marked.js`, which the build bundles from the package into app.js (scripts/build-web.mjs).
export * from 'marked';
