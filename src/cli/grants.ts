// `askbridge grants`: the person's live grants (what each allows, where, for how long, and from where
// it was made), `--json` for scripts, and `--revoke ID|all` to end one or every one at once: the
// requests they covered wait for a person again.
import { parseArgs } from 'node:util';
import { askbridgeCommand } from '../command-name.js';
import { grantScopeText, grantTimeLeft } from '../grant-text.js';
import { ErrorReplySchema, GrantsReplySchema } from '../protocol.js';
import { markInvisible, terminalJson, terminalText } from '../visible-text.js';
import { connectToDaemon } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { json: { type: 'boolean', default: false }, revoke: { type: 'string' } }, strict: true });
  const daemon = connectToDaemon(io.env);
  if (values.revoke !== undefined) {
    const response = await daemon.request('POST', `/api/grants/${encodeURIComponent(values.revoke)}/revoke`, {});
    if (response.status !== 200) {
      const { message } = readReply(ErrorReplySchema, response.body, 'refusal').error;
      throw new CliError(`not revoked: ${markInvisible(message)}`, response.status === 400 ? 2 : 1);
    }
    const { grants } = readReply(GrantsReplySchema, response.body, 'revoked grants');
    io.stderr(grants.length === 0 ? 'no grant was live\n' : `revoked ${grants.map((grant) => grant.id).join(', ')}: those requests wait for a person again\n`);
    return;
  }
  const { grants } = readReply(GrantsReplySchema, (await daemon.request('GET', '/api/grants')).body, 'list of grants');
  if (values.json) {
    io.stdout(`${terminalJson({ grants })}\n`);
    return;
  }
  if (grants.length === 0) {
    io.stdout('No live grants: every permission waits for a person.\n');
    return;
  }
  for (const grant of grants) io.stdout(`${grant.id}  ${terminalText(grant.rule)}  ${grantScopeText(grant, terminalText)}  ${grantTimeLeft(grant)}  made from ${terminalText(grant.by)}\n`);
  io.stderr(`End one with: ${askbridgeCommand(io.env)} grants --revoke ID (or all)\n`);
}
