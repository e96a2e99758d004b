// `askbridge doctor`: reads the three Claude Code settings files, askbridge's config, `claude
// --version` and the daemon, and says what keeps askbridge from answering AskUserQuestion, each
// problem with its fix, and whether the person is away (the end of a turn then waits for them).
// With `gemini` on PATH it also says whether askbridge's MCP server is registered with Gemini CLI;
// with `codex` on PATH, whether askbridge's hook is in Codex's hooks.json and trusted there; with
// `opencode` on PATH, that `askbridge attach opencode` is what relays it.
// `diagnose` holds every check and touches nothing, so tests feed it inputs; `gatherInputs` does
// the reading and `run` is the command. What doctor reports quotes settings files, a repository's
// folders and config, `claude --version` and whatever answers on the port: all of it is shown with
// invisible characters as markers, and a newline in it cannot start a line.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createConfigReader, type EffectiveConfig } from '../config.js';
import { askbridgeCommand } from '../command-name.js';
import { connectToDaemon, DaemonUnreachable, notRunning } from './client.js';
import { isInstalledHook, isRecord, readSettingsFile, shellQuote, type SettingsFile, type SettingsScope, type TurnEndEvent } from '../claude-settings.js';
import { compareVersions, MIN_HTTP_HOOK_VERSION, MIN_UPDATED_INPUT_VERSION, parseClaudeVersion, probeClaude, probedVersion, type ClaudeProbe } from './claude-version.js';
import { checkGemini, probeGemini, type GeminiFindingId, type GeminiProbe } from './gemini-settings.js';
import { checkCodex, probeCodex, type CodexFindingId, type CodexProbe } from './codex-hooks.js';
import { findOnPath } from './find-on-path.js';
import { DEFAULT_STOP_CAP, ELICITATION_HOOK_PATH, HOOK_KEY_HEADER, HTTP_HOOK_PATH, MACHINE_HEADER, PERMISSION_HOOK_PATH, SESSION_END_PATH, STOP_CAP_ENV } from '../http-hook.js';
import { HOOK_TIMEOUT_SECONDS, TIMEOUT_MARGIN_SECONDS } from '../hook-timeout.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import type { CommandIo } from './command.js';
import { StatusReplySchema, type StoreHealth, type Tellable } from '../protocol.js';
import { TELEGRAM_POLLING_WORDS } from './status.js';
import { shorten } from '../shorten.js';
import { readReply } from './replies.js';
import { probeSocketUnit, serviceHold, type SocketUnitProbe } from './service-hold.js';
import { markerOf, markInvisible, terminalJson } from '../visible-text.js';
import { placesIn, TURN_END_EVENTS, turnEndReach } from '../wiring.js';

export const TOOL_NAME = 'AskUserQuestion';
export const HOOK_SCRIPT = 'askbridge-hook.cjs';
/** The hook file askbridge shipped before it was CommonJS: entries that still run it are outdated. */
const OLD_HOOK_SCRIPT = 'askbridge-hook.mjs';
/** Claude Code kills a hook after this many seconds when its entry sets no `timeout`. */
export const CLAUDE_DEFAULT_HOOK_TIMEOUT_SECONDS = 600;

/**
 * `away`: the person said they are away; `reach`: who watches and who could be told now; `publicUrl`:
 * the daemon's, when it has one (a daemon older than each does not say).
 */
export type DaemonProbe =
  | { running: true; url: string; version: string; away?: boolean; awayPeople?: readonly string[]; reach?: { watchers: number } & Tellable; publicUrl?: string; routes?: { rules: number; people: number }; store?: StoreHealth }
  | { running: false; reason: string; impostor?: boolean };

export type DoctorInputs = {
  projectDir: string;
  homeDir: string;
  /** How to run askbridge here (askbridgeCommand), for the fix lines. */
  command: string;
  /** user, project, local: Claude Code merges them, so every hook in any of them runs. */
  settings: SettingsFile[];
  config: EffectiveConfig;
  claude: ClaudeProbe;
  daemon: DaemonProbe;
  /** The current hook key from the state directory (an http entry must carry it), if there is one. */
  hookKey: string | undefined;
  /** What systemd says of askbridge.socket (`askbridge service install`), and who listens where it listens: whether an http hook's port stays held while askbridge is down. */
  service: SocketUnitProbe;
  fileExists: (path: string) => boolean;
  /** Gemini CLI's user settings, when `gemini` is on PATH: whether askbridge's MCP server is registered there. */
  gemini?: GeminiProbe | undefined;
  /** Codex's hooks (the user's and this project's) and their trust, when `codex` is on PATH. */
  codex?: CodexProbe | undefined;
  /** Whether `opencode` is on PATH: `askbridge attach opencode` relays it. */
  opencode?: boolean | undefined;
};

export type FindingId =
  | 'settings-unparsable'
  | 'hooks-disabled'
  | 'hook-missing'
  | 'hook-path-missing'
  | 'hook-duplicate'
  | 'hook-timeout-short'
  | 'hook-outdated'
  | 'hook-key-stale'
  | 'hook-port-mismatch'
  | 'http-hook-port-unheld'
  | 'claude-too-old-for-http'
  | 'hook-conflict'
  | 'permission-deny'
  | 'permission-ask'
  | 'askbridge-config-invalid'
  | 'project-config-user-only'
  | 'claude-version-old'
  | 'claude-not-found'
  | 'claude-version-unknown'
  | 'answer-mode-deny-reason'
  | 'daemon-not-running'
  | 'session-end-missing'
  | 'elicitation-missing'
  | 'approvals-missing'
  | 'turn-ends-missing'
  | 'away'
  | 'nobody-reachable'
  | 'ntfy-actions-need-public-url'
  | 'port-impostor'
  | 'project-config-untrusted'
  | 'opencode-attach'
  | 'store-unusable'
  | 'telegram-not-polled'
  | GeminiFindingId
  | CodexFindingId;

export type Finding = { id: FindingId; level: 'error' | 'warning' | 'info'; message: string; fix?: string; file?: string };
export type Diagnosis = { ok: boolean; findings: Finding[]; passed: string[] };

type HookRef = { file: SettingsFile & { state: 'ok' }; matcher: string | undefined; hook: Record<string, unknown> };

