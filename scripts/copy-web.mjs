// @ts-check
// Copies the answer page's static files next to the compiled daemon (dist/web), which serves them.
import { cpSync, rmSync } from 'node:fs';

const from = new URL('../src/web/', import.meta.url);
const to = new URL('../dist/web/', import.meta.url);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
