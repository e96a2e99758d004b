// `askbridge away [on|off]`: whether the person is away. While away, the end of each of Claude's
// turns waits for their reply (the page, `askbridge watch`, `askbridge reply`); back (off), every turn
// end waiting is let go and Claude stops, as it does with nobody away. Without an argument, the
// state as it is. One line either way.
import { parseArgs } from 'node:util';
import { AwayReplySchema, ErrorReplySchema } from '../protocol.js';
import { askbridgeCommand } from '../command-name.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readReply } from './replies.js';
import { awayLines } from './turn-end-text.js';

/** `command` runs askbridge here (askbridgeCommand). */
function usage(command: string): string {
  return `${command} away on|off (or ${command} away: the state as it is)`;
}

export async function run(io: CommandIo): Promise<void> {
  const { positionals } = parseArgs({ args: io.argv, allowPositionals: true, strict: true, options: {} });
  if (positionals.length > 1) throw new CliError(`one of on or off: ${usage(askbridgeCommand(io.env))}`, 2);
  const [wanted] = positionals;
  if (wanted !== undefined && wanted !== 'on' && wanted !== 'off') throw new CliError(`"${wanted}" is neither on nor off: ${usage(askbridgeCommand(io.env))}`, 2);
  const daemon = connectToDaemon(io.env);
  const response = wanted === undefined ? await daemon.request('GET', '/api/away') : await daemon.request('PUT', '/api/away', { away: wanted === 'on' });
  if (response.status !== 200) throw new CliError(`the daemon refused: ${readReply(ErrorReplySchema, response.body, 'refusal').error.message}`);
  io.stdout(`${awayLines(readReply(AwayReplySchema, response.body, 'away switch'), askbridgeCommand(io.env))}\n`);
}
