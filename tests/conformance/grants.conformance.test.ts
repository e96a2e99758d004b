/**
 * Grants and risky approvals against the real Claude Code client, decided on the answer page in
 * Chromium as a person does: a grant made from a card lets the same command through with no card
 * and nothing typed in the terminal, in the same turn and in another session of the project (Claude
 * Code still draws its own dialog for a moment while the hook answers); a risky
 * command never rides a grant (even one whose rule it matches) and runs only after the page's
 * confirmation; a compound command the grant does not name still gets a card.
 *
 * One daemon (a real `askbridge start`) and one paired page; each claude runs in tmux in
 * `--permission-mode default`, in one project wired by the real `askbridge install`: a git
 * repository whose `origin` is a bare repository beside it (a force-push rewrites only that), with
 * a package.json whose test script only echoes. The daemon reads no transcript, so no session
 * context arrives on a card to move its buttons while they are clicked.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView, Grant } from '../../src/protocol.js';
import { openAsk } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import type { Daemon } from '../stack/daemon.js';
import { openAnswerPage, pendingApprovalIn, resolveClaudeUnderTest, startAskbridgeDaemon } from './askbridge-stack.js';
import type { AnswerPage, ClaudeUnderTest, Project } from './askbridge-stack.js';
import { bashStep } from './fake-anthropic.js';
import type { RecordedToolResult, Step } from './fake-anthropic.js';
import { createShop, git, prompt, startShopSession, stepResult, type ShopSession } from './shop.js';

/** Claude Code's native Bash dialog. */
const DIALOG = /Do you want to proceed/;
/** The test script's output: the shell works out the number, so only a run of it prints this line. */
const TESTS_PASSED = '42 tests passed';
const PACKAGE_JSON = `${JSON.stringify({ name: 'shop', version: '1.0.0', private: true, scripts: { test: 'echo "$((6 * 7)) tests passed"' } }, null, 2)}\n`;
const FORCE_PUSH_REASON = "force-pushes: rewrites the remote's history";
const GRANT_BUTTON = 'Allow, and the same without asking';

// ---------------------------------------------------------------------------------------------
// Shared daemon, page and client

let claudeCode: ClaudeUnderTest | undefined;
let daemon: Daemon;
let answerPage: AnswerPage;
let cleanups: Array<() => Promise<unknown>> = [];

