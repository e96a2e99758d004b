// `askbridge install`: add askbridge's hooks to Claude Code's settings, keeping everything else in
// the file as it is. The AskUserQuestion hook (Claude Code's own http POST with the hook key where a
// service holds the port, else the command hook), by the same transport a PermissionRequest hook
// (unless --no-approvals), a SessionEnd hook (the daemon withdraws the questions of a session that
// ended), the Stop, UserPromptSubmit and Notification hooks (unless --no-turn-ends: while the person
// is away the end of a turn waits for their reply), and a SessionStart hook that makes sure the
// daemon runs. Either transport carries every one of them. When askbridge is wired already in another
// settings file, it says where, and how to keep one. They name this machine (a port, a key, an
// absolute path), so they go only where nothing gets committed: a project's
// `.claude/settings.local.json` (made sure to be ignored by git; the key is never written where git
// would commit it, and nothing through a symbolic link a project holds, into a file that lives
// elsewhere) or the user's own settings. Running it twice changes nothing the second time.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { basename, dirname, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { makeFolders } from '../folders.js';
import { HTTP_HOOK_PATH } from '../http-hook.js';
import { choosePublicUrl, parsePublicUrl } from '../public-url.js';
import { readConfigFile, userConfigPath } from '../config.js';
import { askbridgeCommand } from '../command-name.js';
import { configuredPort, LOOPBACK_HOST, isProcessAlive, openStateDir, resolveStateDir } from '../state-dir.js';
import {
  checkEditable,
  countInstalledHooks,
  HOOK_TRANSPORTS,
  readSettingsFile,
  sessionStartCommand,
  shellQuote,
  settingsPath,
  withInstalledHooks,
  withoutInstalledHooks,
  writeSettings,
  waitingMessage,
  type AskHook,
  type HookTransport,
  type SettingsFile,
  type SettingsScope,
} from '../claude-settings.js';
import { compareVersions, MIN_HTTP_HOOK_VERSION, probeClaude, probedVersion } from './claude-version.js';
import { findOnPath } from './find-on-path.js';
import { symbolicLinkOnTheWay } from './symbolic-link.js';
import { CliError, type CommandIo } from './command.js';
import { personOption } from './remote-hook.js';
import { probeSocketUnit, serviceHold, type PortHold } from './service-hold.js';
import { markInvisible } from '../visible-text.js';
import { placesIn } from '../wiring.js';
import writeFileAtomic from 'write-file-atomic';

export type Target = { projectDir: string; homeDir: string; user: boolean };

const TARGET_OPTIONS = { project: { type: 'string' }, user: { type: 'boolean', default: false } } as const;

function toTarget(io: CommandIo, command: string, values: { project?: string | undefined; user?: boolean | undefined }): Target {
  if (values.user && values.project !== undefined) throw new CliError(`choose --user or --project, not both (${askbridgeCommand(io.env)} ${command} --help)`, 2);
  return { projectDir: resolve(values.project ?? process.cwd()), homeDir: io.env.HOME || homedir(), user: values.user ?? false };
}

/** --project or --user, and --codex: Codex's hooks rather than Claude Code's settings. */
export function parseTarget(io: CommandIo, command: string): Target & { codex: boolean } {
  const { values } = parseArgs({ args: io.argv, strict: true, options: { ...TARGET_OPTIONS, codex: { type: 'boolean', default: false } } });
  return { ...toTarget(io, command, values), codex: values.codex };
}

/** A settings file that can be edited safely, or a CliError saying why not (nothing is changed then). */
export function readEditable(scope: SettingsScope, target: Target): SettingsFile & { state: 'ok' | 'missing' } {
  const file = readSettingsFile(scope, settingsPath(scope, target.projectDir, target.homeDir));
  if (file.state === 'invalid') throw new CliError(`${file.path}: ${file.error}; fix it first, nothing was changed`);
  if (file.state === 'ok') {
    const problem = checkEditable(file);
    if (problem) throw new CliError(problem);
  }
  return file;
}

/**
 * --hook when given. Otherwise the command hook for a Claude Code older than 2.1.63, and the http
 * hook only where askbridge's service holds the very port it posts to (service-hold.ts): the http
 * hook posts the question, with the hook key, to whatever listens there and takes its reply as the
 * answer, while the command hook proves the daemon (an HMAC challenge) before it sends anything. A
 * question must never be answered by anything but askbridge.
 */
