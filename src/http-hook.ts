// Claude Code's `http` hook as askbridge wires it (protocol.md 5a): where the entries post, the header
// that carries the hook key, and the environment it forwards. The daemon reads requests by these
// names and `install` writes entries with them, so both take them from here.

/** Where an http hook entry posts, on the daemon's origin. */
export const HTTP_HOOK_PATH = '/api/hook/ask';

/**
 * Where Claude Code's SessionEnd hook posts (an http entry with the hook key, or the command hook,
 * signed): the session's waiting questions are withdrawn.
 */
export const SESSION_END_PATH = '/api/hook/session-end';

/** The header that carries the hook key (it can ask questions, receive their outcome and say a session ended, nothing else). */
export const HOOK_KEY_HEADER = 'x-askbridge-hook-key';

/** The header a hook on another machine names that machine in, so the page can say where a question comes from. */
export const MACHINE_HEADER = 'x-askbridge-machine';

/**
 * The variables an http hook entry forwards, each in its own header (`CI` in `x-askbridge-env-ci`).
 * Claude Code fills `$CI` from its own environment, and only for names in `allowedEnvVars`; an unset
 * one arrives empty. CLAUDE_CODE_SESSION_ATTENDED never reaches an http hook (Claude Code sets it
 * only for hook processes), so SDK hosts set ASKBRIDGE_UNATTENDED=1 instead.
 */
export const HTTP_HOOK_ENV = ['CI', 'ASKBRIDGE_UNATTENDED'] as const;

export function envHeader(name: (typeof HTTP_HOOK_ENV)[number]): string {
  return `x-askbridge-env-${name.toLowerCase().replaceAll('_', '-')}`;
}
