// What makes an approval dangerous, in words: a built-in list of risky actions (a recursive delete
// outside the project, a force-push, a download run by a shell, a write to a secret file…), which the
// user config can extend or narrow (`risk.add`, `risk.remove`; user file only). Every simple command
// of a shell line is checked, and so is what runs nested in it (`$(…)`, `bash -c`, `eval`, `xargs`,
// `sudo cmd`, `find -exec`…); a line that cannot be read with certainty is itself worth a look.
// The daemon computes it once, when an approval opens; pages and clients only show it. A risky
// approval is never allowed by one tap, and never covered by a grant. Pure: no I/O (the home folder
// is passed in).
import { homedir } from 'node:os';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { matchesText, type BuiltInRisk, type Config } from './config.js';
import type { Approval } from './protocol.js';
import { parseShell, type Redirect, type ShellCommand } from './shell-command.js';
import { shorten } from './shorten.js';

/** Why an approval is risky: one short reason per risky action found, in the order found. */
export type Risk = { reasons: string[] };

/** What the list is checked with: the approval's folder, the home folder, and the user's additions and removals. */
type Context = { cwd: string; home: string; risk: Config['risk']; found: Map<string, true>; depth: number };

/** Nested shells (`bash -c "eval '…'"`) are followed this deep; deeper is an unclear command. */
const MAX_DEPTH = 8;
/** A path or a command in a reason: enough to recognise it. */
const SHOWN_CHARS = 80;

/**
 * Why this approval is risky, or undefined when nothing on the list matches. `cwd` is the project
 * folder the agent asked from ('' when unknown: then every relative path is outside it).
 */
export function riskOf(approval: Pick<Approval, 'toolName' | 'toolInput'>, cwd: string, config: Pick<Config, 'risk'>, home = homedir()): Risk | undefined {
  const context: Context = { cwd, home, risk: config.risk, found: new Map(), depth: 0 };
  const { toolName, toolInput } = approval;
  const command = shellCommandOf(toolName, toolInput);
  if (command !== undefined) checkShell(command, context);
  for (const path of writtenPaths(toolName, toolInput)) checkWrite(path, context);
  if (command === undefined) for (const add of config.risk.add) if (matchesText(add.match, toolName)) flag(context, undefined, add.reason);
  const reasons = [...context.found.keys()];
  return reasons.length > 0 ? { reasons } : undefined;
}

function flag(context: Context, name: BuiltInRisk | undefined, reason: string): void {
  if (name !== undefined && context.risk.remove.includes(name)) return;
  context.found.set(reason, true);
}

/** The command line a shell tool runs: Claude Code's and opencode's Bash, Codex's exec_command and shell, Gemini's run_shell_command. */
function shellCommandOf(toolName: string, input: Readonly<Record<string, unknown>>): string | undefined {
  const field = toolName === 'exec_command' ? input.cmd : ['Bash', 'shell', 'local_shell', 'run_shell_command'].includes(toolName) ? input.command : undefined;
  if (typeof field === 'string') return field;
  if (Array.isArray(field) && field.every((word) => typeof word === 'string')) return field.map(quoteWord).join(' ');
  return undefined;
}

const quoteWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** The files a file tool writes: Claude Code's Write, Edit, MultiEdit and NotebookEdit, opencode's edit, Gemini's write_file and replace, Codex's apply_patch. */
function writtenPaths(toolName: string, input: Readonly<Record<string, unknown>>): string[] {
  const text = (key: string) => (typeof input[key] === 'string' ? [input[key] as string] : []);
  switch (toolName) {
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'write_file':
    case 'replace':
      return text('file_path');
    case 'NotebookEdit':
      return text('notebook_path');
    case 'apply_patch': {
      const patch = [...text('input'), ...text('patch')].join('\n');
      return [...patch.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)].map((match) => match[1]!.trim());
    }
    default:
      return [];
  }
}

