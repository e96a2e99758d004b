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
