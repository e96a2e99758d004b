// An MCP server's request for input in Telegram, end to end: the real daemon, with a public URL and
// a bot pointed at the stand-in Bot API (tests/stack/telegram-api.ts), holding Claude Code's
// Elicitation hook (its http POST). A form of one choice or yes/no is answered with a tap, and the
// hook gets exactly that value; any other form, one too long to show whole, and a link to open are
// answered on the page (the message links it, and shows a link's host and address as text, never as
// something to follow); Decline and Cancel are offered in each. The message always names the server,
// shows its words marked, and once settled anywhere says how; a late tap is told it was answered.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { formPayload, requestElicitation, respond, urlPayload, type SentElicitation } from '../stack/elicitations.js';
import { loadFixture } from '../stack/fixtures.js';
import { buttonData, buttonsOf, startTelegramApi, type SentMessage, type TelegramApi, type TelegramChat } from '../stack/telegram-api.js';
import { pair } from '../stack/telegram-pairing.js';
import { submitPrompt } from '../stack/turn-ends.js';

const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
const PUBLIC_URL = 'https://askbridge.example.test';
const CONTACT = loadFixture('elicitation/contact.json');
const ENVIRONMENT = {
  type: 'object',
  properties: {
    environment: {
      type: 'string',
      title: 'Environment',
      description: 'Where the release goes',
      oneOf: [
        { const: 'staging', title: 'Staging' },
        { const: 'prod', title: 'Production' },
      ],
    },
  },
  required: ['environment'],
};
const DRY_RUN = { type: 'object', properties: { dryRun: { type: 'boolean', title: 'Dry run first?' } }, required: ['dryRun'] };

let tg: TelegramApi;
let daemon: Daemon;
let alice: TelegramChat;

beforeAll(async () => {
  tg = await startTelegramApi([TOKEN]);
  daemon = await startDaemon({ config: { telegram: { token: TOKEN, apiRoot: tg.root }, publicUrl: PUBLIC_URL, whenNobodyWatching: 'wait', waitSeconds: 120 } });
  await tg.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
  alice = tg.privateChat(1001, 'alice');
  await pair(tg, daemon, alice);
});
afterAll(async () => {
  await daemon?.stop();
  await tg?.close();
});

const session = () => `tg-elicit-${randomUUID()}`;

/** An Elicitation held by the daemon, once its message reached the chat. */
async function ask(payload: Record<string, unknown>): Promise<SentElicitation & { id: string; message: SentMessage }> {
  const held = await requestElicitation(daemon, payload);
  const message = await tg.waitForMessage((each) => each.chat.id === alice.id && buttonsOf(each).some((button) => button.url === `${PUBLIC_URL}/#question=${held.view.id}`), `the request ${held.view.id} in the chat`);
  return { ...held, id: held.view.id, message };
}

/** The body the hook got: the decision JSON, or '' (Claude Code's own dialog asks). */
async function bodyOf(held: SentElicitation): Promise<string> {
  const { statusCode, body } = await held.response;
  expect(statusCode).toBe(200);
  return body;
}

const decision = (result: Record<string, unknown>) => JSON.stringify({ hookSpecificOutput: { hookEventName: 'Elicitation', ...result } });

/** The message as it is once its ask was settled: the line that says how, and no buttons. */
async function settledAs(message: SentMessage, line: string): Promise<SentMessage> {
  const settled = await tg.waitForMessage((each) => each === message && each.text.endsWith(`\n\n${line}`), `the message to say "${line}"`);
  expect(settled.reply_markup).toBeUndefined();
  return settled;
}

/** A press of a button and what it was told (its toast). */
async function press(message: SentMessage, text: string, data = buttonData(message, text)): Promise<string | undefined> {
  const id = tg.press(alice, message.message_id, data);
  const toast = await tg.waitForCall((call) => call.method === 'answerCallbackQuery' && call.body.callback_query_id === id, `the press of ${text} to be answered`);
  return toast.body.text as string | undefined;
}

/** The text an entity of this type covers, each one. */
const entityTexts = (message: SentMessage, type: string) =>
  (message.entities as Array<{ type: string; offset: number; length: number }>).filter((entity) => entity.type === type).map((entity) => message.text.slice(entity.offset, entity.offset + entity.length));

