// An MCP server's request for input answered in the terminal: the real CLI (`watch`, `answer`) in a
// real terminal (tmux: keys sent, the screen read back) against the real daemon holding Claude Code's
// Elicitation http hook. A form is asked field by field, each value checked as it is given; what the
// hook receives is exactly what was typed and chosen; a link is shown whole with its host; the
// server's words never reach the terminal raw. Every step waits for what the screen or the daemon
// shows, never for a fixed time.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { askbridgeCommand } from '../../src/command-name.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { formPayload, requestElicitation, respond, urlPayload } from '../stack/elicitations.js';
import { loadFixture } from '../stack/fixtures.js';
import { killStrayProcesses, runCli } from '../stack/processes.js';
import { activePrompt, openTerminal, type Terminal } from '../stack/terminal.js';

const CONTACT = loadFixture('elicitation/contact.json');
const EVERY_KIND = loadFixture('elicitation/every-kind.json');

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killStrayProcesses();
});

async function daemonForTest(): Promise<Daemon> {
  const daemon = await startDaemon();
  cleanups.push(() => daemon.stop());
  return daemon;
}

async function openFlowTerminal(args: string[], daemon: Daemon): Promise<Terminal> {
  const terminal = await openTerminal(args, { HOME: daemon.home, ASKBRIDGE_HOME: daemon.home, XDG_CONFIG_HOME: join(daemon.home, 'xdg-config') });
  cleanups.push(() => terminal.close());
  return terminal;
}

const session = () => `elicit-term-${randomUUID()}`;

/** The decision the held http hook received: its JSON, or null for an empty body (Claude Code's own dialog). */
async function decisionOf(held: { response: Promise<{ statusCode: number; body: string }> }): Promise<unknown> {
  const { statusCode, body } = await held.response;
  expect(statusCode).toBe(200);
  return body === '' ? null : JSON.parse(body);
}

/** Waits for field `n` of `count` on screen, then for its prompt to take keys. */
async function atField(terminal: Terminal, n: number, count: number, title: string, prompt: string): Promise<string> {
  await terminal.waitFor(`Field ${n} of ${count} · ${title}`);
  return terminal.waitForPrompt(prompt);
}