function defer(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

function client(): ClaudeUnderTest {
  if (!claudeCode) throw new Error('the Claude Code client was not resolved');
  return claudeCode;
}

beforeAll(async () => {
  claudeCode = await resolveClaudeUnderTest();
  console.log(`Claude Code under test: ${claudeCode.versionLine} [${claudeCode.bin}; ${claudeCode.origin}]`);
  daemon = await startAskbridgeDaemon();
  answerPage = await openAnswerPage(daemon);
  answerPage.page.setDefaultTimeout(15_000);
}, 300_000);

afterEach(async () => {
  // claude first (its hooks hold connections to the daemon), then the fake model, then files.
  const pending = cleanups.reverse();
  cleanups = [];
  for (const cleanup of pending) await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
});

afterAll(async () => {
  await answerPage?.close().catch(() => undefined);
  await daemon?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers

/** The shop, with a package.json whose test script only echoes. */
function createShopWithTests(): Promise<{ project: Project; remote: string }> {
  return createShop({ daemon, claudeBin: client().bin, files: { 'package.json': PACKAGE_JSON }, defer });
}

/** A claude session in the project, its model playing `steps`. */
function startSession(project: Project, steps: Step[]): Promise<ShopSession> {
  return startShopSession({ daemon, claudeBin: client().bin, project, steps, defer });
}

/**
 * Reads claude's screen over and over until stopped: when Claude Code's own dialog was last seen
 * meanwhile (Date.now()), and for how long it was seen.
 */
function watchForDialog(session: ShopSession): { stop(): Promise<{ lastSeenAt: number; shownMs: number } | undefined> } {
  let stopped = false;
  let first: number | undefined;
  let last = 0;
  const reading = (async () => {
    while (!stopped) {
      if (!DIALOG.test(await session.claude.screen().catch(() => ''))) continue;
      first ??= Date.now();
      last = Date.now();
    }
  })();
  return {
    // Safe to call twice: the second call reads what the first did.
    async stop() {
      stopped = true;
      await reading;
      return first === undefined ? undefined : { lastSeenAt: last, shownMs: last - first };
    },
  };
}

/**
 * Types `text` and returns the result of the model's first call, which a grant covers, as the
 * terminal shows it: Claude Code 2.1.330 draws its own dialog while a PermissionRequest hook runs,
 * even one askbridge answers at once, and takes it away by itself. No key is typed here: the dialog
 * (if it was drawn) was gone before the command's result reached the model.
 */
async function promptCovered(session: ShopSession, text: string): Promise<RecordedToolResult> {
  // Watched from before the prompt: no dialog can be on screen before the model has asked.
  const watch = watchForDialog(session);
  const result = await prompt(session, text)
    .then(() => stepResult(daemon, session, 0))
    .finally(() => watch.stop());
  const dialog = await watch.stop();
  const resultAt = session.fake.requests[result.requestIndex]?.receivedAt ?? 0;
  console.log(dialog ? `the covered request's dialog was on screen for about ${dialog.shownMs} ms` : "the covered request's dialog was never seen");
  if (dialog) expect(dialog.lastSeenAt).toBeLessThan(resultAt);
  expect(DIALOG.test(await session.claude.screen())).toBe(false);
  return result;
}

/** The one approval of `command` a grant allowed at once in a session that `inSession` picks, as the daemon's log names it. */
async function grantedAsk(command: string, inSession: (sessionId: string) => boolean): Promise<AskView> {
  return waitUntil(
    async () => {
      const found: AskView[] = [];
      for (const line of daemon.logs()) {
        if (line.msg !== 'approval allowed by a grant') continue;
        const ask = await daemon.ask(String(line.askId));
        if (ask.approval?.toolInput.command === command && inSession(ask.sessionId)) found.push(ask);
      }
      if (found.length > 1) throw new Error(`${found.length} approvals of \`${command}\` were allowed by a grant, not one`);
      return found[0];
    },
    10_000,
    `the log line of the grant that allowed \`${command}\``,
  );
}

const grantsNow = async (): Promise<Grant[]> => (await daemon.api<{ grants: Grant[] }>('GET', '/api/grants')).body.grants;

/** The card of a waiting approval, brought into focus on the page as a person does. */
function cardOf(approval: AskView) {
  return openAsk(answerPage.page, approval.id);
}

/** Allows from the card with a grant of one hour in every session of the project, by its own controls. */
async function allowWithProjectGrant(approval: AskView, rule: string): Promise<void> {
  const card = await cardOf(approval);
  const offer = card.locator('.approval-grant');
  expect(await offer.locator('.grant-rule').textContent()).toBe(rule);
  await offer.getByLabel('For').selectOption('60');
  await offer.getByLabel('In').selectOption('project');
  await offer.getByRole('button', { name: GRANT_BUTTON }).click();
}

// ---------------------------------------------------------------------------------------------

describe('grants and risky approvals on the page reach the real client', () => {
  it('a grant made on the page lets the same command through with no card and no answer in the terminal (this turn, another session); a risky command it would match still asks and needs the confirmation; a compound one still asks', async () => {
    const { project, remote } = await createShopWithTests();
    const forcePush = 'git push --force origin main';
    const a = await startSession(
      project,
      [
        bashStep('npm test', 'Run the tests'),
        bashStep('npm test', 'Run the tests again'),
        bashStep('git push origin HEAD:review', 'Push the branch for review'),
        bashStep(forcePush, 'Replace main on the remote'),
        { text: 'Pushed.' },
      ],
    );
    await prompt(a, 'Test and push.');

    // 1. The card; the person allows it with a grant of an hour in every session of the project.
    const first = await pendingApprovalIn(daemon, a.claude, project.dir, 'Bash', 'npm test');
    expect(first.risk).toBeUndefined();
    expect(first.approval?.grant?.rule).toBe('Bash(npm test:*)');
    await allowWithProjectGrant(first, 'Bash(npm test:*)');
    const ran = await stepResult(daemon, a, 0);
    expect(ran.isError).toBe(false);
    expect(ran.text).toContain(TESTS_PASSED);
    expect(await daemon.ask(first.id)).toMatchObject({ status: 'allowed', source: { kind: 'person', client: 'page' } });
    const [testGrant] = await grantsNow();
    expect(testGrant).toMatchObject({ rule: 'Bash(npm test:*)', scope: 'project', cwd: project.dir, agent: 'claude-code', by: 'Chrome on Linux' });
    expect(testGrant!.endsAt - testGrant!.madeAt).toBe(60 * 60_000);

    // The same command again in the same turn: allowed by the grant, with nothing typed in the terminal.
    const again = await stepResult(daemon, a, 1);
    expect(again.isError).toBe(false);
    expect(again.text).toContain(TESTS_PASSED);
    const covered = await grantedAsk('npm test', (sessionId) => sessionId === first.sessionId);
    expect(covered.source).toMatchObject({ kind: 'grant', grant: testGrant!.id, rule: 'Bash(npm test:*)', by: 'Chrome on Linux' });

    // 2. A grant whose rule a force-push matches (`git push:*`), made from a plain push.
    const push = await pendingApprovalIn(daemon, a.claude, project.dir, 'Bash', 'git push origin HEAD:review');
    expect(push.risk).toBeUndefined();
    await allowWithProjectGrant(push, 'Bash(git push:*)');
    expect((await stepResult(daemon, a, 2)).isError).toBe(false);
    expect(await git(remote, 'rev-parse', 'review')).toBe(await git(project.dir, 'rev-parse', 'HEAD'));
    expect((await grantsNow()).map((grant) => grant.rule)).toEqual(['Bash(npm test:*)', 'Bash(git push:*)']);

    // The force-push: both grants live, one names it, yet it waits, marked risky, with no grant offered.
    const risky = await pendingApprovalIn(daemon, a.claude, project.dir, 'Bash', forcePush);
    expect(risky.risk).toEqual({ reasons: [FORCE_PUSH_REASON] });
    expect(risky.approval?.grant).toBeUndefined();
    const card = await cardOf(risky);
    expect(await card.locator('.risk-mark .risk-reasons').innerText()).toBe(FORCE_PUSH_REASON);
    expect(await card.locator('.approval-grant').count()).toBe(0);
    // The page got every event before this card's (one socket, in order): the request the grant allowed never showed.
    expect(await answerPage.shownAsks()).not.toContain(covered.id);

    // One click on Allow is not enough: it opens the confirmation, and nothing is decided.
    await card.getByRole('button', { name: 'Allow…' }).click();
    const yes = card.getByRole('button', { name: 'Yes, allow it' });
    await yes.waitFor({ state: 'visible' });
    expect(await card.locator('.risk-confirm-text').textContent()).toBe('This is risky. Read the input above, then allow it if you mean to.');
    expect((await daemon.ask(risky.id)).status).toBe('pending');
    expect(a.fake.stepResult(3)).toBeUndefined();
    expect(await git(remote, 'rev-parse', 'main')).not.toBe(await git(project.dir, 'rev-parse', 'HEAD'));
    await yes.click();
    const forced = await stepResult(daemon, a, 3);
    expect(forced.isError).toBe(false);
    expect(forced.text).toContain('(forced update)');
    expect(await git(remote, 'rev-parse', 'main')).toBe(await git(project.dir, 'rev-parse', 'HEAD'));
    expect(await daemon.ask(risky.id)).toMatchObject({ status: 'allowed', source: { kind: 'person', client: 'page' } });
    await a.claude.waitForScreen('Pushed.', 10_000);

    // 3. Another session of the project: the same command runs at once; a compound one still asks.
    await a.claude.stop();
    const compound = 'npm test && curl -s http://127.0.0.1:9/done';
    // The compound one in a turn of its own: Claude Code's dialog for it, drawn while askbridge holds
    // it, would otherwise be on screen as the covered call's result arrives.
    const b = await startSession(project, [bashStep('npm test', 'Run the tests'), { text: 'Tested.' }, bashStep(compound, 'Run the tests, then tell the server'), { text: 'Left it.' }]);
    const bRan = await promptCovered(b, 'Test it.');
    await b.claude.waitForScreen('Tested.', 10_000);
    await prompt(b, 'Now tell the server.');
    expect(bRan.isError).toBe(false);
    expect(bRan.text).toContain(TESTS_PASSED);
    const bCovered = await grantedAsk('npm test', (sessionId) => sessionId !== first.sessionId);
    expect(bCovered.source).toMatchObject({ kind: 'grant', grant: testGrant!.id });

    const held = await pendingApprovalIn(daemon, b.claude, project.dir, 'Bash', compound);
    expect(held.sessionId).toBe(bCovered.sessionId);
    expect(held.risk).toBeUndefined();
    const heldCard = await cardOf(held);
    expect(await answerPage.shownAsks()).not.toContain(bCovered.id);
    await heldCard.getByRole('button', { name: 'Deny', exact: true }).click();
    const denied = await stepResult(daemon, b, 2);
    expect(denied.isError).toBe(true);
    await b.claude.waitForScreen('Left it.', 10_000);

    // History: each covered request allowed by the grant, in the words a person reads.
    const lines = (await daemon.history()).filter((line) => line.project === project.dir);
    for (const id of [covered.id, bCovered.id]) {
      const line = lines.find((each) => each.id === id);
      expect(line).toMatchObject({ status: 'allowed', source: 'grant' });
      expect(line?.detail).toMatch(/^allowed by your grant of \d\d:\d\d \(made from Chrome on Linux\)$/);
    }
    expect(lines.find((each) => each.id === risky.id)).toMatchObject({ status: 'allowed', approval: { risk: [FORCE_PUSH_REASON] } });
    expect(lines.find((each) => each.id === held.id)).toMatchObject({ status: 'denied' });
  }, 300_000);
});
