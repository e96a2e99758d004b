// `askbridge doctor --route`: where an ask would go. The daemon computes it (POST /api/route/explain,
// the same routeFor every ask that opens goes through, with its live config and people), and this
// prints the rule that matches, the people it names (groups expanded), whether two must allow, and
// which of them could see it now. The names printed are the user's own config and people: still
// shown with invisible characters marked.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { askbridgeCommand } from '../command-name.js';
import { RouteExplainReplySchema, RouteExplainRequestSchema, type RouteExplainReply } from '../route-explain.js';
import { describeZodError, ErrorReplySchema, checkShape } from '../protocol.js';
import { markInvisible } from '../visible-text.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<number> {
  const { values } = parseArgs({
    args: io.argv,
    strict: true,
    options: {
      route: { type: 'boolean' },
      project: { type: 'string' },
      agent: { type: 'string' },
      kind: { type: 'string' },
      machine: { type: 'string' },
      person: { type: 'string' },
      risky: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const asked = RouteExplainRequestSchema.safeParse({
    cwd: resolve(values.project ?? process.cwd()),
    ...(values.agent === undefined ? {} : { agent: values.agent }),
    ...(values.kind === undefined ? {} : { kind: values.kind }),
    ...(values.machine === undefined ? {} : { machine: values.machine }),
    ...(values.person === undefined ? {} : { person: values.person }),
    risky: values.risky,
  });
  if (!asked.success) throw new CliError(`doctor --route: ${describeZodError(asked.error).slice(0, 3).join('; ')}`, 2);
  const response = await connectToDaemon(io.env).request('POST', '/api/route/explain', asked.data);
  if (response.status !== 200) {
    const refusal = checkShape(ErrorReplySchema, response.body);
    throw new CliError(`the daemon refused: ${refusal.ok ? refusal.value.error.message : `status ${response.status}`}`);
  }
  const reply = readReply(RouteExplainReplySchema, response.body, 'route explanation');
  if (values.json) io.stdout(`${JSON.stringify(reply)}\n`);
  else io.stdout(describeRoute(reply, askbridgeCommand(io.env)));
  return 0;
}

/** The explanation in lines: the rule, its people, the approvals, and who could see it now. */
export function describeRoute(reply: RouteExplainReply, command: string): string {
  const shown = (text: string) => markInvisible(text);
  if (reply.people === 0) return `no people are defined: everyone sees everything (${reply.rules} route rule(s) apply once people are added: \`${command} people add NAME\`)\n`;
  const { route } = reply;
  if (!route) return `no rule matches (of ${reply.rules}) and the session names no person askbridge knows: everyone sees and decides it\n`;
  const lines = [route.rule === undefined ? "no rule matches: it goes to the session's own person (remote-hook --person)" : `rule: ${shown(route.rule)}${reply.to ? ` (to ${reply.to.map(shown).join(', ')})` : ''}`];
  if (route.people.length === 0) lines.push('people: none askbridge knows: nobody can see or decide it (only the local CLI)');
  else lines.push(`people: ${route.people.map(shown).join(', ')}`);
  lines.push(route.approvals === 2 ? 'approvals: two distinct people must allow it' : 'approvals: one person decides');
  for (const each of reply.reach) {
    const groups = each.groups.length === 0 ? '' : ` (groups ${each.groups.map((group) => `@${shown(group)}`).join(', ')})`;
    const could = each.devices + each.chats === 0 ? 'no paired device or chat' : `${each.devices} paired device(s), ${each.chats} Telegram chat(s)`;
    lines.push(`  ${shown(each.person)}${groups}: ${could}, ${each.pagesOpen} page(s) open`);
  }
  return `${lines.join('\n')}\n`;
}