export function diagnose(inputs: DoctorInputs): Diagnosis {
  const findings: Finding[] = [];
  const passed: string[] = [];
  const readable = inputs.settings.filter((file): file is SettingsFile & { state: 'ok' } => file.state === 'ok');

  for (const file of inputs.settings) {
    if (file.state !== 'invalid') continue;
    findings.push({
      id: 'settings-unparsable',
      level: 'error',
      file: file.path,
      message: `${file.path} cannot be read as settings (${file.error}); Claude Code cannot use it either`,
      fix: `fix the JSON in ${file.path} (it must hold one object), then run \`${inputs.command} doctor\` again`,
    });
  }
  for (const file of readable) {
    if (isRecord(file.settings) && file.settings.disableAllHooks === true) {
      findings.push({
        id: 'hooks-disabled',
        level: 'error',
        file: file.path,
        message: `${file.path} sets "disableAllHooks": true, so no hook runs, askbridge's included`,
        fix: `remove "disableAllHooks" from ${file.path}`,
      });
    }
  }

  const hooks = readable.flatMap(preToolUseHooks);
  const forTool = hooks.filter((ref) => matcherMatches(ref.matcher, TOOL_NAME));
  const ours = forTool.filter(isAskbridgeHook);

  if (ours.length === 0) {
    const elsewhere = hooks.filter(isAskbridgeHook);
    const hint = elsewhere.length
      ? ` (${elsewhere.map((ref) => `${ref.file.path} has it under matcher ${JSON.stringify(ref.matcher ?? '')}, which does not match ${TOOL_NAME}`).join('; ')})`
      : '';
    findings.push({
      id: 'hook-missing',
      level: 'error',
      message: `no PreToolUse hook for ${TOOL_NAME} reaches askbridge (an http hook posting to ${HTTP_HOOK_PATH}, or a command running ${HOOK_SCRIPT}) in the user, project or local settings${hint}`,
      fix: `${installCommand(inputs.command, 'project', inputs.projectDir)} (this project) or ${installCommand(inputs.command, 'user', inputs.projectDir)} (every project), then restart running claude sessions`,
    });
  } else {
    passed.push(`askbridge hook installed in ${unique(ours.map((ref) => ref.file.path)).join(', ')}`);
    const wiredIn = unique(ours.map((ref) => ref.file.path));
    if (wiredIn.length > 1 || unique(ours.map(describeHook)).length > 1) {
      // Every entry runs: each wait still shows once (the second waits with the first), but each is handed over twice.
      findings.push({
        id: 'hook-duplicate',
        level: 'info',
        message: `askbridge is wired ${ours.length} times (${wiredIn.join(', ')}): Claude Code runs every entry and each gets the decision, and each wait still shows once, but every event is handed over twice`,
        fix: `keep one: ${wiredIn.map((path) => `\`${inputs.command} uninstall ${path === join(inputs.homeDir, '.claude', 'settings.json') ? '--user' : `--project ${shellQuote(inputs.projectDir)}`}\` (${path})`).join(', or ')}`,
      });
    }
    checkHookPaths(inputs, ours, findings, passed);
    checkHttpHooks(inputs, ours, findings, passed);
    checkTimeouts(inputs, ours, findings, passed);
    checkSessionEnd(inputs, readable, ours, findings, passed);
    checkElicitation(inputs, readable, ours, findings, passed);
    checkApprovals(inputs, readable, ours, findings, passed);
    checkTurnEnds(inputs, readable, ours, findings, passed);
  }

  const others = forTool.filter((ref) => !isAskbridgeHook(ref));
  for (const ref of others) {
    const what = ref.hook.type === 'command' && typeof ref.hook.command === 'string' ? `\`${ref.hook.command}\`` : `a ${String(ref.hook.type ?? 'untyped')} hook`;
    findings.push({
      id: 'hook-conflict',
      level: 'warning',
      file: ref.file.path,
      message: `${ref.file.path}: ${what} (matcher ${JSON.stringify(ref.matcher ?? '')}) also runs on ${TOOL_NAME}; hooks run in parallel and the last updatedInput wins, so it can replace askbridge's answer`,
      fix: ref.matcher === undefined || ref.matcher === '' || ref.matcher === '*'
        ? `give that entry in ${ref.file.path} a matcher naming only the tools it is for (for example "Bash|Edit|Write")`
        : `change that entry's matcher in ${ref.file.path} so it no longer matches ${TOOL_NAME}, or remove the entry`,
    });
  }
  if (others.length === 0) passed.push(`no other PreToolUse hook runs on ${TOOL_NAME}`);

  let rules = 0;
  for (const file of readable) {
    const permissions = isRecord(file.settings) ? file.settings.permissions : undefined;
    if (!isRecord(permissions)) continue;
    for (const kind of ['deny', 'ask'] as const) {
      const list = permissions[kind];
      if (!Array.isArray(list)) continue;
      for (const rule of list) {
        if (typeof rule !== 'string' || !namesTool(rule, TOOL_NAME)) continue;
        rules += 1;
        findings.push({
          id: kind === 'deny' ? 'permission-deny' : 'permission-ask',
          level: 'error',
          file: file.path,
          message: `${file.path} has ${JSON.stringify(rule)} in permissions.${kind}: ${kind === 'deny' ? 'the tool is refused' : 'the terminal asks for permission'} whatever the hook decides`,
          fix: `remove ${JSON.stringify(rule)} from permissions.${kind} in ${file.path}`,
        });
      }
    }
  }
  if (rules === 0) passed.push(`no permissions.deny or permissions.ask rule names ${TOOL_NAME}`);

  for (const error of inputs.config.errors) {
    findings.push({
      id: 'askbridge-config-invalid',
      level: 'warning',
      file: error.path,
      message: `askbridge's config ${error.message}; its last good version, or the defaults, are in use`,
      fix: `fix ${error.path}, then check it with \`${inputs.command} config\``,
    });
  }

  for (const warning of inputs.config.warnings ?? []) {
    findings.push({
      id: 'project-config-user-only',
      level: 'warning',
      file: warning.path,
      message: `askbridge's config ${warning.message}`,
      fix: `move those keys to your user config, or remove them from ${warning.path} and trust it again`,
    });
  }

  for (const entry of inputs.config.ignored) {
    findings.push({
      id: 'project-config-untrusted',
      level: 'warning',
      file: entry.path,
      message: `the project's config for askbridge is ignored: ${entry.reason === 'changed' ? 'it changed since it was trusted' : 'it has not been trusted'} (a repository's config could answer questions for you; your own config still applies)`,
      fix: `read ${entry.path}, then \`${inputs.command} trust ${shellQuote(entry.projectDir)}\``,
    });
  }

  checkClaudeVersion(inputs, findings, passed);

  if (ours.length > 0 && ours.every(({ hook }) => isRemoteHook(hook))) {
    passed.push('every askbridge hook here asks a daemon on another machine: no daemon needs to run here');
  } else if (inputs.daemon.running) {
    passed.push(`askbridge ${inputs.daemon.version} is running at ${inputs.daemon.url}`);
    const { routes } = inputs.daemon;
    // With no people, routes change nothing: nothing to say.
    if (routes && routes.people > 0) passed.push(`routes: ${routes.rules} rule(s), ${routes.people} people (\`${inputs.command} doctor --route --project DIR\` says where an ask would go)`);
    checkReach(inputs, inputs.daemon, findings, passed);
    checkStore(inputs.daemon.store, inputs.command, findings, passed);
  } else if (inputs.daemon.impostor) {
    findings.push({
      id: 'port-impostor',
      level: 'error',
      message: `WHAT LISTENS ON ASKBRIDGE'S PORT CANNOT PROVE IT IS THIS ASKBRIDGE: ${inputs.daemon.reason}. The command hook sends it nothing and lets the terminal answer; an http hook would hand it questions`,
      fix: `stop that program, then \`${inputs.command} start\` (or start askbridge on another port with ASKBRIDGE_PORT)`,
    });
  } else {
    // The client's "not running" sentence already names the fix; only other reasons add anything.
    const reason = inputs.daemon.reason === notRunning(inputs.command) ? '' : ` (${inputs.daemon.reason})`;
    findings.push({ id: 'daemon-not-running', level: 'error', message: `the askbridge daemon is not running${reason}, so the hook lets the terminal answer every question`, fix: `${inputs.command} start` });
  }

  if (inputs.gemini) {
    const gemini = checkGemini(inputs.gemini, inputs.command);
    findings.push(...gemini.findings);
    passed.push(...gemini.passed);
  }
  if (inputs.codex) {
    const codex = checkCodex(inputs.codex, inputs.command);
    findings.push(...codex.findings);
    passed.push(...codex.passed);
  }
  if (inputs.opencode) {
    findings.push({
      id: 'opencode-attach',
      level: 'info',
      message: `opencode is installed: it has no hook, so askbridge sees its questions and permissions only while \`${inputs.command} attach opencode\` follows its server (opencode serve, or opencode --port 4096)`,
      fix: `${inputs.command} attach opencode [URL]`,
    });
  }

  return { ok: findings.every((finding) => finding.level === 'info'), findings, passed };
}

/** The shared store, as the running daemon sees it (docs/shared-store.md). */
function checkStore(store: StoreHealth | undefined, command: string, findings: Finding[], passed: string[]): void {
  if (!store) return;
  // Which daemon sharing the store polls the bot: none can while the store is away.
  if (store.telegram === 'waiting_for_store') {
    findings.push({ id: 'telegram-not-polled', level: 'warning', message: `telegram: ${TELEGRAM_POLLING_WORDS[store.telegram]}: no daemon polls the bot until the store answers (only the one holding its lock does)`, fix: `\`${command} store status\`` });
  } else if (store.telegram) passed.push(`telegram: ${TELEGRAM_POLLING_WORDS[store.telegram]}`);
  if (store.reachable) {
    passed.push(`the shared store ${store.where} answers`);
    return;
  }
  findings.push({
    id: 'store-unusable',
    level: 'error',
    message: `the shared store ${store.where} cannot be used (${store.reason ?? 'no reason given'}) since ${new Date(store.since).toISOString()}; the daemon keeps trying`,
    fix: `\`${command} store status\` says why from here; start the database, or fix the URL or the password (docs/shared-store.md)`,
  });
}

function checkHookPaths(inputs: DoctorInputs, ours: HookRef[], findings: Finding[], passed: string[]): void {
  for (const ref of ours) {
    if (ref.hook.type !== 'command') continue;
    if (commandOf(ref).includes(OLD_HOOK_SCRIPT)) {
      findings.push({
        id: 'hook-outdated',
        level: 'warning',
        file: ref.file.path,
        message: `the askbridge hook in ${ref.file.path} runs ${OLD_HOOK_SCRIPT}, the hook file of an older askbridge (this one ships ${HOOK_SCRIPT}, and an http hook needs no process at all)`,
        fix: `${installCommand(inputs.command, ref.file.scope, inputs.projectDir)} (replaces the entry)`,
      });
      continue;
    }
    const path = hookScriptPath(commandOf(ref), { CLAUDE_PROJECT_DIR: inputs.projectDir, HOME: inputs.homeDir });
    // A relative path or one built from other variables depends on how the hook is started: leave it be.
    if (path === undefined) continue;
    if (inputs.fileExists(path)) {
      passed.push(`hook script ${path} exists`);
      continue;
    }
    findings.push({
      id: 'hook-path-missing',
      level: 'error',
      file: ref.file.path,
      message: `the askbridge hook in ${ref.file.path} runs ${path}, which does not exist`,
      fix: `${installCommand(inputs.command, ref.file.scope, inputs.projectDir)} (rewrites the entry with this askbridge's hook path), or correct the path in ${ref.file.path}`,
    });
  }
}

/** An http entry that `install --url` wrote: it names this machine to a daemon elsewhere. */
function isRemoteHook(hook: Record<string, unknown>): boolean {
  return hook.type === 'http' && isRecord(hook.headers) && typeof hook.headers[MACHINE_HEADER] === 'string';
}

/** An http entry must carry the current hook key, post to the port the daemon listens on, and run on a Claude Code that has http hooks. */
function checkHttpHooks(inputs: DoctorInputs, ours: HookRef[], findings: Finding[], passed: string[]): void {
  const version = probedVersion(inputs.claude);
  for (const ref of ours) {
    if (ref.hook.type !== 'http') continue;
    const headers = isRecord(ref.hook.headers) ? ref.hook.headers : {};
    const fix = `${installCommand(inputs.command, ref.file.scope, inputs.projectDir)} (rewrites the entry)`;
    if (isRemoteHook(ref.hook)) {
      // Its key and port are the other machine's: `askbridge doctor` there checks its daemon.
      passed.push(`the http hook in ${ref.file.path} asks askbridge on another machine (${String(ref.hook.url)})`);
    } else if (inputs.hookKey === undefined || headers[HOOK_KEY_HEADER] !== inputs.hookKey) {
      findings.push({
        id: 'hook-key-stale',
        level: 'error',
        file: ref.file.path,
        message: `the http hook in ${ref.file.path} sends ${inputs.hookKey === undefined ? 'a hook key, but this askbridge has none yet' : 'a hook key that is not the current one (it was rotated)'}: the daemon refuses its questions and the terminal asks`,
        fix,
      });
    } else {
      passed.push(`the http hook in ${ref.file.path} carries the current hook key`);
    }
    const url = typeof ref.hook.url === 'string' && !isRemoteHook(ref.hook) ? parseUrl(ref.hook.url) : undefined;
    const hold = url && isLoopback(url.hostname) ? serviceHold(inputs.service, Number(url.port || '80')) : undefined;
    if (url && hold && !hold.held) {
      findings.push({
        id: 'http-hook-port-unheld',
        level: 'warning',
        file: ref.file.path,
        message: `the http hook in ${ref.file.path} posts to port ${url.port || '80'}, which no service holds (${hold.why}): while askbridge is not running there, any program on this machine can listen on it, receive every question with the hook key, and answer it in your name`,
        fix: `\`${inputs.command} service install\` (systemd holds the port), or ${installCommand(inputs.command, ref.file.scope, inputs.projectDir, ' --hook command')} (the command hook proves the daemon before it sends anything)`,
      });
    }
    const daemonUrl = inputs.daemon.running ? parseUrl(inputs.daemon.url) : undefined;
    if (url && daemonUrl && isLoopback(url.hostname) && url.port !== daemonUrl.port) {
      findings.push({
        id: 'hook-port-mismatch',
        level: 'error',
        file: ref.file.path,
        message: `the http hook in ${ref.file.path} posts to port ${url.port || '80'}, but the daemon listens on ${daemonUrl.port}: every question goes to the terminal`,
        fix: `${fix}, or start the daemon on port ${url.port || '80'}`,
      });
    }
    if (version !== undefined && compareVersions(version, MIN_HTTP_HOOK_VERSION) < 0) {
      findings.push({
        id: 'claude-too-old-for-http',
        level: 'error',
        file: ref.file.path,
        message: `${ref.file.path} has an http hook, but Claude Code ${version.join('.')} is older than ${MIN_HTTP_HOOK_VERSION.join('.')}, which brought http hooks: it never calls it`,
        fix: `${installCommand(inputs.command, ref.file.scope, inputs.projectDir, ' --hook command')}, or update Claude Code (\`claude update\`)`,
      });
    }
  }
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

const isLoopback = (hostname: string) => hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';

function checkTimeouts(inputs: DoctorInputs, ours: HookRef[], findings: Finding[], passed: string[]): void {
  const wait = inputs.config.config.waitSeconds;
  const needed = wait + TIMEOUT_MARGIN_SECONDS;
  const origin = inputs.config.origins.waitSeconds;
  const waitFile = origin === 'project' && inputs.config.files.project ? inputs.config.files.project : inputs.config.files.user;
  for (const ref of ours) {
    const set = typeof ref.hook.timeout === 'number' && ref.hook.timeout > 0;
    const timeout = set ? (ref.hook.timeout as number) : CLAUDE_DEFAULT_HOOK_TIMEOUT_SECONDS;
    const described = set ? `"timeout": ${timeout}` : `no "timeout" (Claude Code's default, ${CLAUDE_DEFAULT_HOOK_TIMEOUT_SECONDS} s)`;
    if (timeout >= needed) {
      passed.push(`hook timeout ${timeout} s in ${ref.file.path} leaves room for waitSeconds ${wait}`);
      continue;
    }
    findings.push({
      id: 'hook-timeout-short',
      // At or below waitSeconds Claude Code kills the hook before the daemon's timeout policy can act;
      // within the margin it only races it.
      level: timeout <= wait ? 'error' : 'warning',
      file: ref.file.path,
      message: `the askbridge hook in ${ref.file.path} has ${described}, but askbridge waits ${wait} s (waitSeconds, ${origin === 'default' ? 'default' : `from ${waitFile}`}); the timeout must be at least waitSeconds + ${TIMEOUT_MARGIN_SECONDS} = ${needed} s`,
      fix: `set "timeout": ${HOOK_TIMEOUT_SECONDS} on the askbridge hook in ${ref.file.path} (${installCommand(inputs.command, ref.file.scope, inputs.projectDir)} does it), or set "waitSeconds" to at most ${Math.max(0, timeout - TIMEOUT_MARGIN_SECONDS)} in ${waitFile}`,
    });
  }
}

/**
 * A SessionEnd entry withdraws the questions of a session that ended at once; without one they wait
 * until their hook goes away or their time runs out. Only noted where `install` wrote the question
 * hook, since running it again adds the entry.
 */
function checkSessionEnd(inputs: DoctorInputs, readable: Array<SettingsFile & { state: 'ok' }>, ours: HookRef[], findings: Finding[], passed: string[]): void {
  const sessionEnds = readable.flatMap((file) => hooksOf(file, 'SessionEnd')).filter((ref) => isAskbridgeEntry(ref, SESSION_END_PATH));
  if (sessionEnds.length > 0) {
    passed.push(`SessionEnd hook installed in ${unique(sessionEnds.map((ref) => ref.file.path)).join(', ')}: a session that ends withdraws its waiting questions`);
    return;
  }
  const installed = ours.filter((ref) => isInstalledHook(ref.hook));
  if (installed.length === 0) return;
  const file = installed[0]!.file;
  findings.push({
    id: 'session-end-missing',
    level: 'info',
    file: file.path,
    message: `no SessionEnd hook tells askbridge when a session ends, so its waiting questions stay on the page until their hook goes away or their time runs out (an older \`${inputs.command} install\` wrote ${file.path})`,
    fix: `${installCommand(inputs.command, file.scope, inputs.projectDir)} (adds the SessionEnd entry)`,
  });
}

/**
 * An Elicitation entry brings an MCP server's request for input (a form, a link) to askbridge;
 * without one Claude Code asks for it only in its own dialog. Only noted where `install` wrote the
 * question hook, since running it again adds the entry.
 */
function checkElicitation(inputs: DoctorInputs, readable: Array<SettingsFile & { state: 'ok' }>, ours: HookRef[], findings: Finding[], passed: string[]): void {
  const elicitations = readable.flatMap((file) => hooksOf(file, 'Elicitation')).filter((ref) => isAskbridgeEntry(ref, ELICITATION_HOOK_PATH));
  if (elicitations.length > 0) {
    passed.push(`Elicitation hook installed in ${unique(elicitations.map((ref) => ref.file.path)).join(', ')}: an MCP server's request for input (a form, a link) waits in askbridge too`);
    return;
  }
  const installed = ours.filter((ref) => isInstalledHook(ref.hook));
  if (installed.length === 0) return;
  const file = installed[0]!.file;
  findings.push({
    id: 'elicitation-missing',
    level: 'info',
    file: file.path,
    message: `no Elicitation hook reaches askbridge, so an MCP server's request for input (a form, a link) asks only in Claude Code's own dialog (an older \`${inputs.command} install\` wrote ${file.path})`,
    fix: `${installCommand(inputs.command, file.scope, inputs.projectDir)} (adds the Elicitation entry)`,
  });
}

/** What each permission mode sends to the inbox: Claude Code raises a PermissionRequest only where it would show its own dialog. */
const ROUTED_BY_MODE: Record<string, string> = {
  default: 'every permission dialog (commands, edits, web fetches, MCP tools) waits in the inbox too',
  plan: "the plan's approval waits in the inbox (and any dialog a read needs)",
  acceptEdits: 'edits run unasked; commands and other tools that ask wait in the inbox',
  auto: "Claude Code's classifier decides most calls itself, so few permissions reach the inbox",
  bypassPermissions: 'nothing asks for permission, so none reaches the inbox',
  dontAsk: 'nothing asks for permission (what is not allowed is denied), so none reaches the inbox',
};

/** Where the session's mode comes from: `permissions.defaultMode`, the most specific file first; Claude Code 2.1.330 starts in auto mode without one. */
function defaultMode(readable: Array<SettingsFile & { state: 'ok' }>): { mode: string; from: string } {
  for (const scope of ['local', 'project', 'user'] as const) {
    const file = readable.find((candidate) => candidate.scope === scope);
    const permissions = file && isRecord(file.settings) ? file.settings.permissions : undefined;
    if (file && isRecord(permissions) && typeof permissions.defaultMode === 'string') return { mode: permissions.defaultMode, from: `permissions.defaultMode in ${file.path}` };
  }
  return { mode: 'auto', from: "Claude Code's own default (no permissions.defaultMode is set)" };
}

/**
 * Whether Claude Code's permissions and plans reach askbridge (its PermissionRequest hook), and
 * what the permission mode a session starts in sends there: in auto mode, say, little asks at all.
 */
function checkApprovals(inputs: DoctorInputs, readable: Array<SettingsFile & { state: 'ok' }>, ours: HookRef[], findings: Finding[], passed: string[]): void {
  const approvals = readable.flatMap((file) => hooksOf(file, 'PermissionRequest')).filter((ref) => matcherMatches(ref.matcher, 'Bash') && isAskbridgeEntry(ref, PERMISSION_HOOK_PATH));
  const installed = ours.filter((ref) => isInstalledHook(ref.hook));
  if (approvals.length === 0) {
    if (installed.length === 0) return;
    const file = installed[0]!.file;
    findings.push({
      id: 'approvals-missing',
      level: 'info',
      file: file.path,
      message: "no PermissionRequest hook reaches askbridge, so Claude Code's permissions and plans wait only in the terminal (installed with --no-approvals, or by an older askbridge)",
      fix: `${installCommand(inputs.command, file.scope, inputs.projectDir)} (adds the PermissionRequest entry)`,
    });
    return;
  }
  passed.push(`PermissionRequest hook installed in ${unique(approvals.map((ref) => ref.file.path)).join(', ')}: permissions and plans wait in the inbox too`);
  const { mode, from } = defaultMode(readable);
  const routed = ROUTED_BY_MODE[mode] ?? `askbridge does not know the mode ${JSON.stringify(mode)}`;
  const more = mode === 'default' ? '' : '; for every dialog in the inbox, start claude with --permission-mode default, or set "permissions": {"defaultMode": "default"}';
  passed.push(`sessions start in ${mode} mode (${from}): ${routed}${more}. Questions reach the inbox in every mode`);
}

/** What each turn-end entry does, said when it is missing. */
const TURN_END_ROLES: Record<TurnEndEvent, string> = {
  Stop: 'while you are away, the end of a turn does not wait for your reply',
  UserPromptSubmit: 'typing in the terminal does not end a turn end that waits for your reply',
  Notification: 'a session waiting for you in its terminal does not show on the page',
};

/**
 * Whether the Stop, UserPromptSubmit and Notification entries reach askbridge, by either transport
 * (wiring.ts), whether the person is away now, and what that means: the end of each turn waits up
 * to awaySeconds for a reply, and Claude Code takes only so many replies in a row. A gap is a
 * finding with the one command that closes it: the page's Away switch says the same.
 */
function checkTurnEnds(inputs: DoctorInputs, readable: Array<SettingsFile & { state: 'ok' }>, ours: HookRef[], findings: Finding[], passed: string[]): void {
  const places = placesIn(readable, (file) => (file.scope === 'user' ? undefined : inputs.projectDir));
  const { reach, gaps } = turnEndReach(places, 'askbridge');
  const local = !ours.every(({ hook }) => isRemoteHook(hook));
  const away = local && inputs.daemon.running && inputs.daemon.away === true;
  const carried = places.filter((place) => TURN_END_EVENTS.every((event) => place.events.includes(event)));
  if (carried.length > 0) {
    passed.push(
      `Stop, UserPromptSubmit and Notification hooks installed in ${carried.map((place) => place.path).join(', ')}: while you are away, the end of each turn waits up to ${inputs.config.config.awaySeconds} s (awaySeconds) for your reply; Claude Code takes at most ${DEFAULT_STOP_CAP} replies in a row unless ${STOP_CAP_ENV} is set in the environment it starts with`,
    );
  }
  if (reach !== 'everywhere') {
    for (const gap of gaps) {
      findings.push({
        id: 'turn-ends-missing',
        level: 'warning',
        file: gap.path,
        message: `no ${gap.missing.join(', ')} hook reaches askbridge from ${gap.path}, so ${gap.missing.map((event) => TURN_END_ROLES[event as TurnEndEvent]).join('; ')}${away ? ' (and you are away)' : ''}`,
        fix: `\`${gap.fix}\` (adds the Stop, UserPromptSubmit and Notification entries), then restart running claude sessions`,
      });
    }
  }
  if (away) {
    const waits = reach === 'nowhere' ? '' : ': the end of each turn waits for your reply';
    findings.push({ id: 'away', level: 'info', message: `you are away (\`${inputs.command} away off\`, or the page's switch, when you are back)${waits}` });
  } else if (local && inputs.daemon.running && inputs.daemon.away === false) {
    passed.push(`you are not away: Claude stops at the end of a turn as usual (\`${inputs.command} away on\`, or the page's switch, makes it wait for your reply)`);
  }
  if (inputs.daemon.running && inputs.daemon.awayPeople) {
    findings.push({ id: 'away', level: 'info', message: `away on their own pages: ${inputs.daemon.awayPeople.join(', ')} (the end of a turn routed to them, or to everyone, waits for a reply)` });
  }
}

/**
 * What a question that no page or terminal watches does, by whenNobodyWatching and by who could be
 * told now (the daemon's paired devices with push and Telegram chats, the config's webhooks), and
 * whether ntfy's one-tap buttons can work (they post to the public URL).
 */
function checkReach(inputs: DoctorInputs, daemon: Extract<DaemonProbe, { running: true }>, findings: Finding[], passed: string[]): void {
  const { config, origins } = inputs.config;
  const from = origins.whenNobodyWatching === 'default' ? 'the default' : `from the ${origins.whenNobodyWatching} config`;
  const ntfyActions = config.notify.filter((target) => target.ntfy !== undefined && target.actions === true).length;
  if (ntfyActions > 0 && daemon.publicUrl === undefined && daemon.reach !== undefined) {
    findings.push({
      id: 'ntfy-actions-need-public-url',
      level: 'info',
      message: 'ntfy\'s one-tap buttons ("actions": true) need a public URL, which the phone\'s ntfy app posts the answer to: without one, each notification only opens the page',
      fix: 'set publicUrl (see "From your phone" in docs/remote.md)',
    });
  }
  if (config.whenNobodyWatching === 'wait') {
    passed.push(`whenNobodyWatching is "wait" (${from}): a question nobody watches waits ${config.waitSeconds} s (waitSeconds), even when nobody could be told`);
    return;
  }
  if (config.whenNobodyWatching === 'act') {
    passed.push(`whenNobodyWatching is "act" (${from}): a question nobody watches gets the onTimeout action (${config.onTimeout}) at once`);
    return;
  }
  if (!daemon.reach) return;
  const { watchers, pushDevices, telegramChats } = daemon.reach;
  const counted = (count: number, one: string, many: string) => (count === 0 ? [] : [`${count} ${count === 1 ? one : many}`]);
  const told = [...counted(pushDevices, 'device with push notifications', 'devices with push notifications'), ...counted(config.notify.length, 'webhook', 'webhooks'), ...counted(telegramChats, 'Telegram chat', 'Telegram chats')];
  if (told.length > 0) {
    passed.push(`a question nobody watches waits ${config.waitSeconds} s for an answer (whenNobodyWatching "wait-if-reachable", ${from}): ${told.join(', ')} would be told`);
  } else if (watchers > 0) {
    passed.push(`${watchers} page(s) or terminal(s) watch now; when none does, a question goes to Claude Code's own dialog at once, as nobody could be told (no push notifications, webhook or Telegram chat)`);
  } else {
    findings.push({
      id: 'nobody-reachable',
      level: 'info',
      message: `no page or terminal watches and nobody could be told (no device with push notifications, no webhook, no Telegram chat): a question goes to Claude Code's own dialog at once (whenNobodyWatching "wait-if-reachable", ${from})`,
      fix: `open the page (\`${inputs.command} open\`) or \`${inputs.command} watch\`; for a phone, turn on notifications on its page, or add a webhook (notify) or a Telegram bot to the user config; or set "whenNobodyWatching": "wait"`,
    });
  }
}

/** askbridge's entry for an event other than the question's, in any form: an http entry posting to `path` (the event's), or a command running its hook file. */
function isAskbridgeEntry(ref: HookRef, path: string): boolean {
  if (ref.hook.type === 'http') return typeof ref.hook.url === 'string' && parseUrl(ref.hook.url)?.pathname === path;
  return ref.hook.type === 'command' && commandOf(ref).includes(HOOK_SCRIPT);
}

function checkClaudeVersion(inputs: DoctorInputs, findings: Finding[], passed: string[]): void {
  const { claude } = inputs;
  if (claude.state === 'missing') {
    findings.push({
      id: 'claude-not-found',
      level: 'info',
      message: `no \`claude\` found (on PATH, or at --claude), so its version was not checked (askbridge needs Claude Code ${MIN_UPDATED_INPUT_VERSION.join('.')} or newer for answers as updatedInput)`,
      fix: `install Claude Code, or point at it with \`${inputs.command} doctor --claude /path/to/claude\``,
    });
    return;
  }
  const version = claude.state === 'found' ? parseClaudeVersion(claude.output) : undefined;
  if (version === undefined) {
    const detail = claude.state === 'failed' ? claude.error : `it printed ${JSON.stringify(shorten(claude.output.trim(), 200, { whitespace: 'keep' }))}`;
    findings.push({ id: 'claude-version-unknown', level: 'info', message: `could not tell the Claude Code version from \`${claude.bin} --version\` (${detail})` });
    return;
  }
  const text = version.join('.');
  const denyReason = inputs.config.config.answerMode === 'deny-reason';
  if (compareVersions(version, MIN_UPDATED_INPUT_VERSION) < 0) {
    if (denyReason) {
      passed.push(`Claude Code ${text} is older than ${MIN_UPDATED_INPUT_VERSION.join('.')}, and answerMode is "deny-reason" already`);
      return;
    }
    findings.push({
      id: 'claude-version-old',
      level: 'warning',
      message: `Claude Code ${text} is older than ${MIN_UPDATED_INPUT_VERSION.join('.')}: it ignores answers given as updatedInput`,
      fix: `add "answerMode": "deny-reason" to ${inputs.config.files.user}, or update Claude Code (\`claude update\`)`,
      file: inputs.config.files.user,
    });
    return;
  }
  passed.push(`Claude Code ${text} accepts answers as updatedInput`);
  if (denyReason) {
    findings.push({
      id: 'answer-mode-deny-reason',
      level: 'info',
      message: `answerMode is "deny-reason", which Claude Code ${text} does not need: Claude receives each answer as an error result`,
      fix: `remove "answerMode" from ${inputs.config.origins.answerMode === 'project' && inputs.config.files.project ? inputs.config.files.project : inputs.config.files.user}`,
    });
  }
}

/** Every hook under hooks.PreToolUse, shapes Claude Code would not accept skipped. */
function preToolUseHooks(file: SettingsFile & { state: 'ok' }): HookRef[] {
  return hooksOf(file, 'PreToolUse');
}

/** Every hook under hooks.EVENT, shapes Claude Code would not accept skipped. */
function hooksOf(file: SettingsFile & { state: 'ok' }, event: 'PreToolUse' | 'PermissionRequest' | 'SessionEnd' | 'Elicitation' | TurnEndEvent): HookRef[] {
  const hooks = isRecord(file.settings) ? file.settings.hooks : undefined;
  const entries = isRecord(hooks) ? hooks[event] : undefined;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: unknown) => {
    if (!isRecord(entry) || !Array.isArray(entry.hooks)) return [];
    if (entry.matcher !== undefined && typeof entry.matcher !== 'string') return [];
    const matcher = entry.matcher as string | undefined;
    return entry.hooks.filter(isRecord).map((hook) => ({ file, matcher, hook }));
  });
}

