// The user's Telegram bot, two-way, by long polling (no public URL needed): every paired chat is told
// of an ask (messages.ts words it), and a person answers from the chat with its buttons or by
// replying. Only paired chats are obeyed (chats.ts), and in each only the person who paired it: in a
// group, another member's press is refused with a toast and their reply with a message, and neither
// decides anything. Anything else is ignored and logged by chat id only, never with its text. A button carries a random id the daemon keeps (id -> ask and action),
// never a label or an ask id, so it can act on that ask alone. When an ask is settled anywhere, each
// chat's message for it says how, and loses its buttons. An approval that offers a grant is allowed
// with one from its message (how long, then where, each step an edit of that message); /grants lists
// the live grants, each with Revoke. A button acts only under the message (or in the chat) it was
// drawn for. Every Telegram call runs in the background,
// retried on 429 and 5xx: none holds up the store or an answer. The bot token is never logged:
// grammY's errors are reduced to a description made here. grammY is loaded only when a bot is set.
// Daemons sharing a store share the bot too, and Telegram gives updates to one poller only: there,
// the bot runs only while this daemon holds the store's lock for it (takeTurns, store/leader.ts), and
// stops at once when it loses it, without even confirming what it handled.
import { isRoutedTo, viewerOf } from '../../route-access.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Api } from 'grammy';
import type { CallbackQuery, Chat, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update, User } from 'grammy/types';
import { randomBytes } from 'node:crypto';
import type { Shown } from '../../choices.js';
import type { TelegramConfig } from '../../config.js';
import type { AskView, Decider, Response, RouteView, TelegramPolling } from '../../protocol.js';
import type { LeaderState, Leadership } from '../../store/leader.js';
import { shorten } from '../../shorten.js';
import { needsTwoPeople, twoPeopleLine } from '../../two-people.js';
import { markInvisible } from '../../visible-text.js';
import type { AskStore } from '../asks/store.js';
import type { PersonDecision, PersonDecisions, ResultOf } from '../asks/person-decisions.js';
import type { GrantStore } from '../grants.js';
import { createChats, type ChatRevoke, type PairedChat } from './chats.js';
import { answersAtOnce, askDraft, CONFIRM_RISKY, grantsDraft, grantStep, MESSAGE_CHARS, offersGrant, oneTapField, promptFor, settledLine, type Action, type Button, type Draft, type Entity, type Selection } from './messages.js';

export type TelegramLog = {
  info: (fields: Record<string, unknown>, message: string) => void;
  warn: (fields: Record<string, unknown>, message: string) => void;
  error: (fields: Record<string, unknown>, message: string) => void;
};

export type TelegramOptions = {
  store: AskStore;
  /** The person's grants: a paired chat may list them (/grants) and revoke them. */
  grants?: GrantStore;
  /** How a chat's decision reaches its ask (an allow with a grant makes it there). */
  decisions: PersonDecisions;
  /** telegram-chats.json in the state directory. */
  chatsFile: string;
  /** The page at the public URL, opened on this ask; undefined without one (a loopback link is never sent). */
  publicLink: (askId: string) => string | undefined;
  log: TelegramLog;
  /** How long a long poll waits for updates (tests may shorten it). */
  pollSeconds?: number;
  /** Whether askbridge still knows a person: a chat paired for someone removed is not paired (chats.ts). */
  isKnownPerson?: (person: string) => boolean;
  /** With a shared store: the bot runs only while this daemon holds its lock (absent: it always runs). */
  takeTurns?: (onChange: (state: LeaderState) => void) => Leadership;
};

/** What `askbridge pair --telegram` gets: a code, or why there is none. */
export type TelegramCode = { kind: 'code'; code: string; bot: string; expiresAt: number } | { kind: 'not_configured' } | { kind: 'not_ready'; why: string };

const POLL_SECONDS = 30;
const RETRIES = 3;
const MAX_BACKOFF_MS = 60_000;
/** Button ids and reply prompts kept, the oldest forgotten first: a press on a forgotten one is told so. */
const MAX_CALLBACKS = 20_000;
const MAX_PROMPTS = 5_000;
/** An ignored chat is logged at most this often. */
const IGNORED_LOG_MS = 10 * 60_000;
/** What answerCallbackQuery shows at most. */
const TOAST_CHARS = 190;
/** What anyone but the person who paired a chat is told when they press or reply there. */
const NOT_THE_PERSON = 'Not sent: only the person who paired this chat with askbridge answers here.';
/** What a press of a button under a message (or in a chat) it was not drawn for is told. */
const NOT_THIS_MESSAGE = 'Not sent: this button does not belong to this message.';
/** What a press of a grant's step is told when the approval offers none here (any more). */
/** One person of two allowed it: what the chat is told. */
const ALLOWED_ONCE = 'Allowed: a second person must allow it too.';
const NO_GRANT = 'No grant is offered for this here: nothing was allowed. Allow it once, or open askbridge.';