describe('an MCP form in telegram', () => {
  it('of one choice: a button per choice, Decline and Cancel; a tap sends exactly that value, the message says so, and a late tap is told it was answered', async () => {
    const held = await ask(formPayload(session(), ENVIRONMENT, { server: 'deploy\u202Ebot', message: 'Ship \u001b[31mit\u001b[0m where?' }));
    const { message } = held;
    expect(buttonsOf(message).map((button) => button.text)).toEqual(['Staging', 'Production', 'Decline', 'Cancel', 'Open the page']);
    // The server, its message and its field, each marked: no escape or bidi character reaches the chat.
    expect(entityTexts(message, 'bold')).toContain('deploy[U+202E]bot');
    expect(message.text).toContain('Ship [U+001B][31mit[U+001B][0m where?');
    expect(message.text).toContain('Environment\nWhere the release goes\n• Staging\n• Production');
    for (const hidden of ['\u001b', '\u202e']) expect(message.text).not.toContain(hidden);
    // An opaque id under each button, never the value.
    const stale = buttonData(message, 'Staging');
    expect(buttonData(message, 'Production')).not.toContain('prod');

    expect(await press(message, 'Production')).toBe('Sent.');
    expect(await bodyOf(held)).toBe(decision({ action: 'accept', content: { environment: 'prod' } }));
    expect(await daemon.ask(held.id)).toMatchObject({ status: 'answered', source: { kind: 'person', client: 'telegram' }, elicitationResult: { action: 'accept', content: { environment: 'prod' } } });
    await settledAs(message, 'Accepted from Telegram: {"environment":"prod"}');

    expect(await press(message, 'Staging', stale)).toBe('Already answered (Accepted from Telegram: {"environment":"prod"})');
    expect((await daemon.ask(held.id)).elicitationResult).toEqual({ action: 'accept', content: { environment: 'prod' } });
  });

  it('of yes/no: Yes and No buttons, and No sends false', async () => {
    const held = await ask(formPayload(session(), DRY_RUN, { message: 'Before the release:' }));
    expect(held.message.text).toContain('Dry run first? (yes or no)');
    expect(buttonsOf(held.message).map((button) => button.text)).toEqual(['Yes', 'No', 'Decline', 'Cancel', 'Open the page']);
    await press(held.message, 'No');
    expect(await bodyOf(held)).toBe(decision({ action: 'accept', content: { dryRun: false } }));
    await settledAs(held.message, 'Accepted from Telegram: {"dryRun":false}');
  });

  it('declines with Decline, and cancels with Cancel: the server gets exactly that', async () => {
    const declined = await ask(formPayload(session(), DRY_RUN));
    await press(declined.message, 'Decline');
    expect(await bodyOf(declined)).toBe(decision({ action: 'decline' }));
    await settledAs(declined.message, 'Declined from Telegram');

    const cancelled = await ask(formPayload(session(), CONTACT));
    await press(cancelled.message, 'Cancel');
    expect(await bodyOf(cancelled)).toBe(decision({ action: 'cancel' }));
    await settledAs(cancelled.message, 'Cancelled from Telegram');
  });

  it('of three fields: its fields by name, the page to answer it, Decline and Cancel, no choice; accepted on the page side, the message says so', async () => {
    const held = await ask(formPayload(session(), CONTACT, { message: 'Who gets the report?' }));
    expect(buttonsOf(held.message)).toEqual([
      { text: 'Decline', callback_data: expect.any(String) },
      { text: 'Cancel', callback_data: expect.any(String) },
      { text: 'Open the page', url: `${PUBLIC_URL}/#question=${held.id}` },
    ]);
    expect(held.message.text).toContain('The MCP server forms asks:\n\nWho gets the report?\n\nIts form asks for: name, email, age\n\nAnswer it on the page (Open the page).');
    const content = { name: 'Ada', email: 'ada@example.test' };
    expect((await respond(daemon, held.id, { action: 'accept', content })).status).toBe(200);
    expect(await bodyOf(held)).toBe(decision({ action: 'accept', content }));
    await settledAs(held.message, 'Accepted from the CLI: {"name":"Ada","email":"ada@example.test"}');
  });

  it('of one choice with a message too long to show whole: the page answers it, no choice button', async () => {
    const held = await ask(formPayload(session(), ENVIRONMENT, { message: `Read this first. ${'Lorem ipsum dolor sit amet. '.repeat(200)}` }));
    expect(buttonsOf(held.message).map((button) => button.text)).toEqual(['Decline', 'Cancel', 'Open the page']);
    expect(held.message.text).toContain('Its form asks for: Environment');
    expect(held.message.text).toContain('Some text was cut to fit: the page shows it whole.');
    await press(held.message, 'Decline');
    expect(await bodyOf(held)).toBe(decision({ action: 'decline' }));
  });
});

describe('an MCP link in telegram', () => {
  it('shows its exact host and its address as code, never a link to follow; once the session moves on it says the terminal answered, and a late tap is refused', async () => {
    const url = 'https://login.example.test/device?code=ABCD-1234';
    const held = await ask(urlPayload(session(), url, { message: 'Sign in to continue.' }));
    const { message } = held;
    expect(entityTexts(message, 'bold')).toContain('login.example.test');
    expect(entityTexts(message, 'code')).toEqual([url]);
    expect(message.text).toContain('It asks you to open a link on login.example.test:\nhttps://login.example.test/device?code=ABCD-1234\n\nAnswer it on the page (Open the page).');
    // The only link is the page's.
    expect(buttonsOf(message).map((button) => button.url ?? button.text)).toEqual(['Decline', 'Cancel', `${PUBLIC_URL}/#question=${held.id}`]);
    expect(entityTexts(message, 'text_link')).toEqual([]);

    const decline = buttonData(message, 'Decline');
    await submitPrompt(daemon, String(held.payload.session_id));
    expect(await bodyOf(held)).toBe('');
    await settledAs(message, 'Answered in the terminal');
    expect(await press(message, 'Decline', decline)).toBe('Already answered (Answered in the terminal)');
    expect((await daemon.ask(held.id)).elicitationResult).toBeUndefined();
  });
});