/** askbridge's hook in any form: an http entry posting to its path, or a command running its hook file (today's or the old one). */
function isAskbridgeHook(ref: HookRef): boolean {
  if (ref.hook.type === 'http') return typeof ref.hook.url === 'string' && parseUrl(ref.hook.url)?.pathname === HTTP_HOOK_PATH;
  return ref.hook.type === 'command' && typeof ref.hook.command === 'string' && (ref.hook.command.includes(HOOK_SCRIPT) || ref.hook.command.includes(OLD_HOOK_SCRIPT));
}

/** What tells two askbridge entries apart: the command, or the URL and key. */
function describeHook(ref: HookRef): string {
  return ref.hook.type === 'http' ? JSON.stringify([ref.hook.url, isRecord(ref.hook.headers) ? ref.hook.headers[HOOK_KEY_HEADER] : undefined]) : commandOf(ref);
}

function commandOf(ref: HookRef): string {
  return typeof ref.hook.command === 'string' ? ref.hook.command : '';
}

/**
 * Claude Code's PreToolUse matcher rules (read from 2.1.330): none, "" or "*" match every tool; a
 * value of only letters, digits, `_`, `|`, `,`, `-` and spaces is a list of exact names; anything
 * else is an unanchored JavaScript regular expression, and an invalid one matches nothing.
 */
