// What a person's `askbridge start` (npm start) says about Claude Code before the daemon runs. When
// Claude Code is here and its user settings do not wire askbridge yet, a start on a terminal offers
// once to run `askbridge install --user`; the answer is remembered, so it never asks twice. Without
// a terminal it changes nothing and names the one command to run.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { askbridgeCommand } from '../command-name.js';
import { openStateDir, resolveStateDir, writeFileAtomic } from '../state-dir.js';
import { countInstalledHooks, readSettingsFile, settingsPath } from '../claude-settings.js';
import { findOnPath } from './find-on-path.js';
import { CliError, type CommandIo } from './command.js';

/** In the state directory: present once the offer was made, whatever the answer. */
const OFFERED_FILE = 'install-offered';

type Situation = { state: 'wired' | 'no-claude' } | { state: 'unwired'; settingsFile: string };

export function claudeCodeSituation(env: NodeJS.ProcessEnv): Situation {
  const home = env.HOME || homedir();
  if (findOnPath(env, 'claude') === undefined && !existsSync(join(home, '.claude'))) return { state: 'no-claude' };
  const settingsFile = settingsPath('user', home, home);
  const settings = readSettingsFile('user', settingsFile);
  // A file askbridge cannot read is `doctor`'s to explain; offering to edit it would fail.
  if (settings.state === 'invalid' || (settings.state === 'ok' && countInstalledHooks(settings.settings) > 0)) return { state: 'wired' };
  return { state: 'unwired', settingsFile };
}

export async function offerToWireClaudeCode(io: CommandIo, interactive: boolean): Promise<void> {
  const situation = claudeCodeSituation(io.env);
  if (situation.state !== 'unwired') return;
  const command = `${askbridgeCommand(io.env)} install --user`;
  const offered = join(resolveStateDir(io.env), OFFERED_FILE);
  if (!interactive || existsSync(offered)) {
    io.stderr(`Claude Code does not send its questions to askbridge yet: \`${command}\` wires it for every project, and then each Claude Code session starts the daemon itself.\n`);
    return;
  }
  const { confirm, isCancel, log } = await import('@clack/prompts');
  const wire = await confirm({
    message: `Claude Code is installed, but its questions do not come to askbridge yet. Wire it for every project now (\`${command}\`, which edits ${situation.settingsFile})? Each Claude Code session then starts the daemon itself.`,
    initialValue: true,
  });
  if (isCancel(wire)) throw new CliError('left: nothing was changed or started', 130);
  openStateDir(resolveStateDir(io.env)).ensure();
  writeFileAtomic(offered, `${new Date().toISOString()}\n`);
  if (!wire) {
    log.info(`Not wired. Later: ${command}`);
    return;
  }
  const { run } = await import('./install.js');
  await run({ ...io, argv: ['--user'] });
}
