// Hostile AskUserQuestion payloads against the real daemon, the real hook, the real CLI and the page
// in Chromium: deep nesting is refused before anything is shown and the terminal asks; question text
// named after Object.prototype properties is answered like any other; invisible and terminal-active
// characters are shown as [U+XXXX] markers on the page and in the CLI, never written raw.
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskView } from '../../src/protocol.js';
import { INVISIBLE_CHARACTER, markInvisible } from '../../src/visible-text.js';
import { freshPayload, loadFixture, type HookPayload } from '../stack/fixtures.js';
import { killStrayProcesses, runCli, runHook } from '../stack/processes.js';
import { expectSilentPassThrough } from '../stack/assertions.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { chromiumAvailability, launchBrowser, openPairedPage, type PairedPage } from '../stack/browser.js';

const chromiumState = chromiumAvailability();

const cardOf = (page: Page, id: string): Locator => page.locator(`article[data-question-id="${id}"]`);

/** The single-select fixture as raw JSON text, with `{"a":…}` nested `levels` deep under one extra tool_input key. */
function deepPayloadText(toolUseId: string, levels: number): string {
  const payload = { ...loadFixture<HookPayload>('01-single-select.input.json'), tool_use_id: toolUseId };
  return JSON.stringify(payload).replace('"tool_input":{', `"tool_input":{"x_nested":${'{"a":'.repeat(levels)}0${'}'.repeat(levels)},`);
}

const PROTO_NAMES = ['__proto__', 'constructor', 'toString'] as const;

/** Three questions called __proto__, constructor and toString, each offering those three names as labels. */
function protoPayload(tag: string): HookPayload {
  const payload = freshPayload('01-single-select', tag);
  payload.tool_input = {
    questions: PROTO_NAMES.map((name, index) => ({ question: name, header: `H${index + 1}`, multiSelect: index === 2, options: PROTO_NAMES.map((label) => ({ label, description: `pick ${label}` })) })),
  };
  return payload;
}