async function chooseTransport(io: CommandIo, requested: string | undefined, claudeBin: string | undefined, hold: PortHold, port: string): Promise<HookTransport> {
  if (requested !== undefined) {
    if (!(HOOK_TRANSPORTS as readonly string[]).includes(requested)) throw new CliError(`--hook must be ${HOOK_TRANSPORTS.join(' or ')}, not "${requested}"`, 2);
    return requested as HookTransport;
  }
  const minimum = MIN_HTTP_HOOK_VERSION.join('.');
  const bin = claudeBin ?? findOnPath(io.env, 'claude');
  const version = bin === undefined ? undefined : probedVersion(await probeClaude(bin, io.env));
  if (version !== undefined && compareVersions(version, MIN_HTTP_HOOK_VERSION) < 0) {
    io.stderr(`Claude Code ${version.join('.')} is older than ${minimum}, which brought http hooks: installing the command hook\n`);
    return 'command';
  }
  if (!hold.held) {
    io.stderr(`installing the command hook, not the http hook: no service holds ${port} (${hold.why}), so while askbridge is down another program could take it and the http hook would hand it your questions; \`${askbridgeCommand(io.env)} service install\` lets systemd hold the port, and the http hook be used safely\n`);
    return 'command';
  }
  if (version === undefined) {
    io.stderr(`could not tell which Claude Code runs here (\`claude --version\`): installing the http hook, which needs Claude Code ${minimum} or later; for an older one, \`${askbridgeCommand(io.env)} install --hook command\`\n`);
  }
  return 'http';
}

/**
 * The page's address, as the terminal names it while a question waits: the public URL (the running
 * daemon's, else the one it would start with), else this machine's page at the daemon's port (none
 * when that port is not fixed).
 */
function pageAddress(io: CommandIo, stateDir: ReturnType<typeof openStateDir>, port: number | undefined): string | undefined {
  const running = stateDir.readDaemonInfo();
  const live = running && isProcessAlive(running.pid) ? running : undefined;
  if (live?.publicUrl) return live.publicUrl;
  if (!live) {
    let user: string | undefined;
    try {
      user = readConfigFile(userConfigPath(io.env)).publicUrl;
    } catch {
      user = undefined; // a broken config file opens nothing
    }
    const chosen = choosePublicUrl({ flag: undefined, environment: io.env.ASKBRIDGE_PUBLIC_URL, user });
    if ('url' in chosen && chosen.url) return chosen.url.href;
  }
  const known = port ?? live?.port ?? configuredPort(io.env);
  return Number.isInteger(known) && known >= 1 && known <= 65535 ? `http://${LOOPBACK_HOST}:${known}/` : undefined;
}