export function matcherMatches(matcher: string | undefined, tool: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (/^[a-zA-Z0-9_|, -]+$/.test(matcher)) {
    return matcher.split(/[|,]/).some((name) => name.trim() === tool);
  }
  try {
    return new RegExp(matcher).test(tool);
  } catch {
    return false;
  }
}

/** A permission rule for the tool as a whole (`Tool`) or for some of its inputs (`Tool(...)`). */
export function namesTool(rule: string, tool: string): boolean {
  const trimmed = rule.trim();
  return trimmed === tool || (trimmed.startsWith(`${tool}(`) && trimmed.endsWith(')'));
}

/**
 * The absolute path of the hook script in a hook command, read the way a POSIX shell would read
 * the word holding it (quotes, backslashes, `$VAR`, `${VAR}`, a leading `~`). Undefined when the
 * word uses a variable not in `vars` or is relative: then the path cannot be known here.
 */
export function hookScriptPath(command: string, vars: Record<string, string>): string | undefined {
  const word = shellWords(command, vars).find((candidate) => candidate.text.includes(HOOK_SCRIPT) || candidate.text.includes(OLD_HOOK_SCRIPT));
  if (!word || word.unresolved || !word.text.startsWith('/')) return undefined;
  return word.text;
}

type Word = { text: string; unresolved: boolean };

