// `askbridge devices`: the paired browsers and Telegram chats (kind, whose once people are defined,
// name, when paired, when last seen), and `--revoke ID` to unpair one: a browser's cookie and key stop working and its open pages
// are disconnected at once; a chat is ignored from then on. When the daemon cannot save the change
// (a full disk), the device stays paired and the command fails.
import { askbridgeCommand } from '../command-name.js';
import { parseArgs } from 'node:util';
import { DevicesReplySchema, ErrorReplySchema } from '../protocol.js';
import { markInvisible, terminalJson, terminalText } from '../visible-text.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { json: { type: 'boolean', default: false }, revoke: { type: 'string' } }, strict: true });
  const daemon = connectToDaemon(io.env);
  if (values.revoke !== undefined) {
    const response = await daemon.request('POST', `/api/devices/${encodeURIComponent(values.revoke)}/revoke`, {});
    if (response.status !== 200) {
      const { message } = readReply(ErrorReplySchema, response.body, 'refusal').error;
      throw new CliError(`not revoked: ${markInvisible(message)}`, response.status === 400 ? 2 : 1);
    }
    io.stderr(`revoked ${terminalText(values.revoke)}: it must pair again\n`);
    return;
  }
  const { devices } = readReply(DevicesReplySchema, (await daemon.request('GET', '/api/devices')).body, 'list of devices');
  if (values.json) {
    io.stdout(`${terminalJson(devices.map(({ current: _current, ...device }) => device))}\n`);
    return;
  }
  if (devices.length === 0) {
    io.stdout(`No paired devices: \`${askbridgeCommand(io.env)} open\` (this machine), \`${askbridgeCommand(io.env)} pair\` (a phone) or \`${askbridgeCommand(io.env)} pair --telegram\` (a Telegram chat) pairs one.\n`);
    return;
  }
  // Whose each is, once people are defined (askbridge pair --person NAME): a column only then.
  const personWidth = Math.max(0, ...devices.map((device) => device.person?.length ?? 0));
  for (const device of devices) {
    const person = personWidth === 0 ? '' : `${(device.person ?? '').padEnd(personWidth)}  `;
    io.stdout(`${device.id}  ${device.kind.padEnd(8)}  ${person}${terminalText(device.name).padEnd(22)}  paired ${whenText(device.pairedAt)}, last seen ${whenText(device.lastSeen)}\n`);
  }
  io.stderr(`Unpair one with: ${askbridgeCommand(io.env)} devices --revoke ID\n`);
}

/** When, for a person: "just now", "5 min ago", "3 h ago", or the day. */
export function whenText(at: number): string {
  if (at === 0) return 'before askbridge kept track';
  const minutes = Math.round((Date.now() - at) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h ago`;
  return new Date(at).toISOString().slice(0, 10);
}
