// How long Claude Code lets askbridge's AskUserQuestion hook run, and how much of that the daemon
// keeps back. `install` writes the timeout, `doctor` checks the settings against both, and the
// daemon bounds how far a question's deadline may be extended by them, so all take them from here.

/** The `timeout` (seconds) `askbridge install` writes on the hook entry: Claude Code kills the hook after it. */
export const HOOK_TIMEOUT_SECONDS = 3600;

/**
 * The hook must outlive the daemon's wait by this much, or Claude Code kills it before the daemon's
 * timeout policy acts. It covers the command hook's own margin past the daemon's deadline (10 s)
 * and a busy machine.
 */
export const TIMEOUT_MARGIN_SECONDS = 30;

/**
 * The longest a hook's question may wait, counted from when it was asked, extensions included: the
 * hook's timeout as `install` writes it, less the margin that lets the daemon answer before Claude
 * Code kills the hook. An asker that waits with no limit of its own (`POST /api/asks` without
 * waitSeconds, the MCP tool) is held to the same bound (agents.ts).
 */
export const MAX_WAIT_MS = (HOOK_TIMEOUT_SECONDS - TIMEOUT_MARGIN_SECONDS) * 1000;
