// Pairing a chat of the stand-in Bot API (telegram-api.ts) with a real daemon, as a person does:
// `askbridge pair --telegram` prints a code, and the chat sends `/start CODE`.
import type { Daemon } from './daemon.js';
import { runCli } from './processes.js';
import type { Sender, TelegramApi, TelegramChat } from './telegram-api.js';

export const PAIR_LINE = /^Send this to @askbridge_test_bot in Telegram within 10 minutes: \/start ([A-Za-z0-9_-]+)\n$/;

/** `askbridge pair --telegram`, as a person runs it: the code it prints. */
export async function pairingCode(on: Daemon): Promise<string> {
  const paired = await runCli(['pair', '--telegram'], on.env);
  const line = paired.code === 0 ? PAIR_LINE.exec(paired.stdout) : null;
  if (!line) throw new Error(`askbridge pair --telegram printed no pairing line (exit ${paired.code}): ${paired.stdout}${paired.stderr}`);
  return line[1]!;
}

/** The chat sends `/start CODE` (in a group, from `from`) and is told it is paired. */
export async function pair(api: TelegramApi, on: Daemon, chat: TelegramChat, from?: Sender): Promise<void> {
  const code = await pairingCode(on);
  const sent = api.messages.length;
  api.sendText(chat, `/start ${code}`, from);
  await api.waitForMessage((message) => api.messages.indexOf(message) >= sent && message.chat.id === chat.id && message.text === 'Paired: askbridge will ask here.', 'the chat to be told it is paired');
}