function checkShell(line: string, context: Context): void {
  if (context.depth > MAX_DEPTH) {
    flag(context, 'unclear command', 'nests shells too deeply to read: read it whole');
    return;
  }
  const parsed = parseShell(line);
  if (!parsed.sure) flag(context, 'unclear command', `cannot be read with certainty (${parsed.unsure}): read it whole`);
  const inner = { ...context, depth: context.depth + 1 };
  for (const nested of parsed.nested) {
    checkShell(nested, inner);
    if (DOWNLOADERS.has(programOf(parseShell(nested).commands[0]?.words ?? []))) downloadsInto(parsed.commands, context);
  }
  parsed.commands.forEach((command, index) => {
    checkCommand(command.words, command, context);
    const previous = parsed.commands[index - 1];
    if (previous?.separator === '|' || previous?.separator === '|&') checkPipe(parsed.commands, index, context);
  });
  for (const command of parsed.commands) for (const add of context.risk.add) if (matchesText(add.match, command.words.join(' '))) flag(context, undefined, add.reason);
}

/** A download (curl, wget) whose output a shell or an interpreter runs: in a pipe, or through `$(…)`/`<(…)`. */
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh']);
const INTERPRETERS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'ash', 'python', 'python3', 'perl', 'ruby', 'node', 'php', 'pwsh', 'powershell', 'iex']);
const DOWNLOAD_REASON = 'runs a script downloaded from the internet (curl | sh)';

function checkPipe(commands: readonly ShellCommand[], index: number, context: Context): void {
  const runs = unwrapped(commands[index]!.words);
  if (!INTERPRETERS.has(programOf(runs))) return;
  for (let before = index - 1; before >= 0; before--) {
    if (DOWNLOADERS.has(programOf(unwrapped(commands[before]!.words)))) flag(context, 'curl | sh', DOWNLOAD_REASON);
    const separator = commands[before - 1]?.separator;
    if (separator !== '|' && separator !== '|&') break;
  }
}

/** A substitution downloaded something: risky where an interpreter is given it (`bash <(curl …)`, `sh -c "$(curl …)"`). */
function downloadsInto(commands: readonly ShellCommand[], context: Context): void {
  for (const command of commands) {
    const runs = unwrapped(command.words);
    if (INTERPRETERS.has(programOf(runs)) || programOf(runs) === 'eval') flag(context, 'curl | sh', DOWNLOAD_REASON);
  }
}

/** A program's name as the list knows it: `/usr/bin/rm` is rm. */
function programOf(words: readonly string[]): string {
  return basename(words[0] ?? '');
}

/** Options that take a value, for the wrappers whose wrapped command follows their options. */
const WRAPPER_VALUE_OPTIONS: Record<string, readonly string[]> = {
  sudo: ['-u', '-g', '-U', '-C', '-D', '-h', '-p', '-r', '-t', '-T', '--user', '--group', '--chdir', '--prompt'],
  doas: ['-u', '-C'],
  env: ['-u', '-C', '-S', '--unset', '--chdir', '--split-string'],
  xargs: ['-n', '-I', '-i', '-P', '-L', '-l', '-d', '-E', '-e', '-s', '-a', '--max-args', '--replace', '--max-procs', '--max-lines', '--delimiter', '--eof', '--max-chars', '--arg-file'],
  nice: ['-n', '--adjustment'],
  ionice: ['-c', '-n', '-p'],
  timeout: ['-s', '-k', '--signal', '--kill-after'],
  stdbuf: ['-i', '-o', '-e'],
  nohup: [],
  command: [],
  builtin: [],
  exec: ['-a'],
  time: ['-f', '-o', '--format', '--output'],
  watch: ['-n', '-d', '--interval'],
  unbuffer: [],
  caffeinate: ['-t', '-w'],
};

