// `askbridge people`: the people askbridge knows. `add NAME [--group G ...]` adds one (then `askbridge
// pair --person NAME` pairs their devices), `list` shows each with their groups, devices and Telegram
// chats, `remove NAME` removes one and unpairs every device and chat of theirs at once. The daemon
// checks every name and keeps the file; a refusal is its reason, on one line.
import { parseArgs } from 'node:util';
import { askbridgeCommand } from '../command-name.js';
import { ErrorReplySchema, PeopleReplySchema, PersonChangeReplySchema } from '../protocol.js';
import { markInvisible, terminalJson, terminalText } from '../visible-text.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { whenText } from './devices.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<void> {
  const { values, positionals } = parseArgs({ args: io.argv, allowPositionals: true, strict: true, options: { group: { type: 'string', multiple: true }, json: { type: 'boolean', default: false } } });
  const [action, name, ...extra] = positionals;
  const askbridge = askbridgeCommand(io.env);
  const usage = `use: ${askbridge} people add NAME [--group G ...] | list [--json] | remove NAME`;
  if (extra.length > 0 || (values.group !== undefined && action !== 'add')) throw new CliError(usage, 2);
  const daemon = connectToDaemon(io.env);
  switch (action) {
    case 'add': {
      if (name === undefined) throw new CliError(`add needs a name: ${usage}`, 2);
      const response = await daemon.request('POST', '/api/people', { name, ...(values.group ? { groups: values.group } : {}) });
      const { person } = readReply(PersonChangeReplySchema, refusedUnless(response, 'not added'), 'person');
      io.stderr(`added ${person.name}${person.groups.length > 0 ? ` (groups: ${person.groups.join(', ')})` : ''}: pair their devices with ${askbridge} pair --person ${person.name}\n`);
      return;
    }
    case 'remove': {
      if (name === undefined) throw new CliError(`remove needs a name: ${usage}`, 2);
      const response = await daemon.request('DELETE', `/api/people/${encodeURIComponent(name)}`);
      const { person, unpaired = [] } = readReply(PersonChangeReplySchema, refusedUnless(response, 'not removed'), 'person');
      io.stderr(`removed ${person.name}${unpaired.length > 0 ? `, and unpaired ${unpaired.map((device) => terminalText(device.name)).join(', ')}` : ''}\n`);
      return;
    }
    case 'list':
    case undefined: {
      if (name !== undefined) throw new CliError(usage, 2);
      const { people } = readReply(PeopleReplySchema, refusedUnless(await daemon.request('GET', '/api/people'), 'no list'), 'list of people');
      if (values.json) {
        io.stdout(`${terminalJson({ people })}\n`);
        return;
      }
      if (people.length === 0) {
        io.stdout(`No people: askbridge serves one person, you. Add one with ${askbridge} people add NAME.\n`);
        return;
      }
      for (const person of people) {
        io.stdout(`${person.name}${person.groups.length > 0 ? `  groups: ${person.groups.join(', ')}` : ''}\n`);
        if (person.devices.length === 0) io.stdout(`  no devices: ${askbridge} pair --person ${person.name}\n`);
        // A device's name comes from its browser or its chat: marked.
        for (const device of person.devices) io.stdout(`  ${device.id}  ${device.kind.padEnd(8)}  ${terminalText(device.name).padEnd(22)}  last seen ${whenText(device.lastSeen)}\n`);
      }
      return;
    }
    default:
      throw new CliError(`unknown action "${markInvisible(action)}": ${usage}`, 2);
  }
}

/** The body of a 200; otherwise the daemon's reason as the command's failure (a bad name is wrong usage, exit 2). */
function refusedUnless(response: { status: number; body: unknown }, what: string): unknown {
  if (response.status === 200) return response.body;
  const refusal = ErrorReplySchema.safeParse(response.body);
  throw new CliError(`${what}: ${refusal.success ? refusal.data.error.message : `the daemon answered ${response.status}`}`, response.status === 400 ? 2 : 1);
}