describe('a form in the terminal', () => {
  it('watch asks every kind of field in turn, defaults filled in, each value checked as given; Accept sends exactly those values', async () => {
    const daemon = await daemonForTest();
    const held = await requestElicitation(daemon, formPayload(session(), EVERY_KIND, { server: 'release-bot', message: 'Plan the release.' }));
    const terminal = await openFlowTerminal(['watch'], daemon);

    const first = await atField(terminal, 1, 11, 'Branch (required)', 'Type the text');
    expect(first).toContain('The MCP server release-bot asks, through Claude Code');
    expect(first).toContain('The MCP server release-bot asks:\n│  Plan the release.');
    expect(first).toContain('A release branch\n│  Text, 3 to 40 characters, matching ^release/[0-9]+\\.[0-9]+$');
    // The default is filled in: it is changed, not retyped.
    expect(activePrompt(first)).toContain('release/1.2');
    await terminal.press('BSpace');
    await terminal.type('3');
    await terminal.waitForPrompt('release/1.3');
    await terminal.press('Enter');

    const homepage = await atField(terminal, 2, 11, 'Homepage (optional)', 'Type the text');
    expect(homepage).toContain('Text, a full address with its scheme, such as https://example.com');
    await terminal.type('example.test');
    await terminal.waitForPrompt('example.test');
    await terminal.press('Enter');
    await terminal.waitForPrompt('Homepage: must be a full address with its scheme, such as https://example.com');
    for (let i = 0; i < 'example.test'.length; i++) await terminal.press('BSpace');
    await terminal.type('https://shop.example.test/');
    await terminal.waitForPrompt('https://shop.example.test/');
    await terminal.press('Enter');

    // The default date kept; the optional date-time left empty.
    expect(activePrompt(await atField(terminal, 3, 11, 'Release date (optional)', 'Type the text'))).toContain('2026-12-31');
    await terminal.press('Enter');
    await atField(terminal, 4, 11, 'Freeze at (optional)', 'Type the text');
    await terminal.press('Enter');

    // Out of range: the field's own words, and the same prompt again with the text kept.
    const rows = await atField(terminal, 5, 11, 'Row limit (required)', 'Type the number');
    expect(rows).toContain('A whole number from 1 to 1000');
    await terminal.press('BSpace', 'BSpace', 'BSpace');
    await terminal.type('5000');
    await terminal.waitForPrompt('5000');
    await terminal.press('Enter');
    const refused = await terminal.waitForPrompt('Row limit: at most 1000');
    expect(activePrompt(refused)).toContain('5000');
    await terminal.press('BSpace', 'BSpace', 'BSpace', 'BSpace');
    await terminal.type('250');
    await terminal.waitForPrompt(/│ {2}250/);
    await terminal.press('Enter');

    expect(await atField(terminal, 6, 11, 'Sample ratio (optional)', 'Type the number')).toContain('A number from 0 to 1');
    await terminal.type('0.25');
    await terminal.waitForPrompt('0.25');
    await terminal.press('Enter');

    // Yes or no, its default under the cursor; a number picks.
    const dryRun = await atField(terminal, 7, 11, 'Dry run (optional)', 'Yes or no?');
    expect(activePrompt(dryRun)).toMatch(/● 1\. Yes[\s\S]*○ 2\. No[\s\S]*○ 3\. Leave empty/);
    await terminal.type('2');

    const environment = await atField(terminal, 8, 11, 'Environment (required)', 'Choose one');
    expect(activePrompt(environment)).toMatch(/○ 1\. Development[\s\S]*● 2\. Staging[\s\S]*○ 3\. Production/);
    expect(activePrompt(environment)).not.toContain('Leave empty');
    await terminal.type('3');

    expect(activePrompt(await atField(terminal, 9, 11, 'Region (optional)', 'Choose one'))).toMatch(/○ 1\. Ireland[\s\S]*○ 2\. Virginia[\s\S]*● 3\. Leave empty/);
    await terminal.type('2');

    // Several choices: the default ticked; too many is refused at Enter, with the ticks kept.
    const checks = await atField(terminal, 10, 11, 'Checks (optional)', 'Choose (none ticked leaves it empty)');
    expect(checks).toContain('Choose 1 to 2');
    expect(activePrompt(checks)).toMatch(/◼ 1\. lint/);
    await terminal.type('3');
    await terminal.type('2');
    await terminal.waitForPrompt(/◼ 2\. unit[\s\S]*◼ 3\. e2e/);
    await terminal.press('Enter');
    await terminal.waitForPrompt('Checks: choose at most 2');
    await terminal.type('1');
    await terminal.waitForPrompt(/◻ 1\. lint/);
    await terminal.press('Enter');

    await atField(terminal, 11, 11, 'Notify (optional)', 'Choose (none ticked leaves it empty)');
    await terminal.press('Enter');

    const review = activePrompt(await terminal.waitForPrompt('Accept sends them; a field changes its value'));
    for (const line of ['1. Branch: release/1.3', '2. Homepage: https://shop.example.test/', '3. Release date: 2026-12-31', '4. Freeze at: (empty)', '5. Row limit: 250', '6. Sample ratio: 0.25', '7. Dry run: no', '8. Environment: Production', '9. Region: Virginia', '10. Checks: unit, e2e', '11. Notify: (empty)']) {
      expect(review).toContain(line);
    }
    expect(review).toMatch(/● 12\. Accept\n│ {7}send these values to the MCP server release-bot/);
    expect((await daemon.ask(held.view.id)).status).toBe('pending');
    await terminal.press('Enter');

    await terminal.waitFor('Sent: the MCP server release-bot has your values.');
    expect(await decisionOf(held)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'Elicitation',
        action: 'accept',
        content: { branch: 'release/1.3', homepage: 'https://shop.example.test/', releaseDate: '2026-12-31', rowLimit: 250, ratio: 0.25, dryRun: false, environment: 'prod', region: 'us-east-1', checks: ['unit', 'e2e'] },
      },
    });
    await terminal.waitFor(/Waiting for questions\. Ctrl\+C leaves; questions keep waiting\.\s*$/);
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });

  it('answer: a required field left empty is refused; the review changes a value; Decline tells the server decline (exit 0)', async () => {
    const daemon = await daemonForTest();
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    const terminal = await openFlowTerminal(['answer'], daemon);

    await atField(terminal, 1, 3, 'name (required)', 'Type the text');
    await terminal.press('Enter');
    await terminal.waitForPrompt('name: required');
    await terminal.type('Ada');
    await terminal.waitForPrompt('Ada');
    await terminal.press('Enter');
    await atField(terminal, 2, 3, 'email (required)', 'Type the text');
    await terminal.type('ada@example.test');
    await terminal.waitForPrompt('ada@example.test');
    await terminal.press('Enter');
    await atField(terminal, 3, 3, 'age (optional)', 'Type the number');
    await terminal.press('Enter');

    // The review: 1 changes the name, its value filled in.
    await terminal.waitForPrompt('Accept sends them');
    await terminal.type('1');
    await terminal.waitForPrompt(/Type the text\n│ {2}Ada/);
    await terminal.type(' Lovelace');
    await terminal.waitForPrompt('Ada Lovelace');
    await terminal.press('Enter');
    const review = activePrompt(await terminal.waitForPrompt(/1\. name: Ada Lovelace[\s\S]*Accept sends them|Accept sends them[\s\S]*1\. name: Ada Lovelace/));
    expect(review).toContain('3. age: (empty)');
    expect(review).toMatch(/○ 5\. Decline\n│ {7}tell the MCP server forms you refuse/);
    expect(review).toMatch(/○ 6\. Cancel[\s\S]*○ 7\. Let the terminal answer/);
    await terminal.type('5');

    await terminal.waitFor('Declined: the MCP server forms is told you chose not to answer.');
    expect(await terminal.exitCode()).toBe(0);
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'decline' } });
    expect(await daemon.ask(held.view.id)).toMatchObject({ status: 'declined', source: { kind: 'person', client: 'cli' } });
  });

  it('responded to elsewhere while a value is typed: watch says so at once, sends nothing, and waits on', async () => {
    const daemon = await daemonForTest();
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    const terminal = await openFlowTerminal(['watch'], daemon);
    await atField(terminal, 1, 3, 'name', 'Type the text');
    await terminal.type('Ada');
    await terminal.waitForPrompt('Ada');

    expect((await respond(daemon, held.view.id, { action: 'cancel' })).status).toBe(200);
    await terminal.waitFor(/No longer waiting: cancelled by a person \(cli\)\. Nothing was sent\.[\s\S]*Waiting for questions\./);
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'cancel' } });
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });

  it("the server's name, message, titles and labels are shown with escape sequences as markers, never acted on", async () => {
    const daemon = await daemonForTest();
    const schema = {
      type: 'object',
      properties: { plan: { type: 'string', title: 'Pl\u001b[2Jan', description: 'Pick\u001b[31m one\u202e', enum: ['a', 'b'], enumNames: ['Alpha\u001b]0;pwned\u0007', 'Beta'] } },
      required: ['plan'],
    };
    await requestElicitation(daemon, formPayload(session(), schema, { server: 'forms\u001b[2J\u202e', message: 'Who gets\u001b]0;pwned\u0007 the report?' }));
    const terminal = await openFlowTerminal(['answer'], daemon);

    const screen = await atField(terminal, 1, 1, 'Pl[U+001B][2Jan (required)', 'Choose one');
    expect(screen).toContain('The MCP server forms[U+001B][2J[U+202E] asks, through Claude Code');
    expect(screen).toContain('The MCP server forms[U+001B][2J[U+202E] asks:\n│  Who gets[U+001B]]0;pwned[U+0007] the report?');
    expect(screen).toContain('Pick[U+001B][31m one[U+202E]');
    expect(activePrompt(screen)).toContain('1. Alpha[U+001B]]0;pwned[U+0007]');
    // Not cleared (the lines above are still there) and no new window title.
    expect(screen).toContain('Project  /home/alice/projects/shop');
    expect(await terminal.title()).not.toContain('pwned');
    await terminal.press('Escape');
    expect(await terminal.exitCode()).toBe(130);
  });
});