/** The port the http hook posts to: the running daemon's, else ASKBRIDGE_PORT, else the default; undefined when that names no fixed port. */
function daemonPort(io: CommandIo, stateDir: ReturnType<typeof openStateDir>): number | undefined {
  const running = stateDir.readDaemonInfo();
  if (running && isProcessAlive(running.pid)) return running.port;
  const configured = configuredPort(io.env);
  return Number.isInteger(configured) && configured >= 1 && configured <= 65535 ? configured : undefined;
}

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({
    args: io.argv,
    strict: true,
    options: {
      ...TARGET_OPTIONS,
      hook: { type: 'string' },
      'rotate-key': { type: 'boolean', default: false },
      claude: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      machine: { type: 'string' },
      person: { type: 'string' },
      force: { type: 'boolean', default: false },
      'no-approvals': { type: 'boolean', default: false },
      'no-turn-ends': { type: 'boolean', default: false },
      codex: { type: 'boolean', default: false },
    },
  });
  const target = toTarget(io, 'install', values);
  if (values.project !== undefined) requireFolder(target.projectDir);
  if (values.codex) {
    const other = (['hook', 'url', 'key', 'machine', 'person', 'claude', 'rotate-key', 'no-approvals', 'no-turn-ends'] as const).find((name) => values[name] !== undefined && values[name] !== false);
    if (other) throw new CliError(`--codex installs Codex's approvals hook only: --${other} does not apply`, 2);
    const { installCodex } = await import('./install-codex.js');
    return installCodex(io, target, {
      statusMessage: waitingMessage({ page: pageAddress(io, openStateDir(resolveStateDir(io.env)), undefined), command: askbridgeCommand(io.env) }),
      keepOutOfGit: (file) => keepOutOfGit(target, file, { holdsKey: false, force: values.force }, io),
    });
  }
  if (values.url !== undefined || values.key !== undefined) return installRemote(io, target, values);
  // This machine's own sessions are the daemon's own user's: a person names only a remote hook's.
  if (values.person !== undefined) throw new CliError('--person names whose sessions a remote hook\'s are: it goes with --url and --key', 2);
  const destination = readEditable(target.user ? 'user' : 'local', target);
  // An older install wrote this machine's path into the committed file: move it out of there.
  const committed = target.user ? undefined : readEditable('project', target);
  const stateDir = openStateDir(resolveStateDir(io.env));
  const hookPort = daemonPort(io, stateDir);
  const noFixedPort = `ASKBRIDGE_PORT is "${io.env.ASKBRIDGE_PORT}": an http hook needs a fixed port (1-65535); start the daemon first, or set one`;
  const hold = hookPort === undefined ? { held: false as const, why: noFixedPort } : serviceHold(await probeSocketUnit(io.env), hookPort);
  const transport = await chooseTransport(io, values.hook, values.claude === undefined ? undefined : resolve(values.claude), hold, hookPort === undefined ? "askbridge's port" : `port ${hookPort}`);
  const placement = { holdsKey: transport === 'http', force: values.force };
  // Before the key is rotated or written: a refusal leaves everything as it was.
  keepOutOfGit(target, destination.path, placement, io);

  stateDir.ensure();
  if (values['rotate-key']) {
    stateDir.rotateHookKey();
    io.stdout(`hook key rotated: every other settings file that holds the old one lets the terminal answer until \`${askbridgeCommand(io.env)} install\` runs for it again (\`${askbridgeCommand(io.env)} doctor\` finds them)\n`);
  }
  let ask: AskHook;
  let port: number | undefined;
  if (transport === 'http') {
    if (hookPort === undefined) throw new CliError(noFixedPort);
    port = hookPort;
    ask = { transport, url: `http://${LOOPBACK_HOST}:${port}${HTTP_HOOK_PATH}`, key: stateDir.ensureHookKey(askbridgeCommand(io.env)) };
    if (!hold.held) {
      io.stderr(
        `warning: no service holds port ${port} (${hold.why}): while askbridge is not running there (stopped, crashed, or whatever keeps its port killed), any program on this machine can listen on it, and this http hook would send that program every question with the hook key and the project's path, and Claude Code would take its reply as your answer; \`${askbridgeCommand(io.env)} service install\` lets systemd hold the port (or \`${askbridgeCommand(io.env)} install --hook command\`, which proves the daemon before it sends anything)\n`,
      );
    }
  } else {
    ask = { transport };
  }

  const before = destination.state === 'ok' ? destination.settings : undefined;
  const original = readOriginal(destination.path);
  makeFolders(dirname(destination.path));
  // A new file holds the hook key: only its owner reads it. An existing file keeps its own mode.
  const statusMessage = waitingMessage({ page: pageAddress(io, stateDir, port), command: askbridgeCommand(io.env) });
  const install = { ask, approvals: !values['no-approvals'], turnEnds: !values['no-turn-ends'], sessionStart: sessionStartCommand(port), statusMessage };
  const changed = await writeSettings(destination.path, before, withInstalledHooks(before ?? {}, install), { newFileMode: 0o600 });
  if (changed) await confirmOutOfGit(destination.path, original, placement);
  const what = ask.transport === 'http' ? `askbridge hook (http, ${ask.url})` : 'askbridge hook (command)';
  io.stdout(`${what} ${changed ? '' : 'already '}installed in ${destination.path}: ${describeRoutes(install)}\n`);
  sayWiredElsewhere(io, target, destination.path);
  if (ask.transport === 'http' && (statSync(destination.path).mode & 0o044) !== 0) {
    io.stderr(`note: other users of this machine can read ${destination.path}; the hook key in it can only ask questions, never answer them\n`);
  }

  if (committed?.state === 'ok' && countInstalledHooks(committed.settings) > 0) {
    await writeSettings(committed.path, committed.settings, withoutInstalledHooks(committed.settings));
    io.stdout(`moved askbridge's machine-specific entry out of ${committed.path}, which is shared through git\n`);
  }
  if (changed) io.stderr('Claude Code reads hooks when a session starts: restart running `claude` sessions to pick it up.\n');
}