function shellWords(command: string, vars: Record<string, string>): Word[] {
  const words: Word[] = [];
  let current: Word | undefined;
  const append = (text: string) => {
    current ??= { text: '', unresolved: false };
    current.text += text;
  };
  const expand = (at: number): number => {
    // `at` points at `$`; returns the index after the variable reference.
    const braced = command[at + 1] === '{';
    const nameMatch = /^[A-Za-z_][A-Za-z0-9_]*/.exec(command.slice(at + (braced ? 2 : 1)));
    if (!nameMatch) {
      append('$');
      return at + 1;
    }
    const name = nameMatch[0];
    const end = at + (braced ? 2 : 1) + name.length + (braced && command[at + 2 + name.length] === '}' ? 1 : 0);
    const value = vars[name];
    if (value === undefined || (braced && command[at + 2 + name.length] !== '}')) {
      append('');
      current!.unresolved = true;
    } else {
      append(value);
    }
    return end;
  };
  let index = 0;
  while (index < command.length) {
    const char = command[index]!;
    if (/\s/.test(char) || ';&|<>()'.includes(char)) {
      if (current) words.push(current);
      current = undefined;
      index += 1;
    } else if (char === "'") {
      const end = command.indexOf("'", index + 1);
      append(command.slice(index + 1, end === -1 ? command.length : end));
      index = end === -1 ? command.length : end + 1;
    } else if (char === '"') {
      append('');
      index += 1;
      while (index < command.length && command[index] !== '"') {
        const inner = command[index]!;
        if (inner === '\\' && '"\\$`'.includes(command[index + 1] ?? '')) {
          append(command[index + 1]!);
          index += 2;
        } else if (inner === '$') {
          index = expand(index);
        } else {
          append(inner);
          index += 1;
        }
      }
      index += 1;
    } else if (char === '\\') {
      append(command[index + 1] ?? '');
      index += 2;
    } else if (char === '$') {
      index = expand(index);
    } else if (char === '~' && current === undefined && (command[index + 1] === '/' || command[index + 1] === undefined || /\s/.test(command[index + 1]!))) {
      const home = vars.HOME;
      if (home === undefined) {
        append('~');
        current!.unresolved = true;
      } else {
        append(home);
      }
      index += 1;
    } else {
      append(char);
      index += 1;
    }
  }
  if (current) words.push(current);
  return words;
}