describe('a link in the terminal', () => {
  it('shows the whole link and its exact host, opens nothing; Done tells the server accept, with no values', async () => {
    const daemon = await daemonForTest();
    const url = 'https://login.example.test:8443/device?code=ABCD';
    const held = await requestElicitation(daemon, urlPayload(session(), url, { server: 'auth' }));
    const terminal = await openFlowTerminal(['watch'], daemon);

    const screen = await terminal.waitForPrompt('Done at the link?');
    expect(screen).toContain('The MCP server auth asks:\n│  Sign in to continue.');
    expect(screen).toContain(`Link  ${url}\n│  Host  login.example.test:8443`);
    expect(activePrompt(screen)).toMatch(/● 1\. Done[\s\S]*○ 2\. Decline[\s\S]*○ 3\. Cancel[\s\S]*○ 4\. Let the terminal answer/);
    await terminal.type('1');

    await terminal.waitFor('Done: the MCP server auth is told the page at the link is finished.');
    expect(await decisionOf(held)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept' } });
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
  });
});

describe('answer without the terminal flow', () => {
  it('answer ID with an answer refuses it, saying how to respond in the terminal and through the API; answer --all leaves it alone', async () => {
    const daemon = await daemonForTest();
    const held = await requestElicitation(daemon, formPayload(session(), CONTACT));
    const refused = await runCli(['answer', held.view.id, '--pick', '1'], daemon.env);
    expect(refused.code).toBe(2);
    const command = askbridgeCommand(daemon.env);
    expect(refused.stderr).toContain(`respond on a terminal, field by field, with \`${command} answer ${held.view.id}\` (or \`${command} watch\`), or through the API: POST /api/asks/${held.view.id}/elicitation`);

    const all = await openFlowTerminal(['answer', '--all'], daemon);
    await all.waitFor('no permission is waiting');
    expect(await all.exitCode()).toBe(1);
    expect((await daemon.ask(held.view.id)).status).toBe('pending');
  });
});
