// Claude Code's `http` hook as askbridge wires it (protocol.md 5a): where the entries post, the headers
// that carry the hook key and the machine, and the environment every hook forwards. The daemon reads
// requests by these names and `install` writes entries with them, so both take them from here.

/** Where an http hook entry posts, on the daemon's origin. */
export const HTTP_HOOK_PATH = '/api/hook/ask';

/**
 * Where Claude Code's SessionEnd hook posts (an http entry with the hook key, or the command hook,
 * signed): the session's waiting questions are withdrawn.
 */
export const SESSION_END_PATH = '/api/hook/session-end';

/**
 * Where Claude Code's PermissionRequest hook posts (an http entry with the hook key): a permission,
 * or a plan's approval, waits in the inbox beside the questions.
 */
export const PERMISSION_HOOK_PATH = '/api/hook/permission';

/**
 * Where Claude Code's Stop hook posts (an http entry with the hook key): while the person is away,
 * the end of a turn waits for their reply; otherwise it is answered at once with no decision.
 */
export const STOP_HOOK_PATH = '/api/hook/stop';

/** Where Claude Code's UserPromptSubmit hook posts: the person typed in that session's terminal, so its turn's end waits no more. */
export const PROMPT_HOOK_PATH = '/api/hook/prompt';

/** Where Claude Code's Notification hook posts: the session waits on the person in its terminal. */
export const NOTIFICATION_HOOK_PATH = '/api/hook/notification';

/** Where Claude Code's Elicitation hook posts: an MCP server asks the person for input (a form, or a URL to open). */
export const ELICITATION_HOOK_PATH = '/api/hook/elicitation';

/**
 * The Stop entry forwards Claude Code's limit on replies in a row in this header
 * (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`, filled from Claude Code's environment; empty when unset).
 */
export const STOP_CAP_ENV = 'CLAUDE_CODE_STOP_HOOK_BLOCK_CAP';
export const STOP_CAP_HEADER = 'x-askbridge-stop-block-cap';
/** How many times in a row Claude Code 2.1.330 lets a Stop hook continue a turn when STOP_CAP_ENV is unset (protocol.md 8). */
export const DEFAULT_STOP_CAP = 8;

/** The header that carries the hook key (it can ask questions, receive their outcome and say a session ended, nothing else). */
export const HOOK_KEY_HEADER = 'x-askbridge-hook-key';

/** The header a hook on another machine names that machine in, so the page can say where a question comes from. */
export const MACHINE_HEADER = 'x-askbridge-machine';
/**
 * The header a remote hook names whose session it is in (`remote-hook --person`): a route with no
 * rule matching sends the session's asks to that person. It names, never authorises: only the hook
 * key's requests carry it, and a decision still needs that person's paired device or chat.
 */
export const PERSON_HEADER = 'x-askbridge-person';
/** The machine of a hook that names none: `remote-hook` writes it when given no name, and the daemon says it of one from elsewhere that sent none. */
export const UNNAMED_MACHINE = 'another machine';

/**
 * The environment variables that tell the daemon whether a person watches the session, each with the
 * hooks that can forward it. The command hook forwards every one that is set, in its request's
 * `environment` (hooks/askbridge-hook.cjs cannot import this: its copy of the names is pinned to this
 * list by a test). An http hook entry forwards each of its own in a header (`CI` in
 * `x-askbridge-env-ci`): Claude Code fills `$CI` from its own environment, and only for names in
 * `allowedEnvVars`; an unset one arrives empty. Claude Code sets the CLAUDE_CODE_ ones only for hook
 * processes, so they never reach an http hook; SDK hosts set ASKBRIDGE_UNATTENDED=1 instead.
 */
const HOOK_ENV_REACH = {
  CI: 'every hook',
  ASKBRIDGE_UNATTENDED: 'every hook',
  CLAUDE_CODE_SESSION_ATTENDED: 'command hook',
  CLAUDE_CODE_ENTRYPOINT: 'command hook',
} as const;

export type HookEnvName = keyof typeof HOOK_ENV_REACH;
type HttpHookEnvName = { [Name in HookEnvName]: (typeof HOOK_ENV_REACH)[Name] extends 'every hook' ? Name : never }[HookEnvName];

/** The names the command hook forwards, and the daemon's request schemas accept. */
export const HOOK_ENV = Object.keys(HOOK_ENV_REACH) as HookEnvName[];

/** The names an http hook entry forwards (and `askbridge ask` with it), in this order in `allowedEnvVars`. */
export const HTTP_HOOK_ENV = HOOK_ENV.filter((name): name is HttpHookEnvName => HOOK_ENV_REACH[name] === 'every hook');

export function envHeader(name: HttpHookEnvName): string {
  return `x-askbridge-env-${name.toLowerCase().replaceAll('_', '-')}`;
}
