// `askbridge remote-hook`: what a Claude Code session on another machine (a container, a VM, a
// laptop) needs to ask this daemon: the settings entries to paste (that machine needs neither
// askbridge nor Node), on stdout, and the one command that writes it where askbridge is installed.
// It carries the hook key, which can only ask questions (and say a session ended), and the public
// URL the other machine reaches.
import { askbridgeCommand } from '../command-name.js';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { HTTP_HOOK_PATH, MACHINE_HEADER, UNNAMED_MACHINE } from '../http-hook.js';
import { parsePublicUrl } from '../public-url.js';
import { isProcessAlive, openStateDir, resolveStateDir } from '../state-dir.js';
import { shellQuote, waitingMessage, withInstalledHooks, type AskHook } from '../claude-settings.js';
import { PersonNameSchema } from '../protocol.js';
import { CliError, type CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { url: { type: 'string' }, machine: { type: 'string' }, person: { type: 'string' } }, strict: true });
  const person = personOption(values.person);
  const stateDir = openStateDir(resolveStateDir(io.env));
  const running = stateDir.readDaemonInfo();
  const raw = values.url ?? (running && isProcessAlive(running.pid) ? running.publicUrl : undefined);
  if (raw === undefined) {
    throw new CliError('no public URL: start the daemon with one (publicUrl in the user config, or --public-url), or give --url (for an SSH tunnel: --url http://127.0.0.1:PORT on the other end)', 2);
  }
  const publicUrl = parsePublicUrl(raw);
  if ('error' in publicUrl) throw new CliError(`${raw}: ${publicUrl.error}`, 2);
  stateDir.ensure();
  const key = stateDir.ensureHookKey(askbridgeCommand(io.env));
  const machine = values.machine ?? UNNAMED_MACHINE;
  const hook: AskHook = { transport: 'http', url: `${publicUrl.origin}${HTTP_HOOK_PATH}`, key, machine, ...(person ? { person } : {}) };
  // Exactly what `install --url` writes there.
  io.stdout(`${JSON.stringify(withInstalledHooks({}, { ask: hook, approvals: true, turnEnds: true, statusMessage: waitingMessage({ page: publicUrl.href }) }), null, 2)}\n`);
  io.stderr(
    [
      '',
      'Paste the above into .claude/settings.local.json of a project on the other machine (or its ~/.claude/settings.json),',
      `merged with what is there${values.machine ? '' : `, with "${MACHINE_HEADER}" set to the name the page should show for that machine (in every entry)`}.`,
      // That machine's own askbridge, on its PATH: this machine's form does not run there.
      `Where askbridge is installed on the other machine, this writes it instead:\n  askbridge install --url ${shellQuote(publicUrl.origin)} --key ${key} --machine ${shellQuote(values.machine ?? hostname())}${person ? ` --person ${person}` : ''}`,
      `The key can only ask questions; \`${askbridgeCommand(io.env)} install --rotate-key\` here revokes it.`,
      '',
    ].join('\n'),
  );
}

/**
 * `--person NAME`: whose sessions the remote hook's are, checked here as the daemon checks its header,
 * so a name it would refuse is never written into anyone's settings.
 */
export function personOption(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const parsed = PersonNameSchema.safeParse(raw);
  if (!parsed.success) throw new CliError(`--person ${JSON.stringify(raw)}: ${parsed.error.issues[0]?.message ?? 'not a person\'s name'}`, 2);
  return parsed.data;
}
