// A stand-in for the Telegram Bot API, for the daemon's bot to talk to (telegram.apiRoot): a real
// HTTP server on 127.0.0.1 serving /bot<token>/<method> as the Bot API does (JSON or form bodies;
// `{ok: true, result}` or `{ok: false, error_code, description}`), with getUpdates held open until an
// update is queued or its timeout passes. It records every call, and a test queues what people do in
// chats: a text, a reply to a message, a press of a button; in a group, by which member, or sent as
// the group itself (an anonymous admin). Several daemons may share it, each at a root of its own
// (rootFor), so that a test tells whose calls are whose.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { now, wakeableWaits } from './clock.js';

export type TelegramChat = { id: number; type: 'private'; username: string; first_name: string } | { id: number; type: 'group'; title: string };
/** A Telegram account; in a private chat, the one person in it. */
export type TelegramUser = { id: number; is_bot: boolean; first_name: string; username?: string };
/** Who does something in a chat: a member, or the group itself (an anonymous admin; Telegram then names its GroupAnonymousBot as the sender). */
export type Sender = TelegramUser | 'the group';
/** `via`: the name of the root it came through (rootFor), absent through `root`. */
export type TelegramCall = { method: string; token: string; body: Record<string, unknown>; at: number; via?: string };
type Button = { text: string; callback_data?: string; url?: string };
/** A message the bot sent, as the stand-in keeps it (edits change it). */
export type SentMessage = { message_id: number; chat: TelegramChat; text: string; entities: unknown[]; reply_markup: { inline_keyboard?: Button[][]; force_reply?: boolean } | undefined };
type Failure = { error_code: number; description: string; parameters?: Record<string, unknown> };

export type TelegramApi = {
  /** The apiRoot to configure: http://127.0.0.1:PORT */
  root: string;
  /** An apiRoot of its own for one of several daemons sharing the bot: its calls carry `via: name`. */
  rootFor(name: string): string;
  bot: { id: number; username: string };
  /** Every call so far, in order. */
  calls: TelegramCall[];
  /** The getUpdates held open now, each by the name of its root (undefined: `root`). */
  openPolls(): Array<string | undefined>;
  /** Every message the bot sent so far, as edited since. */
  messages: SentMessage[];
  /** A chat where a person writes or presses. */
  privateChat(id: number, username: string): TelegramChat;
  group(id: number, title: string): TelegramChat;
  /** A person with a Telegram account, to act in a group. */
  user(id: number, username: string): TelegramUser;
  /** A person sends text in a chat (by default the private chat's person, or a group's member 555); returns the message's id. */
  sendText(chat: TelegramChat, text: string, from?: Sender): number;
  /** A person replies to one of the bot's messages. */
  reply(chat: TelegramChat, toMessageId: number, text: string, from?: Sender): number;
  /** A person presses a button (its callback data) under one of the bot's messages. */
  press(chat: TelegramChat, messageId: number, data: string, from?: TelegramUser): string;
  /** The next call of this method answers this failure instead. */
  failNext(method: string, failure: Failure): void;
  /** Waits for a call matching `match`, among those made or still to come. */
  waitForCall(match: (call: TelegramCall) => boolean, what: string, timeoutMs?: number): Promise<TelegramCall>;
  /** Waits for a message the bot sent that matches `match` (as it is now, edits included). */
  waitForMessage(match: (message: SentMessage) => boolean, what: string, timeoutMs?: number): Promise<SentMessage>;
  close(): Promise<void>;
};

