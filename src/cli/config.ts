// `askbridge config`: the configuration a question asked in a directory would get, and where each
// value comes from (default, the user file, or the project's .claude/askbridge.json). A broken file
// is an error (exit 1); keys a project file may not set are a warning, as the rest of it applies.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createConfigReader, EffectiveConfigSchema, SCALAR_KEYS, type EffectiveConfig } from '../config.js';
import { connectToDaemon, DaemonUnreachable } from './client.js';
import type { CommandIo } from './command.js';
import { readReply } from './replies.js';

export async function run(io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { cwd: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const cwd = resolve(values.cwd ?? process.cwd());
  // What the running daemon applies (its last good version of a file that is broken now); the files alone when none runs.
  const fromDaemon = await daemonView(io.env, cwd);
  const effective = fromDaemon ?? createConfigReader(io.env).effective(cwd);
  const source = fromDaemon ? 'as the running daemon applies it' : 'read from the files: the daemon is not running';
  if (values.json) {
    io.stdout(`${JSON.stringify({ cwd, source: fromDaemon ? 'daemon' : 'files', ...effective }, null, 2)}\n`);
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
  for (const target of config.notify) for (const [kind, url] of Object.entries(target)) io.stdout(`    ${kind} ${new URL(url).origin}/…\n`);
  io.stdout(`  ${'push.fullText'.padEnd(19)} ${String(config.push.fullText === true).padEnd(14)} (${origins.push})\n`);
  for (const entry of effective.ignored) {
    io.stdout(`\n  ignored: ${entry.path}: ${entry.reason === 'changed' ? 'it changed since it was trusted' : 'it is not trusted yet'}; read it, then run \`askbridge trust ${entry.projectDir}\`\n`);
  }
  for (const warning of effective.warnings ?? []) io.stderr(`warning: ${warning.message}\n`);
  for (const error of effective.errors) io.stderr(`error: ${error.message}\n  (the daemon keeps using this file's last good version)\n`);
  return effective.errors.length > 0 ? 1 : 0;
}

async function daemonView(env: NodeJS.ProcessEnv, cwd: string): Promise<EffectiveConfig | undefined> {
  try {
    const response = await connectToDaemon(env).request('GET', `/api/config?cwd=${encodeURIComponent(cwd)}`);
    return response.status === 200 ? readReply(EffectiveConfigSchema, response.body, 'configuration') : undefined;
  } catch (error) {
    if (error instanceof DaemonUnreachable && error.state === 'not-running') return undefined;
    throw error;
  }
}