/**
 * On a machine whose questions go to a daemon elsewhere (`askbridge remote-hook` there prints this
 * command): Claude Code's http hooks (AskUserQuestion and SessionEnd) to that daemon's public URL
 * with its hook key, naming this machine. No SessionStart entry: no daemon runs here.
 */
async function installRemote(
  io: CommandIo,
  target: Target,
  values: {
    url?: string | undefined;
    key?: string | undefined;
    machine?: string | undefined;
    person?: string | undefined;
    hook?: string | undefined;
    'rotate-key'?: boolean | undefined;
    force?: boolean | undefined;
    'no-approvals'?: boolean | undefined;
    'no-turn-ends'?: boolean | undefined;
  },
): Promise<void> {
  if (values.url === undefined || values.key === undefined) throw new CliError('a remote hook needs both --url (the daemon\'s public URL) and --key (its hook key): `askbridge remote-hook` on the daemon\'s machine prints them', 2);
  if (values.hook === 'command' || values['rotate-key']) throw new CliError('--url installs the http hook of a daemon on another machine: --hook command and --rotate-key do not apply', 2);
  const publicUrl = parsePublicUrl(values.url);
  if ('error' in publicUrl) throw new CliError(`--url ${values.url}: ${publicUrl.error}`, 2);
  if (!/^[A-Za-z0-9_-]{20,200}$/.test(values.key)) throw new CliError("--key is not a hook key (as `askbridge remote-hook` prints it on the daemon's machine)", 2);
  const destination = readEditable(target.user ? 'user' : 'local', target);
  const placement = { holdsKey: true, force: values.force ?? false };
  keepOutOfGit(target, destination.path, placement, io);
  const person = personOption(values.person);
  const ask: AskHook = { transport: 'http', url: `${publicUrl.origin}${HTTP_HOOK_PATH}`, key: values.key, machine: values.machine ?? hostname(), ...(person ? { person } : {}) };
  const before = destination.state === 'ok' ? destination.settings : undefined;
  const original = readOriginal(destination.path);
  makeFolders(dirname(destination.path));
  // The page is at that daemon's public URL; `askbridge answer` runs on its machine, not here.
  const install = { ask, approvals: !values['no-approvals'], turnEnds: !values['no-turn-ends'], statusMessage: waitingMessage({ page: publicUrl.href }) };
  const changed = await writeSettings(destination.path, before, withInstalledHooks(before ?? {}, install), { newFileMode: 0o600 });
  if (changed) await confirmOutOfGit(destination.path, original, placement);
  io.stdout(`${changed ? 'askbridge hook (http, another machine' : 'askbridge hook (http, another machine, already'}: ${ask.url}) installed in ${destination.path}: ${describeRoutes(install)}\n`);
  sayWiredElsewhere(io, target, destination.path);
  if (changed) io.stderr('Claude Code reads hooks when a session starts: restart running `claude` sessions to pick it up.\n');
}

/**
 * Where else askbridge is wired for the sessions this file serves: the user's settings for a
 * project, this project's files for the user's, the plugin wherever it is enabled. Claude Code runs
 * every entry, and each wait still shows once (the second waits with the first); this says where
 * they are, and the one command that keeps only the new one.
 */