/** A stand-in Bot API server; `tokens` are the bot tokens it knows (any other is answered 401). */
export async function startTelegramApi(tokens: string[]): Promise<TelegramApi> {
  const bot = { id: 7_000_001, username: 'askbridge_test_bot' };
  const calls: TelegramCall[] = [];
  const messages: SentMessage[] = [];
  const updates: Array<Record<string, unknown> & { update_id: number }> = [];
  /** Each getUpdates held open, and the root it came through. */
  const pollers = new Map<() => void, string | undefined>();
  const callWaits = wakeableWaits();
  const failures = new Map<string, Failure[]>();
  let nextUpdateId = 1;
  let nextMessageId = 1;
  let nextPress = 1;
  const chats = new Map<number, TelegramChat>();

  const wake = () => {
    for (const poll of [...pollers.keys()]) poll();
    callWaits.wake();
  };

  function queue(update: Record<string, unknown>): void {
    updates.push({ update_id: nextUpdateId++, ...update });
    wake();
  }

  const person = (chat: TelegramChat): TelegramUser => ({ id: chat.id > 0 ? chat.id : 555, is_bot: false, first_name: 'Alice' });
  /** Telegram's own account for what an anonymous admin sends as the group. */
  const groupAnonymousBot: TelegramUser = { id: 1_087_968_824, is_bot: true, first_name: 'Group', username: 'GroupAnonymousBot' };
  /** A message's sender fields, as Telegram fills them. */
  const senderFields = (chat: TelegramChat, from: Sender | undefined) => (from === 'the group' ? { from: groupAnonymousBot, sender_chat: chat } : { from: from ?? person(chat) });
  const messageOf = (sent: SentMessage) => ({ message_id: sent.message_id, date: Math.floor(Date.now() / 1000), chat: sent.chat, from: { id: bot.id, is_bot: true, first_name: 'askbridge', username: bot.username }, text: sent.text });

  async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (raw === '') return {};
    if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      return Object.fromEntries([...new URLSearchParams(raw)].map(([key, value]) => [key, parseValue(value)]));
    }
    return JSON.parse(raw) as Record<string, unknown>;
  }
  /** A form field as the Bot API reads it: JSON when it is JSON (objects, arrays, numbers), else text. */
  const parseValue = (value: string): unknown => {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  };

  function send(response: ServerResponse, body: unknown): void {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }
  const fail = (response: ServerResponse, failure: Failure) => {
    response.writeHead(failure.error_code, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ok: false, ...failure }));
  };

  function findMessage(body: Record<string, unknown>): SentMessage | undefined {
    return messages.find((message) => message.chat.id === Number(body.chat_id) && message.message_id === Number(body.message_id));
  }

  const server = createServer((request, response) => {
    void (async () => {
      const match = /^(?:\/([a-z0-9-]+))?\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.url ?? '');
      const body = await readBody(request).catch((): Record<string, unknown> => ({}));
      if (!match) return fail(response, { error_code: 404, description: 'Not Found' });
      const [, via, token, method] = match as unknown as [string, string | undefined, string, string];
      calls.push({ method, token, body, at: now(), ...(via === undefined ? {} : { via }) });
      wake();
      if (!tokens.includes(token)) return fail(response, { error_code: 401, description: 'Unauthorized' });
      const failure = failures.get(method)?.shift();
      if (failure) return fail(response, failure);
      switch (method) {
        case 'getMe':
          return send(response, { ok: true, result: { id: bot.id, is_bot: true, first_name: 'askbridge', username: bot.username, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false } });
        case 'deleteWebhook':
          return send(response, { ok: true, result: true });
        case 'getUpdates': {
          const offset = Number(body.offset ?? 0);
          // An offset confirms every update before it: they are never sent again.
          while (updates.length > 0 && updates[0]!.update_id < offset) updates.shift();
          const timeoutMs = Math.min(Number(body.timeout ?? 0), 50) * 1000;
          const answer = () => {
            pollers.delete(answer);
            clearTimeout(timer);
            if (!response.writableEnded) send(response, { ok: true, result: updates.filter((update) => update.update_id >= offset).slice(0, Number(body.limit ?? 100)) });
          };
          const timer = setTimeout(answer, timeoutMs);
          if (updates.some((update) => update.update_id >= offset) || timeoutMs === 0) return answer();
          pollers.set(answer, via);
          response.on('close', () => {
            pollers.delete(answer);
            clearTimeout(timer);
          });
          return;
        }
        case 'sendMessage': {
          const chat = chats.get(Number(body.chat_id));
          if (!chat) return fail(response, { error_code: 400, description: 'Bad Request: chat not found' });
          const sent: SentMessage = { message_id: nextMessageId++, chat, text: String(body.text), entities: (body.entities as unknown[]) ?? [], reply_markup: body.reply_markup as SentMessage['reply_markup'] };
          messages.push(sent);
          wake();
          return send(response, { ok: true, result: messageOf(sent) });
        }
        case 'editMessageText': {
          const sent = findMessage(body);
          if (!sent) return fail(response, { error_code: 400, description: 'Bad Request: message to edit not found' });
          sent.text = String(body.text);
          sent.entities = (body.entities as unknown[]) ?? [];
          sent.reply_markup = body.reply_markup as SentMessage['reply_markup'];
          wake();
          return send(response, { ok: true, result: messageOf(sent) });
        }
        case 'editMessageReplyMarkup': {
          const sent = findMessage(body);
          if (!sent) return fail(response, { error_code: 400, description: 'Bad Request: message to edit not found' });
          sent.reply_markup = body.reply_markup as SentMessage['reply_markup'];
          wake();
          return send(response, { ok: true, result: messageOf(sent) });
        }
        case 'answerCallbackQuery':
          return send(response, { ok: true, result: true });
        default:
          return fail(response, { error_code: 404, description: 'Not Found: method not found' });
      }
    })();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;

  function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return callWaits.until(probe, timeoutMs, () => new Error(`timed out after ${timeoutMs} ms waiting for ${what}; calls so far: ${calls.map((call) => call.method).join(', ')}`));
  }

  const register = (chat: TelegramChat) => {
    chats.set(chat.id, chat);
    return chat;
  };

  function message(chat: TelegramChat, text: string, from: Sender | undefined, replyTo?: number): number {
    const id = nextMessageId++;
    const repliedTo = replyTo === undefined ? undefined : messages.find((sent) => sent.chat.id === chat.id && sent.message_id === replyTo);
    queue({
      message: {
        message_id: id,
        date: Math.floor(Date.now() / 1000),
        chat,
        ...senderFields(chat, from),
        text,
        ...(text.startsWith('/') ? { entities: [{ type: 'bot_command', offset: 0, length: text.split(/\s/)[0]!.length }] } : {}),
        ...(replyTo === undefined ? {} : { reply_to_message: repliedTo ? messageOf(repliedTo) : { message_id: replyTo, date: 0, chat, text: '' } }),
      },
    });
    return id;
  }

  return {
    root: `http://127.0.0.1:${port}`,
    rootFor: (name) => `http://127.0.0.1:${port}/${name}`,
    bot,
    calls,
    messages,
    privateChat: (id, username) => register({ id, type: 'private', username, first_name: username }),
    group: (id, title) => register({ id, type: 'group', title }),
    user: (id, username) => ({ id, is_bot: false, first_name: username, username }),
    sendText: (chat, text, from) => message(chat, text, from),
    reply: (chat, toMessageId, text, from) => message(chat, text, from, toMessageId),
    press(chat, messageId, data, from) {
      const id = `press-${nextPress++}`;
      const sent = messages.find((each) => each.chat.id === chat.id && each.message_id === messageId);
      queue({ callback_query: { id, from: from ?? person(chat), chat_instance: String(chat.id), data, message: sent ? messageOf(sent) : { message_id: messageId, date: 0, chat, text: '' } } });
      return id;
    },
    failNext(method, failure) {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    waitForCall: (match, what, timeoutMs = 10_000) => waitFor(() => calls.find(match), what, timeoutMs),
    waitForMessage: (match, what, timeoutMs = 10_000) => waitFor(() => messages.find(match), what, timeoutMs),
    openPolls: () => [...pollers.values()],
    async close() {
      for (const poll of [...pollers.keys()]) poll();
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}

/** Every button under a message, row by row. */
export function buttonsOf(message: SentMessage): Button[] {
  return message.reply_markup?.inline_keyboard?.flat() ?? [];
}

/** The callback data of the button with exactly this text (throws when there is none). */
export function buttonData(message: SentMessage, text: string): string {
  const button = buttonsOf(message).find((each) => each.text === text);
  if (!button?.callback_data) throw new Error(`no button "${text}" under the message; buttons: ${buttonsOf(message).map((each) => each.text).join(' | ')}`);
  return button.callback_data;
}
