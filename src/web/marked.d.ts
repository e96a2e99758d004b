// The page imports marked's ES module as `/marked.js`, which the daemon serves from the package (routes/page.ts).
export * from 'marked';