function sayWiredElsewhere(io: CommandIo, target: Target, written: string): void {
  const home = target.homeDir;
  const scopes: SettingsScope[] = ['user', 'project', 'local'];
  const files = scopes.map((scope) => readSettingsFile(scope, settingsPath(scope, target.projectDir, home)));
  const places = placesIn(files, (file) => (file.scope === 'user' ? undefined : target.projectDir)).filter((place) => place.path !== written);
  if (places.length === 0) return;
  const command = askbridgeCommand(io.env);
  const keepOne = places.map((place) => {
    if (place.scope === 'plugin') return `disable the askbridge plugin (${place.path.replace(/^the askbridge plugin \(enabled in (.*)\)$/, '$1')})`;
    if (place.scope === 'user') return `\`${command} uninstall --user\``;
    return `\`${command} uninstall --project ${shellQuote(target.projectDir)}\`${place.scope === 'project' ? ` (or remove it from ${place.path}, which git shares)` : ''}`;
  });
  io.stderr(
    markInvisible(
      `note: askbridge is wired already in ${places.map((place) => place.path).join(' and ')}: Claude Code runs every entry, and each wait still shows once; to keep only the one just written: ${keepOne.join(', and ')}\n`,
    ),
  );
}

/** What the installed hooks bring to askbridge, and which flag left something out. */
function describeRoutes(install: { ask: AskHook; approvals: boolean; turnEnds: boolean }): string {
  const routes = ['questions', "MCP servers' requests for input"];
  if (install.approvals) routes.push("Claude Code's permissions and plans");
  if (install.turnEnds) routes.push('the ends of turns while you are away', 'sessions waiting in the terminal');
  const left = [install.approvals ? '' : '--no-approvals', install.turnEnds ? '' : '--no-turn-ends'].filter((flag) => flag !== '');
  const listed = `${routes.slice(0, -1).join(', ')}, and ${routes.at(-1)}`;
  return left.length === 0 ? listed : `${listed} (${left.join(', ')})`;
}

/** A typo in --project must not make folders and install there: the project has to exist already. */
function requireFolder(projectDir: string): void {
  let isFolder: boolean;
  try {
    isFolder = statSync(projectDir).isDirectory();
  } catch {
    throw new CliError(`--project ${projectDir}: no such folder; nothing was created`, 2);
  }
  if (!isFolder) throw new CliError(`--project ${projectDir}: not a folder; nothing was created`, 2);
}

/** Whether the file is to hold the hook key, and whether --force lets it go where it is refused otherwise. */
type Placement = { holdsKey: boolean; force: boolean };

/**
 * The settings file must never be committed with the hook key in it, nor be written through a link
 * into a file that lives elsewhere. Before anything is written: a settings file, or its folder
 * (.claude, .codex), that is a symbolic link, since what install writes would land where the link
 * leads: for a project, a link its repository may commit, into the person's own settings of
 * Claude Code or Codex or anywhere else; for the person's own file, a link of theirs, where the key
 * may be shared. Then, in a git work tree where nothing ignores the file yet, .git/info/exclude
 * does (the repository's own, shared by its worktrees), and git is asked again, since a tracked
 * file or a `.gitignore` that brings the file back wins over that exclude. A link is refused in a
 * project whatever is written, and in the person's own settings for the key; git committing the
 * file is refused for the key, and only warned about for entries without one. --force turns a
 * refusal into a warning.
 */
function keepOutOfGit(target: Target, file: string, placement: Placement, io: CommandIo): void {
  const written = placement.holdsKey ? 'the hook key' : "this machine's paths";
  const refuse = (why: string) => new CliError(`${file}: ${why}; install would write ${written} there, so nothing was written to it (--force writes it all the same)`);
  const link = symbolicLinkOnTheWay(file);
  const linkProblem = link && `${link.path} is a symbolic link to ${link.to}, so ${written} would be written there (replace the link with a file or folder of its own)`;
  // Refused before git is asked, so the exclude file stays as it was.
  if (linkProblem && (placement.holdsKey || !target.user) && !placement.force) throw refuse(linkProblem);
  const gitWhy = gitProblem(target, file, io);
  const problems = [linkProblem, gitWhy && `git would commit it: ${gitWhy}`].filter((problem) => typeof problem === 'string');
  if (problems.length === 0) return;
  if (placement.holdsKey && !placement.force) throw refuse(problems.join('; and '));
  io.stderr(markInvisible(`warning: ${file}: ${problems.join('; and ')}; writing ${written} there${placement.force ? ' all the same (--force)' : ''}\n`));
}

/** git run in `cwd`: one line of output, without its newline only (a folder's name may end in a space). */
function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).replace(/\n$/, '');
}

