// `askbridge config`: the configuration a question asked in a directory would get, and where each
// value comes from (default, the user file, or the project's .claude/askbridge.json), and the public
// URL the daemon accepts (from its flag, the environment, the user file, or none). A broken file is
// an error (exit 1); keys a project file may not set are a warning, as the rest of it applies.
import { askbridgeCommand } from '../command-name.js';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createConfigReader, EffectiveConfigSchema, SCALAR_KEYS, type EffectiveConfig } from '../config.js';
import { choosePublicUrl } from '../public-url.js';
import { publicUrlNotes, publicUrlSourceName, PublicUrlStatusSchema, type PublicUrlStatus } from '../public-url-status.js';
import { connectToDaemon, DaemonUnreachable } from './client.js';
import type { CommandIo } from './command.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { cwd: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const cwd = resolve(values.cwd ?? process.cwd());
  // What the running daemon applies (its last good version of a file that is broken now); the files alone when none runs.
  const fromDaemon = await daemonView(io.env, cwd);
  const reader = createConfigReader(io.env);
  const effective = fromDaemon ?? reader.effective(cwd);
  // A daemon started by an earlier askbridge does not say its public URL.
  const publicUrl = fromDaemon ? fromDaemon.publicUrl : publicUrlFromFiles(io, effective.files.user, reader.refresh(effective.files.user).file?.publicUrl);
  const source = fromDaemon ? 'as the running daemon applies it' : 'read from the files: the daemon is not running';
  if (values.json) {
    io.stdout(`${JSON.stringify({ cwd, source: fromDaemon ? 'daemon' : 'files', ...effective, ...(publicUrl ? { publicUrl } : {}) }, null, 2)}\n`);
    return effective.errors.length > 0 ? 1 : 0;
  }
  io.stdout(`Configuration for questions asked in ${cwd} (${source})\n`);
  io.stdout(`  user file:    ${effective.files.user}\n  project file: ${effective.files.project ?? '(none: .claude/askbridge.json in this directory or above)'}\n\n`);
  const { config, origins } = effective;
  for (const key of SCALAR_KEYS) {
    io.stdout(`  ${key.padEnd(19)} ${String(config[key]).padEnd(14)} (${origins[key]})\n`);
  }
  io.stdout(`  ${'rules'.padEnd(19)} ${String(config.rules.length).padEnd(14)} (${origins.rules})\n`);
  for (const [index, rule] of config.rules.entries()) io.stdout(`    #${index + 1} ${JSON.stringify(rule)}\n`);
  io.stdout(`  ${'notify'.padEnd(19)} ${`${config.notify.length} webhook(s)`.padEnd(14)} (${origins.notify})\n`);
  // A webhook's path is its secret (a Slack or Discord key, an ntfy topic): only where it goes is shown.
  for (const target of config.notify) {
    for (const [kind, url] of Object.entries(target)) if (typeof url === 'string') io.stdout(`    ${kind} ${new URL(url).origin}/…${kind === 'ntfy' && target.actions ? ' (one-tap actions)' : ''}\n`);
  }
  io.stdout(`  ${'push.fullText'.padEnd(19)} ${String(config.push.fullText === true).padEnd(14)} (${origins.push})\n`);
  if (publicUrl) {
    const unset = 'only this machine reaches askbridge: see "From your phone" in docs/remote.md';
    io.stdout(`  ${'publicUrl'.padEnd(19)} ${(publicUrl.url ?? '(none)').padEnd(14)} (${publicUrl.url ? publicUrlSourceName(publicUrl.source) : `not set: ${unset}`})\n`);
    for (const note of publicUrlNotes(publicUrl)) io.stdout(`    ${note}\n`);
  }
  for (const entry of effective.ignored) {
    io.stdout(`\n  ignored: ${entry.path}: ${entry.reason === 'changed' ? 'it changed since it was trusted' : 'it is not trusted yet'}; read it, then run \`${askbridgeCommand(io.env)} trust ${entry.projectDir}\`\n`);
  }
  for (const warning of effective.warnings ?? []) io.stderr(`warning: ${warning.message}\n`);
  for (const error of effective.errors) io.stderr(`error: ${error.message}\n  (the daemon keeps using this file's last good version)\n`);
  return effective.errors.length > 0 ? 1 : 0;
}

/** The daemon's reply: a question's configuration, and the public URL it accepts. */
const ConfigReplySchema = EffectiveConfigSchema.extend({ publicUrl: PublicUrlStatusSchema.optional() });

/**
 * The public URL a daemon started now would use: the environment's, else the user file's (a flag
 * is given to `askbridge start`, so none here). A variable that cannot be used is a warning.
 */
function publicUrlFromFiles(io: CommandIo, userFile: string, userValue: string | undefined): PublicUrlStatus {
  const choice = choosePublicUrl({ environment: io.env.ASKBRIDGE_PUBLIC_URL, user: userValue });
  if ('error' in choice) {
    io.stderr(`warning: ASKBRIDGE_PUBLIC_URL cannot be used, and the daemon would refuse to start with it: ${choice.error}\n`);
    return { source: 'none', userFile };
  }
  const notUsed = choice.source === 'environment' && userValue !== undefined && userValue !== '' && new URL(userValue).origin !== choice.url?.origin;
  return { ...(choice.url ? { url: choice.url.origin } : {}), source: choice.source, userFile, ...(notUsed ? { userValueNotUsed: userValue } : {}) };
}

async function daemonView(env: NodeJS.ProcessEnv, cwd: string): Promise<(EffectiveConfig & { publicUrl?: PublicUrlStatus | undefined }) | undefined> {
  try {
    const response = await connectToDaemon(env).request('GET', `/api/config?cwd=${encodeURIComponent(cwd)}`);
    return response.status === 200 ? readReply(ConfigReplySchema, response.body, 'configuration') : undefined;
  } catch (error) {
    if (error instanceof DaemonUnreachable && error.noDaemonServes) return undefined;
    throw error;
  }
}
