// The MCP form checks run in the answer page as they are, in a real Chromium: src/elicitation-form.ts
// bundled for the browser as scripts/build-web.mjs bundles the page (esbuild, one ES module; a Node
// import would fail the bundle), served under the page's own Content-Security-Policy (no eval, Trusted
// Types), gives the page exactly the daemon's answers, and its patterns stay linear there too.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/daemon/routes/page.js';
import * as daemonSide from '../../src/elicitation-form.js';
import { chromiumAvailability, launchBrowser } from '../stack/browser.js';

const chromiumState = chromiumAvailability();
const ORIGIN = 'http://askbridge.test';
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/elicitation/${name}`, import.meta.url), 'utf8'));

/** The module as the page's build would bundle it: its imports (re2js) included, for a browser. */
async function bundleForThePage(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('../../src/elicitation-form.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

type PageWindow = { elicitationForm: typeof daemonSide; violations: string[] };

/** Schemas and answers, each read and checked on both sides. */
const CASES: Array<{ schema: unknown; content: unknown }> = [
  { schema: fixture('every-kind.json'), content: { branch: 'release/2.0', rowLimit: 1000, environment: 'prod', checks: ['unit'], freezeAt: '2026-12-31T18:30:00Z' } },
  { schema: fixture('every-kind.json'), content: { branch: 'main', rowLimit: 5000, homepage: 'nowhere', releaseDate: '2026-02-30', checks: ['lint', 'lint'] } },
  { schema: fixture('contact.json'), content: { name: 'Ada', email: 'ada@', age: 17 } },
  { schema: { type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } }, content: {} },
  { schema: { type: 'object', properties: { address: { type: 'object', properties: {} } } }, content: {} },
  { schema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"required":["constructor"]}'), content: JSON.parse('{"__proto__":"x"}') },
];

function bothWays(form: typeof daemonSide, schema: unknown, content: unknown) {
  const reading = form.readFormSchema(schema);
  return { reading, check: reading.ok ? form.checkFormContent(reading.form, content) : null };
}

describe.skipIf(!chromiumState.available)('the MCP form checks in the answer page', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const bundle = await bundleForThePage();
    browser = await launchBrowser();
    page = await browser.newPage();
    const files: Record<string, { type: string; body: string }> = {
      '/': { type: 'text/html', body: '<!doctype html><title>forms</title><script type="module" src="/probe.js"></script>' },
      // The page's own way in: a module of its origin imports the form module; no inline script.
      '/probe.js': {
        type: 'text/javascript',
        body: "window.violations = []; document.addEventListener('securitypolicyviolation', (event) => window.violations.push(event.violatedDirective)); import('./elicitation-form.js').then((form) => { window.elicitationForm = form; });",
      },
      '/elicitation-form.js': { type: 'text/javascript', body: bundle },
    };
    await page.route(`${ORIGIN}/**`, (route) => {
      const file = files[new URL(route.request().url()).pathname];
      if (file === undefined) return route.fulfill({ status: 404 });
      return route.fulfill({ status: 200, contentType: file.type, headers: { 'content-security-policy': CONTENT_SECURITY_POLICY }, body: file.body });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => (window as unknown as PageWindow).elicitationForm !== undefined);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('reads every schema and checks every answer exactly as the daemon does, under the page’s CSP', async () => {
    // As JSON text both ways, as the page gets it: playwright's own serialisation drops a key named __proto__.
    const inPageJson = await page.evaluate((casesJson) => {
      const { elicitationForm: form } = window as unknown as PageWindow;
      const cases = JSON.parse(casesJson) as Array<{ schema: unknown; content: unknown }>;
      return JSON.stringify(
        cases.map(({ schema, content }) => {
          const reading = form.readFormSchema(schema);
          return { reading, check: reading.ok ? form.checkFormContent(reading.form, content) : null };
        }),
      );
    }, JSON.stringify(CASES));
    expect(inPageJson).toBe(JSON.stringify(CASES.map(({ schema, content }) => bothWays(daemonSide, schema, content))));
    const inPage = JSON.parse(inPageJson) as Array<ReturnType<typeof bothWays>>;
    // The cases hold refusals and failed checks, so equal answers are not empty ones.
    expect(inPage.filter((result) => !result.reading.ok)).toHaveLength(2);
    expect(inPage.filter((result) => result.check?.ok === false)).toHaveLength(3);
    expect(await page.evaluate(() => (window as unknown as PageWindow).violations)).toEqual([]);
  });

  it('matches a catastrophic pattern against a long text in linear time in the page too', async () => {
    const outcome = await page.evaluate(() => {
      const { elicitationForm: form } = window as unknown as PageWindow;
      const reading = form.readFormSchema({ type: 'object', properties: { x: { type: 'string', title: 'Code', pattern: '(a+)+$' } } });
      if (!reading.ok) return { reading };
      const started = performance.now();
      const check = form.checkFormContent(reading.form, { x: `${'a'.repeat(9_999)}!` });
      return { check, ms: performance.now() - started };
    });
    expect(outcome.check).toEqual({ ok: false, errors: [{ field: 'x', message: 'Code: must match the pattern (a+)+$' }] });
    // The browser's own RegExp would take about 2^10000 steps here.
    expect(outcome.ms).toBeLessThan(2_000);
  });
});
