// The module map, enforced: which folder of src/ may import which, and no import cycle anywhere,
// type-only imports included. Imports are read from the source text (every `import … from`,
// `export … from` and `import('…')` of a relative path), so a new cycle fails here, by name.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

type Import = { module: string; jsdocType: boolean };

/** The packages a file imports by name (`fastify`, `@fastify/websocket`, `node:fs`…), dynamic imports included. */
function packagesOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^'./][^']*)'|import\(\s*'([^'./][^']*)'\s*\)/g)].map((match) => (match[1] ?? match[2])!);
}

/**
 * Every relative module a file imports, as a path under src/ (`.js` in an import names the `.ts`
 * file, unless a `.js` file is there: the page's own modules). `jsdocType`: a type the page takes
 * in a JSDoc comment (`{import('../protocol.js').AskView}`), erased before it runs.
 */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'|(\{\s*)?import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)];
  return found.map((match) => {
    const target = resolve(dirname(file), match[1] ?? match[3]!);
    // The page's `./marked.js` is a library the build bundles from its package, declared by marked.d.ts.
    const declared = target.replace(/\.js$/, '.d.ts');
    const module = relative(SRC, existsSync(target) ? target : existsSync(declared) ? declared : target.replace(/\.js$/, '.ts'));
    return { module, jsdocType: match[2] !== undefined };
  });
}

const imports = new Map(sourceFiles(SRC).map((file) => [relative(SRC, file), importsOf(file)]));
const graph = new Map([...imports].map(([module, list]) => [module, list.map((entry) => entry.module)]));
const folderOf = (module: string) => (module.includes('/') ? module.slice(0, module.indexOf('/')) : '.');

/**
 * What each folder may import (`.` is the shared code at the top of src/: wire shapes, answers,
 * config, state directory). Shared code imports only shared code. `store` is the shared store
 * (PostgreSQL): the daemon and the CLI both connect to it.
 */
const ALLOWED: Record<string, string[]> = {
  '.': ['.'],
  daemon: ['.', 'daemon', 'store'],
  cli: ['.', 'cli', 'store'],
  store: ['.', 'store'],
  web: ['web'],
  types: [],
};
/**
 * The CLI's few ways into the daemon's folder, each for a reason: `start` runs the keeper (which
 * runs the daemon as its child), and checks its lock; the client proves the daemon's identity as the
 * hook does; `logs` reads the daemon's log files.
 */
const CLI_INTO_DAEMON = ['daemon/keeper.ts', 'daemon/lock.ts', 'daemon/hook-identity.ts', 'daemon/logger.ts'];

/**
 * The shared modules written to run in the page as well, so that page and daemon check with one
 * implementation: each imports no other module of askbridge and no package but those listed here.
 */
const RUNS_IN_THE_PAGE: Record<string, string[]> = { 'elicitation-form.ts': ['re2js'], 'two-people.ts': [] };

/** The HTTP layer: the only modules that may import fastify or one of its plugins. */
const HTTP_LAYER = (module: string) => module.startsWith('daemon/routes/') || module === 'daemon/app.ts' || module === 'daemon/main.ts';
const FASTIFY = /^(fastify($|\/)|@fastify\/|fastify-)/;
/** Claude Code's decision format: made in decisions/, asked for by what each hook event means (hook-events.ts), written only by the routes of Claude Code's hooks. */
const CLAUDE_CODE_DECISION = 'daemon/decisions/claude-code.ts';
const CLAUDE_CODE_TRANSPORTS = ['daemon/hook-events.ts', 'daemon/routes/hook.ts'];

describe('the module map', () => {
  it('reads a real graph (every module found, imports resolved to files that exist)', () => {
    expect(graph.size).toBeGreaterThan(30);
    expect(graph.get('daemon/app.ts')).toContain('daemon/routes/hook.ts');
    for (const [module, imports] of graph) for (const imported of imports) expect(graph.has(imported) || imported === 'web/marked.d.ts', `${module} imports ${imported}`).toBe(true);
  });

  it('keeps every folder to what it may import', () => {
    const wrong: string[] = [];
    for (const [module, list] of imports) {
      const from = folderOf(module);
      for (const { module: imported, jsdocType } of list) {
        const to = folderOf(imported);
        if (ALLOWED[from]?.includes(to)) continue;
        if (from === 'cli' && CLI_INTO_DAEMON.includes(imported)) continue;
        // The page runs alone in a browser: it may take types from shared code, and run only the shared modules written for it.
        if (from === 'web' && to === '.' && (jsdocType || Object.hasOwn(RUNS_IN_THE_PAGE, imported))) continue;
        wrong.push(`${module} -> ${imported}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the shared modules the page may run free of Node, zod and the rest of askbridge', () => {
    for (const [module, packages] of Object.entries(RUNS_IN_THE_PAGE)) {
      expect(graph.get(module), module).toEqual([]);
      expect(packagesOf(join(SRC, module)), module).toEqual(packages);
    }
  });

  it('keeps the routes from importing app.ts', () => {
    const wrong = [...graph].flatMap(([module, list]) => (module.startsWith('daemon/routes/') && list.includes('daemon/app.ts') ? [`${module} -> daemon/app.ts`] : []));
    expect(wrong).toEqual([]);
  });

  it('keeps fastify to the HTTP layer: routes/, app.ts and main.ts', () => {
    const wrong = [...graph.keys()].flatMap((module) => packagesOf(join(SRC, module)).filter((name) => FASTIFY.test(name) && !HTTP_LAYER(module)).map((name) => `${module} -> ${name}`));
    expect(wrong).toEqual([]);
    // The check reads real imports: the routes do import fastify's types.
    expect(packagesOf(join(SRC, 'daemon/routes/hook.ts')).some((name) => FASTIFY.test(name))).toBe(true);
  });

  it("keeps Claude Code's decision format to its module and the transports that write it", () => {
    const importers = [...graph].flatMap(([module, list]) => (list.includes(CLAUDE_CODE_DECISION) ? [module] : []));
    expect(importers).toEqual(CLAUDE_CODE_TRANSPORTS);
  });

  it("keeps opencode's format to its module and the one place that makes a relayed ask", () => {
    const importers = [...graph].flatMap(([module, list]) => (list.includes('daemon/decisions/opencode.ts') ? [module] : []));
    expect(importers).toEqual(['daemon/decisions/relayed.ts']);
  });

  it("keeps Codex's question format to its module and the one place that makes a relayed ask", () => {
    const importers = [...graph].flatMap(([module, list]) => (list.includes('daemon/decisions/codex-questions.ts') ? [module] : []));
    expect(importers).toEqual(['daemon/decisions/relayed.ts']);
  });

  it('keeps the ask lifecycle (asks/) neutral: no HTTP, no transport, no client format', () => {
    const wrong = [...graph].flatMap(([module, list]) =>
      module.startsWith('daemon/asks/') ? list.filter((imported) => imported.startsWith('daemon/routes/') || imported.startsWith('daemon/decisions/') || imported === 'daemon/app.ts').map((imported) => `${module} -> ${imported}`) : [],
    );
    expect(wrong).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (module: string, path: string[]) => {
      if (state.get(module) === 'done') return;
      if (state.get(module) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(module)), module].join(' -> '));
        return;
      }
      state.set(module, 'visiting');
      for (const imported of graph.get(module) ?? []) visit(imported, [...path, module]);
      state.set(module, 'done');
    };
    for (const module of graph.keys()) visit(module, []);
    expect(cycles).toEqual([]);
  });
});
