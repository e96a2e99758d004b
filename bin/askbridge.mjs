#!/usr/bin/env node
// @ts-check
// The `askbridge` command: runs the compiled CLI in dist/ (built by `npm install` / `npm run build`).
// It imports nothing an old Node lacks, checks the Node, and only then loads the rest.
import { existsSync } from 'node:fs';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode();

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('askbridge is not built yet: run `npm run build` in its folder\n');
  process.exit(1);
}
// A reader that stops early (`askbridge history | head`) closes the pipe: that ends the output, quietly.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
const { runCli } = await import(entry.href);
const code = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
// `start` returns while its server keeps the process alive.
if (code !== 0) process.exitCode = code;