/** The command a wrapper runs (`sudo -u x rm …` runs `rm …`), wrappers removed; the words as they are otherwise. */
function unwrapped(words: readonly string[]): string[] {
  let rest = [...words];
  for (let guard = 0; guard < 16; guard++) {
    const program = programOf(rest);
    const valued = WRAPPER_VALUE_OPTIONS[program];
    if (valued === undefined) return rest;
    let i = 1;
    while (i < rest.length) {
      const word = rest[i]!;
      if (word === '--') {
        i++;
        break;
      }
      if (program === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i++;
      else if (word.startsWith('-') && word !== '-') i += valued.includes(word) ? 2 : 1;
      else break;
    }
    // timeout's first operand is its duration.
    if (program === 'timeout') i++;
    rest = rest.slice(i);
  }
  return rest;
}

function checkCommand(words: readonly string[], command: ShellCommand, context: Context): void {
  const inner = { ...context, depth: context.depth + 1 };
  const program = programOf(words);
  if (program === 'sudo' || program === 'doas') flag(context, 'sudo', `runs as root (${program})`);
  if (program === 'su') flag(context, 'sudo', 'runs as another user (su)');
  const runs = unwrapped(words);
  if (runs.length !== words.length) {
    if (runs.length > 0) checkCommand(runs, command, inner);
    if (program === 'xargs' || program === 'env' || program === 'sudo') return;
  }
  const name = programOf(runs);
  const args = runs.slice(1);
  if (INTERPRETERS.has(name)) {
    const script = scriptOf(args);
    if (script !== undefined) checkShell(script, inner);
    for (const redirect of command.redirects) if (redirect.body !== undefined && (redirect.op.endsWith('<<') || redirect.op.endsWith('<<-'))) checkShell(redirect.body, inner);
  }
  if (name === 'eval') checkShell(args.join(' '), inner);
  if (name === 'find') checkFindExec(args, command, inner);
  checkProgram(name, args, command.redirects, context);
  for (const redirect of command.redirects) if (writesTo(redirect)) checkWrite(redirect.target, context);
}

/** `bash -c 'script'`, `sh -ec "…"`: the script a shell is given to run. */
function scriptOf(args: readonly string[]): string | undefined {
  const flagAt = args.findIndex((arg) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg));
  return flagAt === -1 ? undefined : args[flagAt + 1];
}

/** `find … -exec rm -rf {} ;`: the command find runs. */
function checkFindExec(args: readonly string[], command: ShellCommand, context: Context): void {
  args.forEach((arg, index) => {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(arg)) return;
    const end = args.findIndex((word, at) => at > index && (word === ';' || word === '+'));
    const runs = args.slice(index + 1, end === -1 ? undefined : end);
    if (runs.length > 0) checkCommand(runs, { ...command, words: runs, dynamic: runs.map(() => false), redirects: [] }, context);
  });
  if (args.includes('-delete')) checkDeletedTargets(args.filter((arg) => !arg.startsWith('-') && args.indexOf(arg) < firstExpression(args)), context);
}

const firstExpression = (args: readonly string[]) => {
  const at = args.findIndex((arg) => arg.startsWith('-') || arg === '(' || arg === '!');
  return at === -1 ? args.length : at;
};

/** Whether a redirect writes to its target (`>`, `>>`, `&>`, `>|`, `<>`), rather than reading or duplicating a descriptor. */
function writesTo(redirect: Redirect): boolean {
  return /(^|\d)(>|>>|>\||<>)$|^&>>?$/.test(redirect.op);
}