/** What the hook must print, byte for byte, for the answer both tests give. */
function expectedProtoOutput(payload: HookPayload): string {
  const answers = '{"__proto__":"constructor","constructor":"toString","toString":"__proto__, toString"}';
  return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"questions":${JSON.stringify(payload.tool_input.questions)},"answers":${answers}}}}`;
}

/** Every character the rule marks that a model could use to hide or act: one of each. */
const INVISIBLES = [
  '\u0000', '\u0007', '\u0008', '\u000B', '\u000C', '\u000D', '\u001B', '\u007F', '\u0080', '\u0085', '\u009B', '\u009F',
  '\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069',
  '\u200E', '\u200F', '\u061C', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF',
  '\u00AD', '\u180E', '\u034F', '\uFE0F', '\u{E0100}', '\u115F', '\u3164', '\uFFA0', '\u2800', '\u2028',
];

/** Terminal attacks: set the window title, clear the screen, write the clipboard (OSC 52), reverse text. */
const TITLE = '\u001b]0;pwned-title\u0007';
const CLEAR = '\u001b[2J';
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4K\u0007';
/** Each of INVISIBLES as the marker the page and the CLI must show, written out independently of the rule. */
const MARKERS = INVISIBLES.map((character) => `[U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`).join('');
const HOSTILE_QUESTION = `Run the tests?${TITLE}${CLEAR}${CLIPBOARD} \u202Eyalp\u202C\u2066ok\u2069 ${INVISIBLES.join('')}`;
const HOSTILE_LABEL = `Yes\u202E, deploy\u202C${CLEAR}`;

/** Bytes that must never reach a terminal from model text: ESC, C1 controls, bidi controls, zero-width characters. */
function expectNoHiddenBytes(text: string): void {
  expect(Buffer.from(text, 'utf8').includes(0x1b)).toBe(false);
  const hidden = [...text.matchAll(INVISIBLE_CHARACTER)].map((match) => `U+${match[0].codePointAt(0)!.toString(16)}`);
  expect(hidden).toEqual([]);
}

describe.skipIf(!chromiumState.available)('hostile payloads with the real hook, daemon, CLI and page', () => {
  let daemon: Daemon;
  let browser: Browser;
  let main: PairedPage;
  /** tool_use_id of every question the daemon ever sent to the page (snapshot or added). */
  const shownToPage = new Set<string>();

  beforeAll(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
    main = await openPairedPage(browser, daemon, {
      beforeNavigate: (page) =>
        page.routeWebSocket(/\/ws$/, (route) => {
          const server = route.connectToServer();
          server.onMessage((message) => {
            if (typeof message === 'string') {
              const parsed = JSON.parse(message) as { type?: string; ask?: AskView; asks?: AskView[] };
              for (const view of [...(parsed.asks ?? []), ...(parsed.ask ? [parsed.ask] : [])]) shownToPage.add(view.toolUseId);
            }
            route.send(message);
          });
          route.onMessage((message) => server.send(message));
        }),
    });
  });

  afterAll(async () => {
    await browser?.close();
    await killStrayProcesses();
    await daemon?.stop();
  });

  describe('deep nesting', () => {
    const LEVELS = [4_100, 4_200, 50_000];

    it.each(LEVELS)('the daemon refuses tool_input nested %i levels deep with a 400 naming the problem', async (levels) => {
      // Raw JSON text, as a hook that forwards its stdin untouched would send it.
      const response = await daemon.askAsHook(`{"payload":${deepPayloadText(`toolu_deep_direct_${levels}`, levels)},"environment":{}}`);
      expect(response.statusCode).toBe(400);
      const body = response.json<{ error: { code: string; message: string } }>();
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.message).toMatch(/^invalid hook payload: payload\.tool_input: nested more than 32 levels deep \(at x_nested\.a\.a\.a\.a\.a\.…\)$/);
    });

    it.each(LEVELS)('the hook prints nothing and exits 0 at once for tool_input nested %i levels deep, refused before anything waits, and no card is ever shown', async (levels) => {
      const toolUseId = `toolu_deep_hook_${levels}`;
      const result = await runHook(Buffer.from(deepPayloadText(toolUseId, levels)), { ...daemon.env, ASKBRIDGE_DEBUG: '1' }).result;
      expectSilentPassThrough(result);
      // Refused by the daemon, or too deep for the hook itself to send (which depth, Node's stack decides).
      expect(result.stderr).toMatch(/^askbridge hook: (daemon answered 400 to \/api\/hook\/questions: .*nested more than 32 levels deep.*|Maximum call stack size exceeded)\n$/);

      // Events reach the page in order: once a later question's card is there, an earlier one would have been too.
      const sentinel = freshPayload('01-single-select', `after-deep-${levels}`);
      const hook = runHook(sentinel, daemon.env);
      const view = await daemon.waitForAsk(sentinel.tool_use_id);
      await cardOf(main.page, view.id).waitFor();
      expect(shownToPage.has(toolUseId)).toBe(false);
      expect((await daemon.history()).map((line) => line.toolUseId)).not.toContain(toolUseId);
      expect((await runCli(['answer', view.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
      expect((await hook.result).code).toBe(0);
    });
  });

  describe('question text and labels named __proto__, constructor and toString', () => {
    it('are answered from the page, and the hook prints exactly the expected JSON', async () => {
      const { page } = main;
      const payload = protoPayload('proto-page');
      const hook = runHook(payload, daemon.env);
      const view = await daemon.waitForAsk(payload.tool_use_id);
      const card = cardOf(page, view.id);
      await card.waitFor();
      await card.getByRole('group', { name: '__proto__' }).getByRole('radio', { name: 'constructor', exact: true }).check();
      await card.getByRole('group', { name: 'constructor' }).getByRole('radio', { name: 'toString', exact: true }).check();
      const multi = card.getByRole('group', { name: 'toString' });
      await multi.getByRole('checkbox', { name: 'toString', exact: true }).check();
      await multi.getByRole('checkbox', { name: '__proto__', exact: true }).check();
      await card.getByRole('button', { name: 'Submit', exact: true }).click();

      const result = await hook.result;
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(expectedProtoOutput(payload));

      await page.locator(`article[data-question-id="${view.id}"][data-status="answered"]`).waitFor();
      expect(await card.locator('.answer-a').allTextContents()).toEqual(['constructor', 'toString', '__proto__, toString']);
      const line = (await daemon.history()).find((entry) => entry.toolUseId === payload.tool_use_id);
      expect(JSON.stringify(line?.answers)).toBe('{"__proto__":"constructor","constructor":"toString","toString":"__proto__, toString"}');
    });

    it('are answered with `askbridge answer`, and the hook prints exactly the expected JSON', async () => {
      const payload = protoPayload('proto-cli');
      const hook = runHook(payload, daemon.env);
      const view = await daemon.waitForAsk(payload.tool_use_id);
      const answered = await runCli(['answer', view.id, '--pick', '1=constructor', '--pick', '2=toString', '--pick', '3=toString', '--pick', '3=__proto__'], daemon.env);
      expect(answered.stderr).toBe('');
      expect(answered.code).toBe(0);
      expect(answered.stdout).toBe('answered: {"__proto__":"constructor","constructor":"toString","toString":"__proto__, toString"}\n');
      const result = await hook.result;
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(expectedProtoOutput(payload));

      const history = await runCli(['history', '--limit', '1'], daemon.env);
      expect(history.stdout.split('\n').slice(1)).toEqual(['  __proto__', '    -> constructor', '  constructor', '    -> toString', '  toString', '    -> __proto__, toString', '']);
    });
  });

  describe('invisible and terminal-active characters', () => {
    it('are shown as marked [U+XXXX] tokens on the page, and the answer keeps the exact text', async () => {
      const { page } = main;
      const payload = freshPayload('01-single-select', 'invisible-page');
      const question = `Ship it?${INVISIBLES.join('|')}`;
      const label = `Yes\u200B\u202E`;
      payload.tool_input.questions = [
        { question, header: `Rel\u202Eease`, multiSelect: false, options: [{ label, description: `now\u0000\u0085` }, { label: 'No', description: 'later' }] },
      ];
      const hook = runHook(payload, daemon.env);
      const view = await daemon.waitForAsk(payload.tool_use_id);
      const card = cardOf(page, view.id);
      await card.waitFor();

      expect(await card.locator('.q-text').textContent()).toBe(markInvisible(question));
      expect((await card.locator('.q-text').textContent())!.replaceAll('|', '')).toBe(`Ship it?${MARKERS}`);
      expect(await card.locator('.q-text .invisible-char').count()).toBe(INVISIBLES.length);
      expect(await card.locator('.chip').textContent()).toBe('Rel[U+202E]ease');
      expect(await card.locator('.option-label').first().textContent()).toBe('Yes[U+200B][U+202E]');
      expect(await card.locator('.option-desc').first().textContent()).toBe('now[U+0000][U+0085]');
      // Nothing but text: the markers are spans holding Text nodes.
      expect(await card.locator('.invisible-char').evaluateAll((spans) => spans.every((span) => span.childNodes.length === 1 && span.firstChild?.nodeType === 3))).toBe(true);

      await card.getByRole('radio', { name: 'Yes[U+200B][U+202E]', exact: true }).check();
      await card.getByRole('button', { name: 'Submit', exact: true }).click();
      const result = await hook.result;
      const output = JSON.parse(result.stdout) as { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } };
      expect(Object.entries(output.hookSpecificOutput.updatedInput.answers)).toEqual([[question, label]]);

      await page.locator(`article[data-question-id="${view.id}"][data-status="answered"]`).waitFor();
      expect(await card.locator('.answer-a').textContent()).toBe('Yes[U+200B][U+202E]');
      expect(await card.locator('.answer-q').textContent()).toBe(`Rel[U+202E]ease${markInvisible(question)}`);
    });

    it('never reach the terminal raw from `askbridge pending`, `answer` or `history`: exact bytes', async () => {
      const payload = freshPayload('01-single-select', 'invisible-cli');
      payload.cwd = `/home/alice/${CLEAR}proj`;
      payload.tool_input.questions = [
        { question: HOSTILE_QUESTION, header: `H\u202E${TITLE}`, multiSelect: false, options: [{ label: HOSTILE_LABEL, description: `line one\n  2. [Fake] Injected line${CLIPBOARD}` }, { label: 'No', description: 'not now' }] },
      ];
      const hook = runHook(payload, daemon.env);
      const view = await daemon.waitForAsk(payload.tool_use_id);

      const pending = await runCli(['pending'], daemon.env);
      expect(pending.code).toBe(0);
      expectNoHiddenBytes(pending.stdout);
      const lines = pending.stdout.split('\n');
      const at = lines.findIndex((line) => line.startsWith(view.id));
      expect(lines[at]).toMatch(new RegExp(`^${view.id}  /home/alice/\\[U\\+001B\\]\\[2Jproj  \\(\\d+s left, then the terminal will ask\\)$`));
      expect(lines.slice(at + 1, at + 5)).toEqual([
        `  1. [H[U+202E][U+001B]]0;pwned-title[U+0007]] Run the tests?[U+001B]]0;pwned-title[U+0007][U+001B][2J[U+001B]]52;c;cm0gLXJmIH4K[U+0007] [U+202E]yalp[U+202C][U+2066]ok[U+2069] ${MARKERS}  (pick one)`,
        '       - Yes[U+202E], deploy[U+202C][U+001B][2J: line one',
        '           2. [Fake] Injected line[U+001B]]52;c;cm0gLXJmIH4K[U+0007]',
        '       - No: not now',
      ]);

      const json = await runCli(['pending', '--json'], daemon.env);
      expectNoHiddenBytes(json.stdout);
      const listed = (JSON.parse(json.stdout) as AskView[]).find((question) => question.id === view.id);
      expect(listed?.questions[0]?.question).toBe(HOSTILE_QUESTION);
      expect(listed?.questions[0]?.options[0]?.label).toBe(HOSTILE_LABEL);

      // A wrong label is echoed back in the error: marked, not raw.
      const wrong = await runCli(['answer', view.id, '--pick', `1=Nope${CLEAR}\u202E`], daemon.env);
      expect(wrong.code).toBe(2);
      expectNoHiddenBytes(wrong.stderr);
      // Refused before anything is sent; the question is quoted shortened to 60 characters, markers included.
      expect(wrong.stderr).toBe(
        'askbridge answer: "Nope[U+001B][2J[U+202E]" is not an option of question "Run the tests?[U+001B]]0;pwned-title[U+0007][U+001B][2J[U+001B]]52;c;cm0gLXJmIH4K[U+0007] [U+202E]yal…": give a label or a number (1 Yes[U+202E], deploy[U+202C][U+001B][2J, 2 No)\n',
      );

      const answered = await runCli(['answer', view.id, '--pick', `1=${HOSTILE_LABEL}`], daemon.env);
      expect(answered.code).toBe(0);
      expectNoHiddenBytes(answered.stdout);
      expect(JSON.parse(answered.stdout.replace(/^answered: /, ''))).toEqual({ [HOSTILE_QUESTION]: HOSTILE_LABEL });
      const result = await hook.result;
      expect((JSON.parse(result.stdout) as { hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }).hookSpecificOutput.updatedInput.answers).toEqual({ [HOSTILE_QUESTION]: HOSTILE_LABEL });

      const history = await runCli(['history', '--limit', '1'], daemon.env);
      expectNoHiddenBytes(history.stdout);
      expect(history.stdout.split('\n').slice(1)).toEqual([
        `  Run the tests?[U+001B]]0;pwned-title[U+0007][U+001B][2J[U+001B]]52;c;cm0gLXJmIH4K[U+0007] [U+202E]yalp[U+202C][U+2066]ok[U+2069] ${MARKERS}`,
        '    -> Yes[U+202E], deploy[U+202C][U+001B][2J',
        '',
      ]);
      expect(history.stdout.split('\n')[0]).toMatch(/ {2}person \(cli\) {2}\/home\/alice\/\[U\+001B\]\[2Jproj$/);
      const historyJson = await runCli(['history', '--limit', '1', '--json'], daemon.env);
      expectNoHiddenBytes(historyJson.stdout);
      expect((JSON.parse(historyJson.stdout) as { answers: Record<string, string> }).answers).toEqual({ [HOSTILE_QUESTION]: HOSTILE_LABEL });
    });
  });
});

