// What the session was doing, in a real Chromium: the inbox names the session by its title and
// branch, the set in focus shows what Claude said before asking (shortened, expandable, as text);
// a hostile transcript_path gives nothing and the question is answered all the same; and a session
// that ends takes its questions out of the page, saying why.
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { claudeHome, freshPayload, type HookPayload } from '../stack/fixtures.js';
import { postAsHttpHook, postSessionEndAsHttpHook, sessionEndPayload } from '../stack/hook-client.js';
import { killStrayProcesses } from '../stack/processes.js';

const chromiumState = chromiumAvailability();

/** What Claude said before asking: long, with a terminal escape and right-to-left text in it. */
const SAID = `I looked at the orders service. ${'The schema has grown, and the reporting queries now scan the whole table. '.repeat(8)}\u001b[2J שלום ends here.`;

describe.skipIf(!chromiumState.available)('the session context in the page', () => {
  let daemon: Daemon;
  let claude: Awaited<ReturnType<typeof claudeHome>>;
  let projects: string;
  let hookKey: string;
  let browser: Browser;
  let paired: PairedPage;

  beforeAll(async () => {
    claude = await claudeHome();
    projects = claude.projects;
    daemon = await startDaemon({ env: { HOME: claude.home, ASKBRIDGE_LOG_LEVEL: 'debug' } });
    hookKey = daemon.hookKey();
    browser = await launchBrowser();
    paired = await openPairedPage(browser, daemon, { viewport: { width: 1280, height: 900 } });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
    await claude?.remove();
  });

  /** A transcript as Claude Code writes it: the first prompt, what Claude said, then the tool call. */
  function transcriptFor(payload: HookPayload): string {
    const common = { sessionId: payload.session_id, cwd: payload.cwd, gitBranch: 'feature/reporting', version: '2.1.330' };
    const lines = [
      { ...common, type: 'user', message: { role: 'user', content: 'Speed up the reporting page without new infrastructure' } },
      { ...common, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: SAID }] } },
      { ...common, type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: payload.tool_use_id, name: 'AskUserQuestion', input: payload.tool_input }] } },
    ];
    const path = join(projects, `${payload.session_id}.jsonl`);
    writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    return path;
  }

  it('shows the title and branch in the inbox, and what Claude said above the questions, shortened and expandable', async () => {
    const payload = { ...freshPayload('01-single-select', 'page-context'), session_id: 'c0ffee00-0000-4000-8000-000000000001' };
    const hook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: { ...payload, transcript_path: transcriptFor(payload) } });
    const view = await daemon.waitForAsk(payload.tool_use_id);
    const { page } = paired;
    const card = await openAsk(page, view.id);
    const group = page.locator('.group', { has: page.locator(`[data-ask-id="${view.id}"]`) });
    await expect.poll(() => group.locator('.group-about').textContent()).toBe('⎇ feature/reportingSpeed up the reporting page without new infrastructure');
    const said = card.locator('.said-text');
    await said.waitFor();
    const short = (await said.textContent()) ?? '';
    expect(short.length).toBeLessThan(300);
    expect(short.endsWith('…')).toBe(true);
    expect(await said.getAttribute('dir')).toBe('auto');
    await card.getByRole('button', { name: 'Show all' }).click();
    // The escape sequence is shown as a marker, as text; the rest reads as written.
    expect(await said.textContent()).toBe(SAID.replace('\u001b', '[U+001B]'));
    expect(await card.locator('.context-about .branch').textContent()).toContain('feature/reporting');
    // The transcript's path itself is never sent to a page.
    expect(JSON.stringify(await daemon.ask(view.id))).not.toContain(projects);

    await card.getByRole('radio', { name: 'SQLite', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();
    expect((await hook.response).statusCode).toBe(200);
  });

  it('gives no context for a transcript_path outside Claude Code’s projects folder, and the question is answered all the same', async () => {
    const payload = { ...freshPayload('01-single-select', 'page-context-hostile'), session_id: 'c0ffee00-0000-4000-8000-000000000002' };
    // Inside the projects folder, named as the session's transcript, but a link to a file far outside it.
    const link = join(projects, `${payload.session_id}.jsonl`);
    symlinkSync('/etc/passwd', link);
    const hook = postAsHttpHook({ port: daemon.port, key: hookKey, payload: { ...payload, transcript_path: link } });
    const view = await daemon.waitForAsk(payload.tool_use_id);
    const card = await openAsk(paired.page, view.id);
    const refused = await daemon.waitForLog((entry) => entry.msg === 'no session context' && entry.askId === view.id, 10_000, 'the reason there is no context');
    expect(refused.reason).toBe("outside Claude Code's projects folder");
    expect(await card.locator('.context').isHidden()).toBe(true);
    expect(await card.textContent()).not.toContain('root:');
    expect((await daemon.ask(view.id)).context).toBeUndefined();
    await card.getByRole('radio', { name: 'SQLite', exact: true }).check();
    await card.getByRole('button', { name: 'Submit', exact: true }).click();
    expect((await hook.response).statusCode).toBe(200);
  });

  it('takes the questions of a session that ended out of the page, and says why', async () => {
    const session = 'c0ffee00-0000-4000-8000-000000000003';
    const first = { ...freshPayload('01-single-select', 'page-session-end-1'), session_id: session };
    const second = { ...freshPayload('02-multi-select', 'page-session-end-2'), session_id: session };
    const hooks = [first, second].map((payload) => postAsHttpHook({ port: daemon.port, key: hookKey, payload }));
    const views = [await daemon.waitForAsk(first.tool_use_id), await daemon.waitForAsk(second.tool_use_id)];
    const { page } = paired;
    await openAsk(page, views[0]!.id);
    const ended = await postSessionEndAsHttpHook({ port: daemon.port, key: hookKey, payload: sessionEndPayload(session) });
    expect(ended.statusCode).toBe(200);
    for (const view of views) {
      const card = page.locator(`article[data-question-id="${view.id}"][data-status="cancelled"]`);
      await card.waitFor({ state: 'attached' });
      expect(await card.locator('.status-title').textContent()).toBe('Withdrawn: the session ended');
      expect(await page.locator(`[data-ask-id="${view.id}"]`).count()).toBe(0);
    }
    for (const hook of hooks) expect((await hook.response).body).toBe('');
    await expect.poll(() => page.locator('#empty').isVisible()).toBe(true);
  });
});
