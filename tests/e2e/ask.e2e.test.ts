// `askbridge ask` as a script uses it: the real CLI process, the real daemon, and for the person, the
// real answer page in Chromium. Each way a question can end has its exit code.
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { killStrayProcesses, parseJson, runCli, startCli, type RunningProcess } from '../stack/processes.js';

const chromium = chromiumAvailability();
if (!chromium.available && process.env.CI) throw new Error(`the answer page tests need Chromium: ${chromium.reason}`);

const DEPLOY = ['--question', 'Deploy the release now?', '--header', 'Deploy', '--option', 'Ship it (Recommended): deploy at once', '--option', 'Wait: deploy after the freeze'];

let daemon: Daemon | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (chromium.available) browser = await launchBrowser();
});
afterEach(async () => {
  await killStrayProcesses();
  await daemon?.stop();
  daemon = undefined;
});
afterAll(async () => {
  await browser?.close();
});

/** Starts `askbridge ask ARGS` and returns once its question waits in the daemon. */
async function askAndWait(args: string[], stdin: string | null = null): Promise<{ asking: RunningProcess; question: AskView }> {
  const asking = startCli(['ask', ...args], daemon!.env, stdin);
  const question = await waitUntil(async () => (await daemon!.pending())[0], 10_000, 'the asked question to wait in the daemon');
  return { asking, question };
}