type Sent = { chatId: number; messageId: number; text: string; entities: Entity[] };
/** One ask told to the chats: its message in each (by chat id), the choices made so far, and its buttons' ids. */
type Told = { messages: Map<number, Promise<Sent | undefined>>; selections: Selection[]; ids: Map<string, string> };
type Target = { askId: string; action: Action };
/** A Revoke of the /grants list sent to one chat: a grant's id, or `all`. */
type Revoke = { chatId: number; revoke: string };

/** One bot token's polling: started on a config, stopped on the next. */
type Session = { token: string; config: TelegramConfig; api: Api | undefined; bot: string | undefined; problem: string; abort: AbortController; done: Promise<void>; handedOver: boolean };

const POLLING: Record<LeaderState, TelegramPolling> = { held: 'polling_here', elsewhere: 'polled_elsewhere', unreachable: 'waiting_for_store' };

export function createTelegram(options: TelegramOptions) {
  const { store, log } = options;
  const chats = createChats({
    file: options.chatsFile,
    isKnownPerson: options.isKnownPerson,
    onUnreadable: (reason) => log.warn({ path: options.chatsFile, reason }, 'the paired Telegram chats could not be read: none is paired until one pairs again'),
    onUnknownPerson: (chat) =>
      log.warn(
        { device: chat.id, chatId: chat.chatId },
        'a Telegram group paired before askbridge kept who paired it is no longer paired (any member could have answered there): to be asked there again, run askbridge pair --telegram and send /start CODE in the group yourself',
      ),
  });
  const told = new Map<string, Told>();
  const callbacks = new Map<string, Target | Revoke>();
  const prompts = new Map<string, Target>();
  const ignoredAt = new Map<string, number>();
  let session: Session | undefined;
  /** The user config's bot, which runs whenever it is this daemon's turn. */
  let wanted: TelegramConfig | undefined;
  let turn: Leadership | undefined;
  /** The last session's end: a next one starts after it. */
  let stopped: Promise<void> = Promise.resolve();

  const unsubscribe = store.subscribe((event) => {
    if (event.type === 'resolved') void settled(event.ask);
    // One person of two allowed it: every message says so, and keeps its buttons for the second.
    if (event.type === 'updated' && needsTwoPeople(event.ask)) void restated(event.ask);
  });

  /** A grammY error as a line that holds no token: the status and Telegram's own description, or that the network failed. */
  function describe(error: unknown, token: string): string {
    const { error_code: code, description } = error as { error_code?: unknown; description?: unknown };
    const text = typeof code === 'number' ? `${code} ${typeof description === 'string' ? description : ''}` : `network error (${networkCause(error)})`;
    return shorten(text.split(token).join('[token]'), 200);
  }
  /** Why fetch failed, by its code (ECONNREFUSED...) or its name: never its message, which names the URL and so the token. */
  const networkCause = (error: unknown): string => {
    const inner = (error as { error?: { cause?: { code?: unknown }; name?: unknown } }).error;
    const code = inner?.cause?.code;
    return typeof code === 'string' ? code : typeof inner?.name === 'string' ? inner.name : (error as Error).name;
  };
  const statusOf = (error: unknown): number | undefined => {
    const code = (error as { error_code?: unknown }).error_code;
    return typeof code === 'number' ? code : undefined;
  };
  const retryAfterOf = (error: unknown): number | undefined => {
    const seconds = (error as { parameters?: { retry_after?: unknown } }).parameters?.retry_after;
    return typeof seconds === 'number' ? Math.min(seconds, 60) : undefined;
  };

  /** A Telegram call in the background: retried on 429 (as told) and on 5xx or the network (backing off); anything else is logged. */
  async function call<T>(what: string, run: (api: Api) => Promise<T>): Promise<T | undefined> {
    const current = session;
    if (!current?.api) return undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        return await run(current.api);
      } catch (error) {
        const status = statusOf(error);
        const retryable = status === undefined || status === 429 || status >= 500;
        if (!retryable || attempt >= RETRIES || current.abort.signal.aborted) {
          log.warn({ call: what, error: describe(error, current.token) }, 'a Telegram call failed');
          return undefined;
        }
        const waitMs = status === 429 ? (retryAfterOf(error) ?? 1) * 1000 : 500 * 2 ** attempt;
        if (!(await pause(waitMs, current.abort.signal))) return undefined;
      }
    }
  }

  /** Sleeps unless the session stops first; says whether it slept. */
  async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal });
      return true;
    } catch {
      return false;
    }
  }

  function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
    map.set(key, value);
    if (map.size > max) map.delete(map.keys().next().value!);
  }

  /** The random id of one action of one ask: the same on every redraw of its buttons. */
  function idFor(askId: string, state: Told, action: Action): string {
    const key = JSON.stringify(action);
    let id = state.ids.get(key);
    if (id === undefined) {
      id = randomBytes(16).toString('base64url');
      state.ids.set(key, id);
      remember(callbacks, id, { askId, action }, MAX_CALLBACKS);
    }
    return id;
  }

  function markup(askId: string, state: Told, keyboard: Button[][]): InlineKeyboardMarkup | undefined {
    if (keyboard.length === 0) return undefined;
    const inline_keyboard = keyboard.map((row) => row.map((button): InlineKeyboardButton => ('url' in button ? { text: button.text, url: button.url } : { text: button.text, callback_data: idFor(askId, state, button.action) })));
    return { inline_keyboard };
  }

  const draftOf = (view: AskView, state: Told): Draft =>
    askDraft(view, { headersOnly: session?.config.headersOnly === true, link: options.publicLink(view.id), selections: state.selections, grants: options.grants !== undefined });

  /**
   * Tells every paired chat whose person the ask is routed to (a chat paired for nobody: only an ask
   * with no route), and whose person `tells` names (by `tell: "away"`, one who is here is told later),
   * of an ask that waits: one message each, never twice to a chat.
   */
  function tell(view: AskView, tells: (person: string | undefined) => boolean): void {
    if (!session?.api) return;
    const state: Told = told.get(view.id) ?? { messages: new Map(), selections: view.questions.map(() => ({ selected: new Set(), other: null })), ids: new Map() };
    const paired = chats.list().filter((chat) => !state.messages.has(chat.chatId) && isRoutedTo(view, { kind: 'person', person: chat.person }) && tells(chat.person));
    if (paired.length === 0) return;
    told.set(view.id, state);
    const draft = draftOf(view, state);
    const reply_markup = markup(view.id, state, draft.keyboard);
    for (const chat of paired) {
      state.messages.set(
        chat.chatId,
        call('sendMessage', (api) => api.sendMessage(chat.chatId, draft.text, { entities: draft.entities, link_preview_options: { is_disabled: true }, ...(reply_markup ? { reply_markup } : {}) })).then((message) => {
          if (!message) return undefined;
          // A plain reply to a turn's end is the reply to Claude.
          if (view.turnEnd) remember(prompts, `${chat.chatId}:${message.message_id}`, { askId: view.id, action: { kind: 'reply' } }, MAX_PROMPTS);
          return { chatId: chat.chatId, messageId: message.message_id, text: draft.text, entities: draft.entities };
        }),
      );
    }
  }

  /** Settled anywhere: each message says how, and loses its buttons. */
  async function settled(view: AskView): Promise<void> {
    const state = told.get(view.id);
    if (!state) return;
    told.delete(view.id);
    const two = twoPeopleLine(view);
    const line = two === undefined ? settledLine(view) : `${settledLine(view)}\n${two}`;
    await Promise.all(
      [...state.messages.values()].map(async (pending) => {
        const sent = await pending;
        if (!sent || !chats.isPaired(sent.chatId)) return;
        const text = `${sent.text}\n\n${line}`.slice(0, MESSAGE_CHARS);
        await call('editMessageText', (api) => api.editMessageText(sent.chatId, sent.messageId, text, { entities: sent.entities, link_preview_options: { is_disabled: true } }));
      }),
    );
  }

  /** Every message of a waiting ask drawn again as it now is (its text and buttons). */
  async function restated(view: AskView): Promise<void> {
    const state = told.get(view.id);
    if (!state) return;
    const draft = draftOf(view, state);
    const reply_markup = markup(view.id, state, draft.keyboard);
    for (const [chatId, pending] of state.messages) {
      state.messages.set(
        chatId,
        pending.then(async (sent) => {
          if (!sent) return undefined;
          await call('editMessageText', (api) => api.editMessageText(sent.chatId, sent.messageId, draft.text, { entities: draft.entities, link_preview_options: { is_disabled: true }, ...(reply_markup ? { reply_markup } : {}) }));
          return { ...sent, text: draft.text, entities: draft.entities };
        }),
      );
    }
    await Promise.all(state.messages.values());
  }

  /** The buttons of every message of an ask, with the choices made so far. */
  async function redraw(view: AskView, state: Told): Promise<void> {
    const reply_markup = markup(view.id, state, draftOf(view, state).keyboard);
    await Promise.all(
      [...state.messages.values()].map(async (pending) => {
        const sent = await pending;
        if (sent) await call('editMessageReplyMarkup', (api) => api.editMessageReplyMarkup(sent.chatId, sent.messageId, reply_markup ? { reply_markup } : {}));
      }),
    );
  }

  const send = (chatId: number, text: string) => void call('sendMessage', (api) => api.sendMessage(chatId, text));

  /** Logs what was ignored or refused in a chat, at most once per IGNORED_LOG_MS for each chat and kind. */
  function logRarely(kind: 'unpaired' | 'not-the-person', chatId: number, message: string): void {
    const key = `${kind}:${chatId}`;
    const now = Date.now();
    if ((ignoredAt.get(key) ?? 0) > now - IGNORED_LOG_MS) return;
    ignoredAt.set(key, now);
    if (ignoredAt.size > 1000) ignoredAt.delete(ignoredAt.keys().next().value!);
    log.info({ chatId }, message);
  }

  function ignore(chatId: number | undefined): void {
    if (chatId !== undefined) logRarely('unpaired', chatId, 'an update from a Telegram chat that is not paired was ignored');
  }

  /** Whether the sender is the person who paired this paired chat; someone else's action there is logged (by chat id only) and refused. */
  function isThePerson(chatId: number, userId: number | undefined): boolean {
    if (userId !== undefined && chats.personOf(chatId) === userId) return true;
    logRarely('not-the-person', chatId, 'a Telegram chat member who did not pair it pressed or replied there: refused');
    return false;
  }

  /** A chat's name as a device: a private chat's person, or a group's title and the person who answers there. */
  function chatName(chat: Chat, person: User): string {
    const nameOf = (who: { username?: string | undefined; first_name: string; last_name?: string | undefined }) => (who.username ? `@${who.username}` : [who.first_name, who.last_name].filter(Boolean).join(' '));
    const name = chat.type === 'private' ? nameOf(chat) : `${chat.title || String(chat.id)} (${nameOf(person) || String(person.id)})`;
    return `Telegram: ${shorten(markInvisible(name || String(chat.id)), 40)}`;
  }

  async function onMessage(message: Message): Promise<void> {
    const chatId = message.chat.id;
    const text = message.text ?? '';
    const start = /^\/start(?:@[A-Za-z0-9_]+)?(?:\s+(\S+))?\s*$/.exec(text);
    if (start) return pairChat(message, start[1] ?? '');
    if (!chats.isPaired(chatId)) return ignore(chatId);
    if (/^\/grants(?:@[A-Za-z0-9_]+)?\s*$/.test(text)) {
      if (!isThePerson(chatId, senderOf(message)?.id)) return send(chatId, NOT_THE_PERSON);
      chats.seen(chatId);
      const list = grantsList(chatId);
      return void call('sendMessage', (api) => api.sendMessage(chatId, list.text, { entities: list.entities, ...(list.reply_markup ? { reply_markup: list.reply_markup } : {}) }));
    }
    const repliedTo = message.reply_to_message?.message_id;
    const target = repliedTo === undefined ? undefined : prompts.get(`${chatId}:${repliedTo}`);
    if (!target || message.text === undefined) return;
    if (!isThePerson(chatId, senderOf(message)?.id)) return send(chatId, NOT_THE_PERSON);
    chats.seen(chatId);
    const view = store.get(target.askId);
    if (!view) return send(chatId, 'This is no longer waiting.');
    if (view.status !== 'pending') return send(chatId, `Already answered (${settledLine(view)}).`);
    const result = await typed(chatId, view, target.action, message.text);
    if (result?.kind === 'allowed_once') send(chatId, ALLOWED_ONCE);
    else if (result && result.kind !== 'answered') send(chatId, refusal(result));
  }

  function pairChat(message: Message, code: string): void {
    const { chat } = message;
    const person = senderOf(message);
    if (!person) {
      // Sent as the group or a channel (an anonymous admin): no one person would decide there.
      send(chat.id, 'askbridge pairs a chat with the person who sends the code: send it from your own account, not as the group or a channel.');
      return;
    }
    const result = chats.pair(code, { chatId: chat.id, userId: person.id, name: chatName(chat, person) });
    if (result.kind === 'too_many_guesses') {
      ignore(chat.id);
      return;
    }
    if (result.kind === 'paired') log.info({ chatId: chat.id, userId: person.id, device: result.chat.id }, 'Telegram chat paired');
    else if (result.kind === 'bad_code') log.info({ chatId: chat.id }, 'a Telegram chat sent a pairing code that is not valid');
    else if (result.kind === 'unknown_person') log.info({ chatId: chat.id, person: result.person }, 'a Telegram pairing for a person since removed was refused');
    else log.warn({ chatId: chat.id, reason: result.reason }, 'a Telegram chat could not be paired: the list could not be saved');
    const reply = {
      paired: 'Paired: askbridge will ask here.',
      bad_code: 'This code is not valid: run askbridge pair --telegram for a new one',
      unknown_person: `Not paired: this code was for ${result.kind === 'unknown_person' ? result.person : ''}, whom askbridge no longer knows (removed since it was made).`,
      not_saved: `askbridge could not save this pairing (${result.kind === 'not_saved' ? result.reason : ''}): send the same code again once its disk has room.`,
    }[result.kind];
    send(chat.id, reply);
  }

  /** Who decides from this chat: its person, and its name as its device is listed. */
  function deciderOf(chatId: number): Decider {
    const chat = chats.list().find((paired) => paired.chatId === chatId);
    return { client: 'telegram', device: chat?.name ?? 'Telegram', ...(chat?.person === undefined ? {} : { person: chat.person }) };
  }

  /** Text typed in reply to a prompt: free text for a question, a deny's message, a plan's feedback, a reply to a turn's end, or the confirmation that allows a risky approval. */
  async function typed(chatId: number, view: AskView, action: Action, text: string): Promise<ResultOf<PersonDecision> | undefined> {
    switch (action.kind) {
      case 'other': {
        const question = view.questions[action.question];
        if (!question) return undefined;
        if (answersAtOnce(view)) return decide(view, { action: 'answer', responses: [{ question: question.question, selected: [], other: text, notes: null }] }, chatId);
        const state = told.get(view.id);
        const selection = state?.selections[action.question];
        if (!state || !selection) return undefined;
        if (!question.multiSelect) selection.selected.clear();
        selection.other = text;
        void redraw(view, state);
        return undefined;
      }
      case 'allow-risky':
        if (text.trim().toLowerCase() !== CONFIRM_RISKY) {
          send(chatId, `Not allowed: to allow it, press Allow… again and type ${CONFIRM_RISKY}.`);
          return undefined;
        }
        return decide(view, { action: 'decide', decision: { behavior: 'allow', confirmRisky: true } }, chatId);
      case 'deny-message':
      case 'feedback':
        return decide(view, { action: 'decide', decision: { behavior: 'deny', message: text } }, chatId);
      case 'reply':
        return decide(view, { action: 'reply', text }, chatId);
      default:
        return undefined;
    }
  }

  async function onPress(query: CallbackQuery): Promise<void> {
    const chatId = query.message?.chat.id;
    if (chatId === undefined || !chats.isPaired(chatId)) return ignore(chatId);
    const toast = (text: string) => void call('answerCallbackQuery', (api) => api.answerCallbackQuery(query.id, text ? { text: shorten(text, TOAST_CHARS) } : {}));
    if (!isThePerson(chatId, query.from.is_bot ? undefined : query.from.id)) return toast(NOT_THE_PERSON);
    chats.seen(chatId);
    const target = callbacks.get(query.data ?? '');
    if (!target) return toast('askbridge does not know this button (any more).');
    if ('revoke' in target) return toast(target.chatId === chatId && query.message ? revokePressed(chatId, query.message.message_id, target.revoke) : NOT_THIS_MESSAGE);
    const view = store.get(target.askId);
    if (!view) return toast('This is no longer waiting.');
    if (view.status !== 'pending') return toast(`Already answered (${settledLine(view)})`);
    const state = told.get(view.id);
    const sent = await state?.messages.get(chatId);
    if (!state || !sent || sent.messageId !== query.message?.message_id) return toast(NOT_THIS_MESSAGE);
    const { action } = target;
    if (action.kind === 'approval') return toast(await grantStepShown(view, state, sent, action));
    if (action.kind === 'grant' || action.kind === 'grant-where' || (action.kind === 'allow' && action.grant)) {
      if (!offersGrant(draftOf(view, state))) return toast(NO_GRANT);
      if (action.kind !== 'allow') return toast(await grantStepShown(view, state, sent, action));
    }
    const prompt = promptFor(view, action);
    if (prompt !== undefined && query.message) {
      const message = await call('sendMessage', (api) => api.sendMessage(chatId, prompt, { reply_markup: { force_reply: true }, reply_parameters: { message_id: query.message!.message_id, allow_sending_without_reply: true } }));
      if (message) remember(prompts, `${chatId}:${message.message_id}`, target, MAX_PROMPTS);
      return toast('Type it in your reply.');
    }
    const result = await pressed(view, action, chatId);
    if (result === undefined) return toast('');
    if (typeof result === 'string') return toast(result);
    if (result.kind === 'allowed_once') return toast(ALLOWED_ONCE);
    if (result.kind !== 'answered') return toast(refusal(result));
    toast(action.kind === 'allow' && action.grant ? 'Allowed, and the same without asking for a while: /grants lists it, and revokes it.' : 'Sent.');
  }

  /** A step of choosing a grant (or Back to the approval's own buttons), drawn in the message it was pressed under; what the press is told. */
  async function grantStepShown(view: AskView, state: Told, sent: Sent, action: Extract<Action, { kind: 'grant' | 'grant-where' | 'approval' }>): Promise<string> {
    const shown = action.kind === 'approval' ? { ...sent, keyboard: draftOf(view, state).keyboard } : grantStep(view, sent, action);
    if (!shown) return NO_GRANT;
    const reply_markup = markup(view.id, state, shown.keyboard);
    await call('editMessageText', (api) => api.editMessageText(sent.chatId, sent.messageId, shown.text, { entities: shown.entities, link_preview_options: { is_disabled: true }, ...(reply_markup ? { reply_markup } : {}) }));
    return '';
  }

  /** The live grants of this chat's person as /grants lists them in this chat, each Revoke an id kept for this chat alone. */
  function grantsList(chatId: number): { text: string; entities: Entity[]; reply_markup: InlineKeyboardMarkup | undefined } {
    const draft = grantsDraft(options.grants?.live(viewerOf(deciderOf(chatId))) ?? []);
    const inline_keyboard = draft.keyboard.map((row) =>
      row.map((button): InlineKeyboardButton => {
        const id = randomBytes(16).toString('base64url');
        remember(callbacks, id, { chatId, revoke: button.revoke }, MAX_CALLBACKS);
        return { text: button.text, callback_data: id };
      }),
    );
    return { text: draft.text, entities: draft.entities, reply_markup: inline_keyboard.length > 0 ? { inline_keyboard } : undefined };
  }

  /** A Revoke of a /grants list: the grant (or every one) ends, and the list is drawn again as it is now; what the press is told. */
  function revokePressed(chatId: number, messageId: number, revoke: string): string {
    const ended = options.grants?.revoke(revoke, viewerOf(deciderOf(chatId))) ?? [];
    const list = grantsList(chatId);
    void call('editMessageText', (api) => api.editMessageText(chatId, messageId, list.text, { entities: list.entities, ...(list.reply_markup ? { reply_markup: list.reply_markup } : {}) }));
    if (ended.length === 0) return 'Nothing to revoke: it had already ended.';
    return `Revoked ${ended.length === 1 ? 'the grant' : `${ended.length} grants`}: those requests wait for you again.`;
  }

  /** A button that acts at once: a choice, Send, allow (with a grant), deny, Done, an MCP form's value, decline or cancel. A string is a toast instead. */
  async function pressed(view: AskView, action: Action, chatId: number): Promise<ResultOf<PersonDecision> | string | undefined> {
    switch (action.kind) {
      case 'heading':
        return 'Choose from the options under it.';
      case 'pick': {
        const question = view.questions[action.question];
        const option = question?.options[action.option];
        if (!question || !option) return undefined;
        if (answersAtOnce(view)) return decide(view, { action: 'answer', responses: [{ question: question.question, selected: [option.label], other: null, notes: null }] }, chatId);
        const state = told.get(view.id);
        const selection = state?.selections[action.question];
        if (!state || !selection) return undefined;
        if (question.multiSelect) {
          if (!selection.selected.delete(action.option)) selection.selected.add(action.option);
        } else {
          selection.selected = new Set([action.option]);
          selection.other = null;
        }
        void redraw(view, state);
        return undefined;
      }
      case 'send': {
        const selections = told.get(view.id)?.selections ?? [];
        const missing = view.questions.flatMap((_question, index) => (selections[index]?.selected.size || selections[index]?.other != null ? [] : [index + 1]));
        if (missing.length > 0) return `Choose an answer for every question first: ${missing.length === 1 ? 'question' : 'questions'} ${missing.join(', ')} ${missing.length === 1 ? 'has' : 'have'} none.`;
        const responses: Response[] = view.questions.map((question, index) => ({
          question: question.question,
          selected: question.options.filter((_option, optionIndex) => selections[index]!.selected.has(optionIndex)).map((option) => option.label),
          other: selections[index]!.other,
          notes: null,
        }));
        return decide(view, { action: 'answer', responses }, chatId);
      }
      case 'allow': {
        const decision = { behavior: 'allow' as const, ...(action.suggestion === undefined ? {} : { suggestion: action.suggestion }), ...(action.grant ? { grant: action.grant } : {}) };
        return decide(view, { action: 'decide', decision }, chatId);
      }
      case 'deny':
        return decide(view, { action: 'decide', decision: { behavior: 'deny' } }, chatId);
      case 'done':
        return decide(view, { action: 'reply', text: null }, chatId);
      case 'accept': {
        // Exactly the tapped value for the form's one field, checked as the page's answer is.
        const field = view.elicitation && oneTapField(view.elicitation)?.field;
        if (!field) return 'Not sent: answer this form on the page.';
        return decide(view, { action: 'elicitation', response: { action: 'accept', content: { [field.name]: action.value } } }, chatId);
      }
      case 'decline':
      case 'cancel':
        return decide(view, { action: 'elicitation', response: { action: action.kind } }, chatId);
      default:
        return undefined;
    }
  }

  /** A chat's decision on an ask, from this chat's person. */
  function decide<D extends Exclude<PersonDecision, { action: 'extend' }>>(view: AskView, decision: D, chatId: number): Promise<ResultOf<D>> {
    return options.decisions.take(view.id, decision, deciderOf(chatId));
  }

  function refusal(result: Exclude<ResultOf<PersonDecision>, { kind: 'answered' | 'allowed_once' }>): string {
    switch (result.kind) {
      case 'already_allowed':
        return 'You allowed it already: a second person must';
      case 'already_resolved':
        return `Already answered (${settledLine(result.ask)})`;
      case 'not_found':
        return 'This is no longer waiting.';
      case 'invalid':
        return `Not sent: ${result.error.message}`;
      case 'no_terminal':
        return 'Not sent: no terminal is behind this ask.';
      case 'failed':
        return 'Not delivered: the terminal asks instead.';
      case 'invalid_content':
        return `Not sent: ${result.errors.map((error) => error.message).join('; ')}`;
      case 'not_recorded':
        return `Not sent: its audit record could not be written (${result.reason}). It still waits.`;
      case 'unavailable':
        return `Not sent: ${result.message}. It still waits.`;
      case 'extended':
      case 'unchanged':
        return '';
    }
  }

  async function handle(update: Update): Promise<void> {
    try {
      if (update.message) await onMessage(update.message);
      else if (update.callback_query) await onPress(update.callback_query);
    } catch (error) {
      log.error({ error: (error as Error).message }, 'a Telegram update could not be handled');
    }
  }

  /** Connects (getMe) and polls until stopped; a refused token stops it, anything else is retried with backoff. */
  async function poll(current: Session): Promise<void> {
    const { signal } = current.abort;
    // grammY types its signals as its abort-controller shim's; a native one is what it listens to at run time.
    const apiSignal = signal as unknown as Parameters<Api['getMe']>[0];
    const { Api: GrammyApi } = await import('grammy');
    const apiRoot = current.config.apiRoot?.replace(/\/+$/, '');
    // Node's own fetch: grammY's node-fetch tells its signal by class name, which the daemon's bundle renames.
    const api = new GrammyApi(current.token, { fetch: globalThis.fetch, ...(apiRoot ? { apiRoot } : {}) });
    let backoffMs = 1000;
    let failing = false;
    /** After a failure: logs the first of a streak, waits, and says whether to go on (false: stopped, or the token refused). */
    const failed = async (error: unknown, what: string): Promise<boolean> => {
      if (signal.aborted) return false;
      const status = statusOf(error);
      current.problem = describe(error, current.token);
      if (status === 401) {
        log.error({ error: current.problem }, 'the Telegram bot token was refused (401): Telegram is off until the token in the user config is fixed');
        return false;
      }
      if (!failing) {
        if (status === 409) log.warn({ error: current.problem }, 'another program polls this Telegram bot (409): askbridge keeps trying; stop the other one, or give askbridge its own bot');
        else log.warn({ call: what, error: current.problem }, 'Telegram cannot be reached: retrying');
      }
      failing = true;
      const waitMs = status === 429 ? (retryAfterOf(error) ?? 1) * 1000 : backoffMs;
      backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      return pause(waitMs, signal);
    };
    const recovered = () => {
      if (failing) log.info({}, 'Telegram is reachable again');
      failing = false;
      backoffMs = 1000;
    };

    while (current.bot === undefined) {
      try {
        const me = await api.getMe(apiSignal);
        current.bot = me.username;
        current.api = api;
        recovered();
      } catch (error) {
        if (!(await failed(error, 'getMe'))) return;
      }
    }
    current.problem = '';
    log.info({ bot: current.bot }, 'Telegram bot connected: paired chats are asked');
    await api.deleteWebhook(undefined, apiSignal).catch(() => undefined); // getUpdates is refused while a webhook is set
    let offset = 0;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await api.getUpdates({ offset, timeout: options.pollSeconds ?? POLL_SECONDS, allowed_updates: ['message', 'callback_query'] }, apiSignal);
        recovered();
      } catch (error) {
        if (!(await failed(error, 'getUpdates'))) break;
        continue;
      }
      for (const update of updates) {
        offset = update.update_id + 1;
        await handle(update);
      }
    }
    // Confirms what was handled, so that a next start is not given it again; not when another daemon may poll already.
    if (offset > 0 && !current.handedOver) await Promise.race([api.getUpdates({ offset, limit: 1, timeout: 0 }).catch(() => undefined), sleep(1000)]);
  }

  /** Stops the bot; `handedOver`: the lock was lost, so another daemon may poll already. */
  function stopSession(handedOver = false): Promise<void> {
    const current = session;
    session = undefined;
    if (!current) return stopped;
    current.handedOver = handedOver;
    current.abort.abort();
    stopped = current.done;
    return stopped;
  }

  function startSession(config: TelegramConfig): void {
    const current: Session = { token: config.token, config, api: undefined, bot: undefined, problem: 'still connecting to Telegram', abort: new AbortController(), done: Promise.resolve(), handedOver: false };
    session = current;
    current.done = stopped.then(() => poll(current)).catch((error: unknown) => log.error({ error: describe(error, current.token) }, 'the Telegram bot stopped'));
  }

  /** The store's lock for the bot was taken or lost here: the bot starts, or stops at once. */
  function turnChanged(state: LeaderState): void {
    if (state === 'held') {
      log.info({}, 'this daemon polls the Telegram bot: it holds the shared store\'s lock for it');
      if (wanted && !session) startSession(wanted);
      return;
    }
    const lost = session !== undefined;
    if (lost) void stopSession(true);
    if (state === 'elsewhere') log.info({ stoppedHere: lost }, 'another daemon polls the Telegram bot: this one takes over when that one stops');
    else log.warn({ stoppedHere: lost }, 'the shared store cannot be reached: no daemon polls the Telegram bot until it can');
  }

  return {
    /** The user config's telegram key, now: the bot starts, stops, or starts again with the new one. */
    configure(config: TelegramConfig | undefined): void {
      if (JSON.stringify(config) === JSON.stringify(wanted)) return;
      wanted = config;
      const previous = stopSession();
      if (!config) {
        log.info({}, 'Telegram is off: the user config has no telegram key');
        // A daemon with no bot leaves the lock to one that has it, once its own bot has stopped.
        const ending = turn;
        turn = undefined;
        if (ending) void previous.then(() => ending.close());
        return;
      }
      if (options.takeTurns) {
        turn ??= options.takeTurns(turnChanged);
        if (turn.state() !== 'held') return;
      }
      startSession(config);
    },

    /** With a shared store and a bot: whether this daemon polls it, another does, or none can (the store is away). */
    polling(): TelegramPolling | undefined {
      return turn ? POLLING[turn.state()] : undefined;
    },

    /** Whether a chat's message shows this ask whole, as it is drawn now: what a chat may decide follows (choices.ts). */
    shows(view: AskView): Shown {
      return askDraft(view, { headersOnly: session?.config.headersOnly === true, link: options.publicLink(view.id) }).shown;
    },

    tell(view: AskView, tells: (person: string | undefined) => boolean): void {
      try {
        tell(view, tells);
      } catch (error) {
        log.error({ askId: view.id, error: (error as Error).message }, 'could not tell the Telegram chats');
      }
    },

    /** A one-time pairing code for `/start CODE`, once the bot is connected: it pairs the chat as `person`'s when one is named. */
    createPairingCode(person?: string): TelegramCode {
      if (!wanted) return { kind: 'not_configured' };
      if (!session) return { kind: 'not_ready', why: turn?.state() === 'elsewhere' ? 'another daemon sharing the store polls the bot: pair from that one' : 'the shared store cannot be reached, and only the daemon holding its lock polls the bot' };
      if (!session.bot) return { kind: 'not_ready', why: session.problem };
      return { kind: 'code', ...chats.createCode(person), bot: session.bot };
    },

    /** The person was removed: the codes made for them pair no chat from now on. */
    withdrawPairingCodes(person: string): void {
      chats.withdrawCodes(person);
    },

    /** The paired chats, as devices (most recently seen first). */
    devices(): Array<Omit<PairedChat, 'chatId' | 'userId'>> {
      return chats.list().map(({ id, name, pairedAt, lastSeen, person }) => ({ id, name, pairedAt, lastSeen, ...(person === undefined ? {} : { person }) }));
    },

    /** How many paired chats the bot could tell now (none while it is not connected): whether anyone could be told; with a route, only its people's chats. */
    pairedChats(route?: RouteView): number {
      return session?.api ? chats.list().filter((chat) => isRoutedTo({ route }, { kind: 'person', person: chat.person })).length : 0;
    },

    /** Unpairs a chat: it is ignored from now on, and its messages for waiting asks lose their buttons. */
    revoke(id: string): ChatRevoke {
      const result = chats.revoke(id);
      if (result.kind !== 'revoked') return result;
      const { chatId } = result.chat;
      for (const state of told.values()) {
        for (const pending of state.messages.values()) {
          void pending.then((sent) => {
            if (sent?.chatId === chatId) void call('editMessageReplyMarkup', (api) => api.editMessageReplyMarkup(sent.chatId, sent.messageId, {}));
          });
        }
      }
      return result;
    },

    async close(): Promise<void> {
      unsubscribe();
      await stopSession();
      turn?.close();
      turn = undefined;
    },
  };
}

export type Telegram = ReturnType<typeof createTelegram>;

/**
 * The person who sent a message: undefined when it was sent as a chat (an anonymous group admin, a
 * channel), or by a bot, as none is one person.
 */
function senderOf(message: Message): User | undefined {
  const { from } = message;
  return from && !from.is_bot && message.sender_chat === undefined ? from : undefined;
}
