// `askbridge trust [DIR]`: let a project's .claude/askbridge.json apply, after showing what it does.
// Trust is given to the file's content as it is now (see src/trust.ts): after any change, the file
// is ignored again until this command is run again. `--list` shows what is trusted, `--revoke DIR`
// takes trust back. Everything shown from the file is the repository's text: invisible and control
// characters are marked, never written raw.
import { askbridgeCommand } from '../command-name.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigFileError, findProjectConfig, parseConfigFile, SCALAR_KEYS, USER_ONLY_KEYS, type ConfigFile } from '../config.js';
import { contentHash, createTrustStore } from '../trust.js';
import { terminalText } from '../visible-text.js';
import { CliError, type CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: io.argv,
    strict: true,
    allowPositionals: true,
    options: { list: { type: 'boolean', default: false }, revoke: { type: 'boolean', default: false } },
  });
  const store = createTrustStore(io.env);
  if (values.list) {
    const list = store.list();
    if (list.length === 0) io.stdout('No project config is trusted.\n');
    for (const entry of list) io.stdout(`${terminalText(entry.file)}  (trusted ${entry.trustedAt}, sha256 ${entry.sha256.slice(0, 12)}…)\n`);
    return;
  }
  if (positionals.length > 1) throw new CliError(`give one project directory (${askbridgeCommand(io.env)} trust --help)`, 2);
  const dir = resolve(positionals[0] ?? process.cwd());
  const file = findProjectConfig(dir);
  if (values.revoke) {
    const target = file ?? resolve(dir, '.claude', 'askbridge.json');
    io.stdout(store.revoke(target) ? `No longer trusted: ${terminalText(target)}\n` : `${terminalText(target)} was not trusted\n`);
    return;
  }
  if (!file) throw new CliError(`no .claude/askbridge.json in ${dir} or above it`);
  // One read: the bytes shown are the bytes whose hash is recorded, whatever changes the file meanwhile.
  const bytes = readFileSync(file);
  let config: ConfigFile;
  try {
    config = parseConfigFile(file, bytes);
  } catch (error) {
    throw new CliError(`${error instanceof ConfigFileError ? error.message : String(error)}: fix it before trusting it; nothing was trusted`);
  }
  io.stdout(`Trusting ${terminalText(file)}, which says:\n${describe(config)}`);
  store.trust(file, contentHash(bytes));
  io.stdout(`Trusted. It applies to the next question asked in ${terminalText(dir)}; after any change to the file, run \`${askbridgeCommand(io.env)} trust ${dir}\` again.\n`);
}

function describe(config: ConfigFile): string {
  const lines: string[] = [];
  for (const key of SCALAR_KEYS) {
    if (config[key] !== undefined) lines.push(`  ${key}: ${String(config[key])}`);
  }
  for (const [index, rule] of (config.rules ?? []).entries()) {
    const match = (what: string, value: unknown) => (value === undefined ? [] : [`${what} ${typeof value === 'string' ? `contains "${value}"` : `matches /${(value as { regex: string }).regex}/`}`]);
    const when = [...match('header', rule.header), ...match('question', rule.question)].join(' and ');
    const answer = rule.text !== undefined ? `answers with the text "${rule.text}"` : `chooses ${JSON.stringify(rule.choose)}`;
    lines.push(`  rule ${rule.name ? `"${rule.name}"` : `#${index + 1}`}: when the ${when}, ${answer} ${rule.when === 'immediately' ? 'AT ONCE, without asking anyone' : 'when nobody answers in time'}`);
  }
  const userOnly = USER_ONLY_KEYS.filter((key) => config[key] !== undefined);
  if (userOnly.length > 0) lines.push(`  ${userOnly.join(', ')}: ignored here (only your user config sets ${userOnly.length === 1 ? 'it' : 'them'})`);
  return `${lines.length > 0 ? lines.map((line) => terminalText(line, '    ')).join('\n') : '  (nothing: the defaults)'}\n`;
}