function checkProgram(name: string, args: readonly string[], redirects: readonly Redirect[], context: Context): void {
  switch (name) {
    case 'rm':
    case 'rmdir':
      if (name === 'rm' && !args.some((arg) => /^-[a-zA-Z]*[rR]/.test(arg) || arg === '--recursive')) return;
      checkDeletedTargets(operands(args), context);
      return;
    case 'git':
      checkGit(args, context);
      return;
    case 'chmod':
      if (args.some((arg) => /^0?777$|^(a|ugo)[+=]rwx$/.test(arg))) flag(context, 'chmod 777', 'lets every user on the machine change these files (chmod 777)');
      return;
    case 'dd': {
      const output = args.find((arg) => arg.startsWith('of='))?.slice(3);
      if (output !== undefined && (output.startsWith('/dev/') || !insideProject(output, context))) flag(context, 'dd', `writes raw bytes over ${shown(output)} (dd)`);
      return;
    }
    case 'wipefs':
    case 'fdisk':
    case 'sfdisk':
    case 'parted':
      flag(context, 'mkfs', `rewrites a disk's partitions (${name})`);
      return;
    case 'terraform':
    case 'tofu':
      if (args.includes('destroy') || (args.includes('apply') && args.includes('-destroy'))) flag(context, 'terraform destroy', `tears down the infrastructure ${name} manages (${name} destroy)`);
      return;
    case 'kubectl':
    case 'oc':
      if (args.find((arg) => !arg.startsWith('-')) === 'delete') flag(context, 'kubectl delete', `deletes Kubernetes resources (${name} delete)`);
      return;
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
    case 'cargo':
    case 'twine':
    case 'gem': {
      const verbs = args.filter((arg) => !arg.startsWith('-'));
      const publishing = verbs[0] === 'publish' || verbs[0] === 'unpublish' || (name === 'yarn' && verbs[0] === 'npm' && verbs[1] === 'publish') || (name === 'twine' && verbs[0] === 'upload') || (name === 'gem' && verbs[0] === 'push');
      if (publishing) flag(context, 'publish', `publishes a package: public at once, and hard to take back (${name} ${verbs[0]})`);
      return;
    }
  }
  if (name.startsWith('mkfs')) flag(context, 'mkfs', `formats a disk: everything on it is lost (${name})`);
  if (SQL_CLIENTS.has(name)) {
    const texts = [...args, ...redirects.flatMap((redirect) => (redirect.body === undefined ? [] : [redirect.body])), ...(redirects.some((redirect) => redirect.op === '<<<') ? redirects.filter((redirect) => redirect.op === '<<<').map((redirect) => redirect.target) : [])];
    if (texts.some((text) => DESTRUCTIVE_SQL.test(text))) flag(context, 'DROP/TRUNCATE', `drops or empties database tables (DROP/TRUNCATE, ${name})`);
  }
  if (name === 'tee' || name === 'cp' || name === 'mv' || name === 'install' || name === 'ln') {
    const targets = operands(args);
    const written = name === 'tee' ? targets : targets.slice(-1);
    for (const target of written) checkWrite(target, context);
  }
}

const SQL_CLIENTS = new Set(['psql', 'mysql', 'mariadb', 'sqlite3', 'sqlcmd', 'clickhouse-client', 'clickhouse', 'cockroach', 'duckdb', 'mongosh', 'mongo', 'cqlsh', 'snowsql', 'bq', 'usql', 'pgcli', 'mycli', 'litecli']);
const DESTRUCTIVE_SQL = /\b(drop\s+(table|database|schema|view|index|user|role|collection)|truncate\b|\.drop\(\)|dropDatabase\(\))/i;

/** The operands of a command: its words that are not options (all of them after `--`). */
function operands(args: readonly string[]): string[] {
  const end = args.indexOf('--');
  const before = (end === -1 ? args : args.slice(0, end)).filter((arg) => !arg.startsWith('-') || arg === '-');
  return end === -1 ? before : [...before, ...args.slice(end + 1)];
}