describe('askbridge ask', () => {
  it.skipIf(!chromium.available)('prints the answer chosen in the page and exits 0; the page shows which script asked', async () => {
    daemon = await startDaemon();
    const { page, context } = await openPairedPage(browser!, daemon);
    try {
      const { asking, question } = await askAndWait([...DEPLOY, '--name', 'nightly-release']);
      const card = page.locator(`article[data-question-id="${question.id}"]`);
      await expect.poll(async () => card.locator('.meta-line').textContent()).toContain('asked by the script nightly-release');
      // No terminal is behind a script: the page offers no hand-back, only Submit and Decline.
      expect(await card.getByRole('button', { name: 'Let the terminal answer' }).count()).toBe(0);
      expect(await card.getByRole('button', { name: 'Decline', exact: true }).count()).toBe(1);
      await card.getByRole('group', { name: 'Deploy the release now?' }).getByRole('radio', { name: 'Wait', exact: true }).check();
      await card.getByRole('button', { name: 'Submit', exact: true }).click();

      const result = await asking.result;
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('Wait\n');
      expect((await daemon.history()).at(-1)).toMatchObject({ id: question.id, asker: { kind: 'script', name: 'nightly-release' }, answers: { 'Deploy the release now?': 'Wait' } });
    } finally {
      await context.close();
    }
  });

  it('takes AskUserQuestion JSON on stdin with more than four questions (askMaxQuestions), and prints JSON with --json-output', async () => {
    daemon = await startDaemon({ config: { askMaxQuestions: 5 } });
    const questions = Array.from({ length: 5 }, (_, index) => ({ question: `Step ${index + 1}?`, header: `Step ${index + 1}`, multiSelect: index === 4, options: [{ label: 'Yes', description: '' }, { label: 'No', description: '' }] }));
    const { asking, question } = await askAndWait(['--json', '-', '--json-output'], JSON.stringify({ questions }));
    expect(question.questions).toHaveLength(5);
    const responses = questions.map((q, index) => ({ question: q.question, selected: index === 4 ? ['Yes', 'No'] : ['Yes'] }));
    expect((await daemon.api('POST', `/api/asks/${question.id}/answer`, { responses })).status).toBe(200);

    const result = await asking.result;
    expect(result.code).toBe(0);
    const printed = parseJson<{ status: string; answers: Record<string, string> }>(result.stdout, 'ask --json-output');
    expect(printed).toMatchObject({ status: 'answered', answers: { 'Step 1?': 'Yes', 'Step 5?': 'Yes, No' } });
  });

  it('exits 4 when the person declines', async () => {
    daemon = await startDaemon();
    const { asking, question } = await askAndWait(DEPLOY);
    expect((await daemon.api('POST', `/api/asks/${question.id}/decline`, {})).status).toBe(200);
    const result = await asking.result;
    expect(result).toMatchObject({ code: 4, stdout: '' });
    expect(result.stderr).toContain('declined: the person chose not to answer');
  });

  it('answers by the policy, and says no person chose it', async () => {
    daemon = await startDaemon({ config: { waitSeconds: 0, onTimeout: 'recommended' } });
    const result = await runCli(['ask', ...DEPLOY], daemon.env);
    expect(result).toMatchObject({ code: 0, stdout: 'Ship it (Recommended)\n' });
    expect(result.stderr).toContain('answered by the configuration (the recommended option), not by a person: nobody answered in time');
  });

  it('says what really happened when the policy acts at once: nobody was watching, not "in time"', async () => {
    daemon = await startDaemon();
    const result = await runCli(['ask', ...DEPLOY], { ...daemon.env, ASKBRIDGE_UNATTENDED: '1' });
    expect(result).toMatchObject({ code: 5, stdout: '' });
    expect(result.stderr).toBe('askbridge ask: nobody was watching when it was asked\n');
  });

  it("offers no terminal for a script's question: handing it back is refused and it keeps waiting; declining reaches the script as the person's", async () => {
    daemon = await startDaemon();
    const { asking, question } = await askAndWait(DEPLOY);
    const handBack = await daemon.api<{ error: { code: string } }>('POST', `/api/asks/${question.id}/terminal`);
    expect(handBack.status).toBe(409);
    expect(handBack.body).toMatchObject({ error: { code: 'no_terminal' } });
    expect((await daemon.ask(question.id)).status).toBe('pending');
    expect((await daemon.api('POST', `/api/asks/${question.id}/decline`)).status).toBe(200);
    const result = await asking.result;
    expect(result).toMatchObject({ code: 4, stdout: '' });
    expect(result.stderr).toBe('askbridge ask: declined: the person chose not to answer\n');
  });

  it('exits 5 when nobody answers within --timeout', async () => {
    daemon = await startDaemon();
    const result = await runCli(['ask', ...DEPLOY, '--timeout', '1'], daemon.env);
    expect(result, result.stderr).toMatchObject({ code: 5, stdout: '' });
    expect(result.stderr).toContain('nobody answered in time');
  });

  it('refuses a --timeout above the waitSeconds that applies, naming it and where it is set, with exit 2, and asks nothing; at the cap, it waits that long', async () => {
    daemon = await startDaemon({ config: { waitSeconds: 120 } });
    const userConfig = `${daemon.home}/xdg-config/askbridge/config.json`;
    const above = await runCli(['ask', ...DEPLOY, '--timeout', '600'], daemon.env);
    expect(above).toMatchObject({ code: 2, stdout: '' });
    expect(above.stderr).toBe(`askbridge ask: --timeout 600 is above the longest a question asked here may wait: waitSeconds is 120 (set in ${userConfig}); give --timeout 120 or less\n`);
    expect(await daemon.pending()).toEqual([]);
    expect(await daemon.history()).toEqual([]);

    const { asking, question } = await askAndWait([...DEPLOY, '--timeout', '120']);
    expect(question.expiresAt - question.createdAt).toBe(120_000);
    asking.child.kill('SIGINT');
    expect((await asking.result).code).toBe(130);
  });

  it('withdraws the question on Ctrl+C (SIGINT) and exits 130', async () => {
    daemon = await startDaemon();
    const { asking, question } = await askAndWait(DEPLOY);
    asking.child.kill('SIGINT');
    const result = await asking.result;
    expect(result).toMatchObject({ code: 130, stdout: '' });
    expect(result.stderr).toContain('withdrawn');
    const after = await waitUntil(async () => {
      const view = await daemon!.ask(question.id);
      return view.status === 'pending' ? undefined : view;
    }, 5_000, 'the question to be withdrawn');
    expect(after).toMatchObject({ status: 'cancelled' });
  });

  it('refuses bad input with exit 2 and a line naming the problem, and asks nothing', async () => {
    daemon = await startDaemon();
    const cases: Array<[string[], string | null, RegExp]> = [
      [['--question', 'Only one?', '--option', 'A'], null, /at least two --option/],
      [['--question', 'Twice?', '--option', 'A', '--option', 'A'], null, /duplicate option label "A"/],
      [['--json', '-'], 'not json', /standard input is not valid JSON/],
      [['--json', '-'], '{"question": "x"}', /must hold \{"questions": \[\.\.\.\]\}/],
      [[...DEPLOY, '--timeout', 'soon'], null, /--timeout soon: expected whole seconds/],
      [['--option', 'A', '--option', 'B'], null, /usage: (askbridge|node \S+\/bin\/askbridge\.mjs) ask --question/],
    ];
    for (const [args, stdin, message] of cases) {
      const result = await startCli(['ask', ...args], daemon.env, stdin).result;
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    expect(await daemon.pending()).toEqual([]);
    expect(await daemon.history()).toEqual([]);
  });

  it('shows hostile text from the answer as markers, never as terminal escapes', async () => {
    daemon = await startDaemon();
    const { asking, question } = await askAndWait(DEPLOY);
    const other = 'fine\u001b]0;pwned\u0007\u001b[2J';
    expect((await daemon.api('POST', `/api/asks/${question.id}/answer`, { responses: [{ question: 'Deploy the release now?', other }] })).status).toBe(200);
    const result = await asking.result;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('fine[U+001B]]0;pwned[U+0007][U+001B][2J\n');
  });
});