/** A yes-or-no question to git: exit 0 yes, exit 1 no; anything else is not an answer. */
function gitAnswersYes(cwd: string, about: string, ...args: string[]): boolean {
  try {
    gitIn(cwd, ...args);
    return true;
  } catch (error) {
    const failure = error as { status?: number | null; stderr?: string };
    if (failure.status === 1) return false;
    throw new CliError(`\`git ${args.join(' ')}\` in ${cwd} failed: ${failure.stderr?.trim() || (error as Error).message}; cannot tell whether git would commit ${about}`);
  }
}

/** Whether `cwd` is in a git work tree; no git at all is none. */
function inWorkTree(cwd: string): boolean {
  try {
    return gitIn(cwd, 'rev-parse', '--is-inside-work-tree') === 'true';
  } catch {
    return false;
  }
}

/** Why git would commit the file, after making it ignored where nothing ignores it yet; undefined when it will not. */
function gitProblem(target: Target, file: string, io: CommandIo): string | undefined {
  // git is asked where the file really is: a .claude that links elsewhere is committed as a link,
  // and the file it holds counts (or not) where the link leads.
  let folder = dirname(file);
  while (!existsSync(folder)) folder = dirname(folder);
  const cwd = realpathSync(folder);
  const path = relative(folder, file);
  if (!inWorkTree(cwd)) return undefined; // nothing can commit it
  if (gitAnswersYes(cwd, file, 'ls-files', '--error-unmatch', '--', path)) return 'git tracks it (`git rm --cached` on it stops that)';
  if (gitAnswersYes(cwd, file, 'check-ignore', '-q', '--', path)) return undefined;
  // Patterns in the exclude file are relative to the repository's top level, not to the project.
  const fromTop = `${gitIn(cwd, 'rev-parse', '--show-prefix')}${path}`;
  const exclude = resolve(cwd, gitIn(cwd, 'rev-parse', '--git-path', 'info/exclude'));
  // A leading slash anchors the pattern at the top level; glob characters in a folder's name match only themselves.
  addExcludePattern(exclude, `/${fromTop.replace(/[\\*?[]/g, '\\$&')}`);
  if (!gitAnswersYes(cwd, file, 'check-ignore', '-q', '--', path)) return `a .gitignore brings it back, over ${exclude} (\`git check-ignore -v\` on it names the line)`;
  io.stdout(markInvisible(`${relative(target.user ? target.homeDir : target.projectDir, file)} is now ignored by git (in ${exclude})\n`));
  return undefined;
}

/** The file's bytes before install writes it (undefined: there was none), to put back if git would commit it after all. */
function readOriginal(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * After the key is written: git, asked about the file where the bytes landed, must ignore it.
 * Anything may have changed since the check before writing (a .gitignore, the index, a link put in
 * place); when git would commit the file now, it is put back as it was and install fails.
 */
async function confirmOutOfGit(file: string, original: Buffer | undefined, placement: Placement): Promise<void> {
  if (!placement.holdsKey || placement.force) return;
  const written = realpathSync(file);
  const cwd = dirname(written);
  if (!inWorkTree(cwd)) return;
  const name = basename(written);
  const tracked = gitAnswersYes(cwd, file, 'ls-files', '--error-unmatch', '--', name);
  if (!tracked && gitAnswersYes(cwd, file, 'check-ignore', '-q', '--', name)) return;
  // write-file-atomic keeps the mode and owner of the file it replaces.
  if (original === undefined) unlinkSync(file);
  else await writeFileAtomic(file, original);
  throw new CliError(`git would commit ${file} once written: ${tracked ? 'git tracks it' : 'nothing ignores it'} (\`git check-ignore -v\` on it names any line that brings it back); it is back as it was, without the hook key`);
}

/** One line in an exclude file, unless it is there already (a .gitignore overrode it on an earlier run). */
function addExcludePattern(exclude: string, pattern: string): void {
  makeFolders(dirname(exclude));
  let current = '';
  try {
    current = readFileSync(exclude, 'utf8');
  } catch {
    // a new exclude file
  }
  if (current.split('\n').includes(pattern)) return;
  appendFileSync(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}${pattern}\n`);
}