function installCommand(command: string, scope: SettingsScope, projectDir: string, options = ''): string {
  if (scope === 'user') return `\`${command} install --user${options}\``;
  return `\`${command} install --project ${shellQuote(projectDir)}${options}\``;
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

export async function probeDaemon(env: NodeJS.ProcessEnv): Promise<DaemonProbe> {
  try {
    const response = await connectToDaemon(env).request('GET', '/api/status');
    if (response.status !== 200) return { running: false, reason: `status request answered ${response.status}` };
    // Only what doctor reports: a daemon of another version still gets checked.
    const { url, version, away, awayPeople, watchers, tellable, routes, store } = readReply(
      StatusReplySchema.pick({ url: true, version: true, watchers: true, routes: true, awayPeople: true, store: true }).extend({ away: StatusReplySchema.shape.away.optional(), tellable: StatusReplySchema.shape.tellable.optional() }),
      response.body,
      'status',
    );
    const running = openStateDir(resolveStateDir(env)).readDaemonInfo();
    return {
      running: true,
      url,
      version,
      ...(away === undefined ? {} : { away }),
      ...(awayPeople === undefined || awayPeople.length === 0 ? {} : { awayPeople }),
      ...(tellable === undefined ? {} : { reach: { watchers, ...tellable } }),
      ...(running?.publicUrl === undefined ? {} : { publicUrl: running.publicUrl }),
      ...(routes === undefined ? {} : { routes }),
      ...(store === undefined ? {} : { store }),
    };
  } catch (error) {
    return { running: false, reason: error instanceof Error ? error.message : String(error), ...(error instanceof DaemonUnreachable && (error.state === 'refuses-token' || error.state === 'not-askbridge') ? { impostor: true } : {}) };
  }
}

export type Probes = { claude: typeof probeClaude; daemon: typeof probeDaemon; service: typeof probeSocketUnit };

/** Everything `diagnose` looks at. `claudeBin` is the `claude` to ask for its version (default: the user's, from PATH). */
export async function gatherInputs(
  projectDir: string,
  env: NodeJS.ProcessEnv,
  probes: Probes = { claude: probeClaude, daemon: probeDaemon, service: probeSocketUnit },
  claudeBin: string | undefined = findOnPath(env, 'claude'),
): Promise<DoctorInputs> {
  const homeDir = env.HOME || homedir();
  const claudeProbe = claudeBin === undefined ? Promise.resolve<ClaudeProbe>({ bin: 'claude', state: 'missing' }) : probes.claude(claudeBin, env);
  const [claude, daemon, service] = await Promise.all([claudeProbe, probes.daemon(env), probes.service(env)]);
  return {
    projectDir,
    homeDir,
    command: askbridgeCommand(env),
    settings: [
      readSettingsFile('user', join(homeDir, '.claude', 'settings.json')),
      readSettingsFile('project', join(projectDir, '.claude', 'settings.json')),
      readSettingsFile('local', join(projectDir, '.claude', 'settings.local.json')),
    ],
    config: createConfigReader(env).effective(projectDir),
    claude,
    daemon,
    hookKey: openStateDir(resolveStateDir(env)).readHookKey(),
    service,
    fileExists: existsSync,
    gemini: probeGemini(env, homeDir),
    codex: probeCodex(env, homeDir, projectDir, existsSync),
    opencode: findOnPath(env, 'opencode') !== undefined,
  };
}

const MARKS = { error: '✗', warning: '!', info: 'i' } as const;

/**
 * One line of the report: every invisible or terminal-active character as its marker, a newline
 * too, since each line doctor prints is one of its own (a check, a finding, its fix).
 */
function reportLine(text: string): string {
  return markInvisible(text).replace(/\n/g, markerOf);
}

export function formatReport(inputs: DoctorInputs, diagnosis: Diagnosis): string {
  const lines = [`askbridge doctor: ${reportLine(inputs.projectDir)}`, ''];
  const read = inputs.settings.map((file) => `${file.path}${file.state === 'missing' ? ' (none)' : file.state === 'invalid' ? ' (unreadable)' : ''}`);
  lines.push(`  settings read: ${reportLine(read.join(', '))}`, '');
  for (const text of diagnosis.passed) lines.push(`✓ ${reportLine(text)}`);
  for (const finding of diagnosis.findings) {
    lines.push(`${MARKS[finding.level]} ${finding.level}: ${reportLine(finding.message)}`);
    if (finding.fix) lines.push(`    fix: ${reportLine(finding.fix)}`);
  }
  const problems = diagnosis.findings.filter((finding) => finding.level !== 'info').length;
  lines.push('', problems === 0 ? 'Nothing wrong found.' : `${problems} problem(s) found.`);
  return `${lines.join('\n')}\n`;
}

export async function run(io: CommandIo): Promise<number> {
  if (io.argv.includes('--route')) return (await import('./doctor-route.js')).run(io);
  const { values } = parseArgs({ args: io.argv, strict: true, options: { cwd: { type: 'string' }, json: { type: 'boolean', default: false }, claude: { type: 'string' } } });
  const probes: Probes = { claude: probeClaude, daemon: probeDaemon, service: probeSocketUnit };
  const inputs = await gatherInputs(resolve(values.cwd ?? process.cwd()), io.env, probes, values.claude === undefined ? findOnPath(io.env, 'claude') : resolve(values.claude));
  const diagnosis = diagnose(inputs);
  if (values.json) io.stdout(`${terminalJson({ ok: diagnosis.ok, findings: diagnosis.findings })}\n`);
  else io.stdout(formatReport(inputs, diagnosis));
  return diagnosis.ok ? 0 : 1;
}
