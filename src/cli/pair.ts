// `askbridge pair`: a one-time link and its QR code, to pair a phone or another machine through the
// public URL (or, without one, another browser on this machine). The code works once, for ten minutes.
import { parseArgs } from 'node:util';
import { renderUnicodeCompact } from 'uqr';
import { PairingReplySchema } from '../protocol.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { 'no-qr': { type: 'boolean', default: false } }, strict: true });
  const response = await connectToDaemon(io.env).request('POST', '/api/pairings', {});
  if (response.status !== 200) throw new CliError(`the daemon refused a pairing link (${response.status})`);
  const { links } = readReply(PairingReplySchema, response.body, 'pairing link');
  const link = links.public ?? links.local;
  if (!links.public) io.stderr('No public URL is set, so this link works only on this machine: see "From your phone" in the README to reach askbridge from another device.\n');
  io.stdout(`${link}\n`);
  if (!values['no-qr']) io.stdout(`${renderUnicodeCompact(link, { border: 1 })}\n`);
  io.stderr('One-time link: it pairs one browser, within ten minutes.\n');
}