/** A recursive delete: risky where a target is outside the project, is the project itself, or is known only when it runs. */
function checkDeletedTargets(targets: readonly string[], context: Context): void {
  for (const target of targets) {
    // A word as written: a variable, a substitution or a glob is known only when the shell runs it.
    if (/[$`*?[{]/.test(target)) {
      flag(context, 'rm -r', `deletes folders named by ${shown(target)}: which ones is known only when it runs`);
    } else if (!insideProject(target, context)) {
      flag(context, 'rm -r', `deletes ${shown(target)} and everything in it, outside the project`);
    }
  }
}

/** Whether a path lies strictly inside the project folder (the folder itself is not inside it). */
function insideProject(path: string, context: Context): boolean {
  if (context.cwd === '' && !isAbsolute(path) && !path.startsWith('~')) return false;
  const absolute = absolutePath(path, context);
  const fromProject = relative(context.cwd, absolute);
  return fromProject !== '' && !fromProject.startsWith(`..${sep}`) && fromProject !== '..' && !isAbsolute(fromProject);
}

function absolutePath(path: string, context: Context): string {
  if (path === '~' || path.startsWith('~/')) return resolve(context.home, path.slice(2));
  return resolve(context.cwd === '' ? sep : context.cwd, path);
}

function checkGit(args: readonly string[], context: Context): void {
  let i = 0;
  // Global options come before the subcommand; -C and -c take a value.
  while (i < args.length && args[i]!.startsWith('-')) i += args[i] === '-C' || args[i] === '-c' ? 2 : 1;
  const subcommand = args[i];
  const rest = args.slice(i + 1);
  const shortFlag = (letter: string) => rest.some((arg) => /^-[a-zA-Z]+$/.test(arg) && arg.includes(letter));
  if (subcommand === 'push') {
    const forced = shortFlag('f') || rest.some((arg) => /^--force(-with-lease|-if-includes)?(=|$)/.test(arg) || (/^\+[^+]/.test(arg) && !arg.startsWith('-')));
    if (forced) flag(context, 'git push --force', "force-pushes: rewrites the remote's history");
  }
  if (subcommand === 'reset' && rest.includes('--hard')) flag(context, 'git reset --hard', 'throws away uncommitted changes for good (git reset --hard)');
  if (subcommand === 'clean' && (shortFlag('f') || rest.includes('--force')) && !shortFlag('n') && !rest.includes('--dry-run')) {
    flag(context, 'git clean', 'deletes untracked files for good (git clean)');
  }
}

/** A write to a file that holds secrets or controls access. */
function checkWrite(path: string, context: Context): void {
  if (path === '' || /^\d+$|^-$/.test(path) || path === '/dev/null' || path.startsWith('/dev/std') || path.startsWith('/dev/fd/')) return;
  const absolute = absolutePath(path, context);
  const reason = secretFileReason(absolute, context.home);
  if (reason !== undefined) flag(context, 'secret files', `${reason} (${shown(homeShort(absolute, context.home))})`);
  for (const add of context.risk.add) if (matchesText(add.match, absolute)) flag(context, undefined, add.reason);
}

/** Why writing this file is risky, or undefined. */
function secretFileReason(absolute: string, home: string): string | undefined {
  const parts = absolute.split(sep);
  const name = parts.at(-1) ?? '';
  const under = (folder: string) => parts.includes(folder);
  if (under('.ssh')) return 'writes to an SSH folder: keys and who may log in';
  if (/^\.env($|\.)/.test(name) && !/\.(example|sample|template|dist)$/.test(name)) return 'writes to a .env file, where secrets live';
  if (/^id_(rsa|dsa|ecdsa|ed25519)/.test(name) || /\.(pem|key|p12|pfx)$/.test(name)) return 'writes a private key or certificate';
  if (['.npmrc', '.netrc', '.pypirc', '.git-credentials', '.pgpass', '_netrc'].includes(name)) return 'writes to a credentials file';
  if ((under('.aws') && (name === 'credentials' || name === 'config')) || (under('.docker') && name === 'config.json') || (under('.kube') && name === 'config')) return 'writes to a credentials file';
  if (under('gh') && under('.config') && name === 'hosts.yml') return 'writes to a credentials file';
  if (under('.claude') && /^settings(\.local)?\.json$/.test(name)) return "changes the agent's own permissions";
  if (under('askbridge') && under('.config')) return "changes askbridge's own configuration";
  if (parts.slice(0, -1).join(sep) === home && ['.bashrc', '.bash_profile', '.profile', '.zshrc', '.zprofile', '.zshenv', '.login'].includes(name)) return 'changes what runs at every login';
  return undefined;
}

const homeShort = (absolute: string, home: string) => (absolute === home || absolute.startsWith(`${home}${sep}`) ? `~${absolute.slice(home.length)}` : absolute);
const shown = (text: string) => shorten(text, SHOWN_CHARS);
