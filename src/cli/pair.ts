// `askbridge pair`: a one-time link and its QR code, to pair a phone or another machine through the
// public URL. Without one, a phone cannot open any link askbridge could give (the daemon listens on
// loopback only): no QR code then, but what to do, and a link for another browser on this machine.
// The code works once, for ten minutes. `--telegram`: a one-time code that pairs a Telegram chat with
// the bot of the user config (the chat sends `/start CODE` to it). `--person NAME`: the device or
// chat it pairs is that person's (one askbridge knows: `askbridge people add`).
import { parseArgs } from 'node:util';
import { renderUnicodeCompact } from 'uqr';
import { askbridgeCommand } from '../command-name.js';
import { userConfigPath } from '../config.js';
import { ErrorReplySchema, PairingReplySchema, TelegramPairingReplySchema, type PairingRequest } from '../protocol.js';
import { publicUrlNotes, PublicUrlStatusSchema } from '../public-url-status.js';
import { connectToDaemon } from './client.js';
import { markInvisible } from '../visible-text.js';
import { CliError, type CommandIo } from './command.js';
import { readReply } from './replies.js';

/** The reply with the public URL as the daemon holds it (optional: a daemon started by an earlier askbridge does not send it). */
const PairingWithStatusSchema = PairingReplySchema.extend({ publicUrl: PublicUrlStatusSchema.optional() });

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { 'no-qr': { type: 'boolean', default: false }, telegram: { type: 'boolean', default: false }, person: { type: 'string' } }, strict: true });
  const body = pairingBody(values.person);
  if (values.telegram) return pairTelegram(io, body);
  const response = await connectToDaemon(io.env).request('POST', '/api/pairings', body);
  if (response.status !== 200) throw pairingRefused(response);
  const { links, publicUrl: status } = readReply(PairingWithStatusSchema, response.body, 'pairing link');
  for (const note of status ? publicUrlNotes(status) : []) io.stderr(`${note}\n`);
  if (!links.public) {
    const where = status ? ` in ${status.userFile}` : ' in the user config';
    const command = askbridgeCommand(io.env);
    io.stderr(
      [
        'No public URL is set, so a phone or another machine cannot open a link to askbridge: no QR code.',
        'To pair a phone: put a TLS front before askbridge (Tailscale Serve, Caddy, or an SSH tunnel: see "From your phone" in docs/remote.md),',
        `then set its address as "publicUrl"${where}; the running daemon applies it at once. Then run ${command} pair again.`,
        `For another browser on this machine, this one-time link pairs one browser within ten minutes (or run ${command} open):`,
        '',
      ].join('\n'),
    );
    io.stdout(`${links.local}\n`);
    return;
  }
  io.stdout(`${links.public}\n`);
  if (!values['no-qr']) io.stdout(`${renderUnicodeCompact(links.public, { border: 1 })}\n`);
  io.stderr('One-time link: it pairs one browser, within ten minutes.\n');
}

/** A code for `/start CODE` in the chat to pair; without a bot in the user config, what to put there. */
async function pairTelegram(io: CommandIo, body: PairingRequest): Promise<void> {
  const response = await connectToDaemon(io.env).request('POST', '/api/pairings/telegram', body);
  if (response.status === 409) {
    throw new CliError(
      [
        `No Telegram bot is set. Make one with @BotFather in Telegram, then put its token in ${userConfigPath(io.env)}:`,
        '  "telegram": { "token": "123456789:AA..." }',
        'The running daemon starts the bot at once. Then run this again. See "Telegram" in docs/channels.md.',
      ].join('\n'),
    );
  }
  if (response.status !== 200) throw pairingRefused(response, 'no Telegram pairing code');
  const { code, bot } = readReply(TelegramPairingReplySchema, response.body, 'Telegram pairing code');
  io.stdout(`Send this to @${markInvisible(bot)} in Telegram within 10 minutes: /start ${code}\n`);
}

/** The pairing's body: whose device it makes (`--person NAME`), or nobody's. */
export function pairingBody(person: string | undefined): PairingRequest {
  return person === undefined ? {} : { person };
}

/** The daemon's refusal, in its words: an unknown person names the people it knows (exit 2, as a wrong name is). */
export function pairingRefused(response: { status: number; body: unknown }, what = 'no pairing link'): CliError {
  const refusal = ErrorReplySchema.safeParse(response.body);
  return new CliError(`${what}: ${refusal.success ? markInvisible(refusal.data.error.message) : `the daemon answered ${response.status}`}`, response.status === 400 ? 2 : 1);
}
