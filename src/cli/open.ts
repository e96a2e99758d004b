// `askbridge open`: a one-time link that pairs a browser on this machine, printed and opened
// (`--print`: only printed); `--person NAME`: the browser it pairs is that person's.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { PairingReplySchema } from '../protocol.js';
import { connectToDaemon } from './client.js';
import type { CommandIo } from './command.js';
import { pairingBody, pairingRefused } from './pair.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { print: { type: 'boolean', default: false }, person: { type: 'string' } }, strict: true });
  const daemon = connectToDaemon(io.env);
  const response = await daemon.request('POST', '/api/pairings', pairingBody(values.person));
  if (response.status !== 200) throw pairingRefused(response);
  const url = readReply(PairingReplySchema, response.body, 'pairing link').links.local;
  io.stdout(`${url}\n`);
  if (!values.print) openInBrowser(url);
}

/** Best effort: with no desktop (ssh, CI) there is nothing to open and the printed link is enough. */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No opener on this machine: the link is printed.
  }
}
