// What the session was doing, in a real Chromium: the inbox names the session by its title and
// branch, the set in focus shows what Claude said before asking (shortened, expandable, as text);
// a hostile transcript_path gives nothing and the question is answered all the same; and a session
// that ends takes its questions out of the page, saying why.
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { claudeHome, freshPayload, type HookPayload } from '../stack/fixtures.js';
import { postAsHttpHook, postSessionEndAsHttpHook, sessionEndPayload } from '../stack/hook-client.js';
import { decisionOf, permissionPayload, requestPermission } from '../stack/approvals.js';
import { killStrayProcesses } from '../stack/processes.js';

const chromiumState = chromiumAvailability();

type Box = { name: string; x: number; y: number; width: number; height: number };

/** Each button's name and place on the page. */
async function boxesOf(buttons: Locator): Promise<Box[]> {
  const boxes: Box[] = [];
  for (const button of await buttons.all()) {
    const box = await button.boundingBox();
    if (box) boxes.push({ name: ((await button.textContent()) ?? '').trim(), ...box });
  }
  return boxes;
}

/** Whether two boxes share more than a sliver (a few pixels each way). */
function overlap(a: Box, b: Box): boolean {
  return Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 4 && Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 4;
}

/** What Claude said as a short list: a context as tall as its lines, moving the buttons below it by more than a button's height. */
const SAID_IN_LINES = 'What takes the space:\nnode_modules 2.1 GB\n.cache 800 MB\nold builds 300 MB\nNothing else is large.';

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

  it('a permission whose context arrives once it is on screen: a click where a button was, now on another, decides nothing; a moment later the buttons take clicks again', async () => {
    const sessionId = 'c0ffee00-0000-4000-8000-000000000004';
    const common = { sessionId, cwd: '/home/alice/projects/shop', gitBranch: 'feature/cleanup', version: '2.1.330' };
    const transcript = join(projects, `${sessionId}.jsonl`);
    writeFileSync(transcript, `${[
      { ...common, type: 'user', message: { role: 'user', content: 'Free some disk space' } },
      { ...common, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: SAID_IN_LINES }] } },
    ].map((line) => JSON.stringify(line)).join('\n')}\n`);

    // The page gets the context only when the test says: the card is on screen, laid out, first.
    let caught!: () => void;
    const contextCaught = new Promise<void>((resolve) => (caught = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const isContextOfSession = (message: string | Buffer) => {
      if (typeof message !== 'string') return false;
      const event = JSON.parse(message) as { type?: string; ask?: { sessionId?: string; context?: unknown } };
      return event.type === 'updated' && event.ask?.sessionId === sessionId && event.ask.context !== undefined;
    };
    const { page, context } = await openPairedPage(browser, daemon, {
      viewport: { width: 1280, height: 900 },
      async beforeNavigate(page) {
        await page.clock.install();
        await page.routeWebSocket(/\/ws$/, (route) => {
          const server = route.connectToServer();
          route.onMessage((message) => server.send(message));
          server.onMessage((message) => {
            if (!isContextOfSession(message)) return route.send(message);
            caught();
            void released.then(() => route.send(message));
          });
        });
      },
    });
    try {
      const held = await requestPermission(daemon, { ...permissionPayload(sessionId, 'Bash', { command: 'rm -rf ~/important', description: 'Clean up' }), transcript_path: transcript });
      const card = await openAsk(page, held.view.id);
      const decisions = card.locator('.card-form button.btn');
      await expect.poll(() => decisions.evaluateAll((buttons) => buttons.every((button) => !(button as HTMLButtonElement).disabled))).toBe(true);
      const before = await boxesOf(decisions);
      await contextCaught;
      // The page's time stands still from here: whatever the hold is, it cannot run out while the test looks.
      await page.clock.pauseAt(Date.now() + 1_000);
      release();
      await card.locator('.context .said-text').waitFor();
      const after = await boxesOf(decisions);
      // A point inside a button as it was, now inside another: where a pointer aimed at the first lands.
      const slid = before.flatMap((was) => after.filter((now) => now.name !== was.name && overlap(was, now)).map((now) => ({ aimedAt: was.name, lands: now.name, x: (Math.max(was.x, now.x) + Math.min(was.x + was.width, now.x + now.width)) / 2, y: (Math.max(was.y, now.y) + Math.min(was.y + was.height, now.y + now.height)) / 2 })))[0];
      expect(slid, `a button moved under another's place: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`).toBeDefined();
      await page.mouse.click(slid!.x, slid!.y);
      expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'pending' });
      expect(await card.getByRole('button', { name: slid!.lands, exact: true }).isDisabled()).toBe(true);

      // Well past the hold (src/web/decision-hold.js).
      await page.clock.runFor(1_000);
      await card.getByRole('button', { name: 'Deny', exact: true }).click();
      expect(await decisionOf(held)).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'deny' } } });
    } finally {
      await context.close();
    }
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
