// What every command gets and how it fails, beside the dispatcher (main.ts) so that loading it costs
// nothing: the streams and environment a command runs with (tests pass in-memory ones), and the one
// error a command throws to say what went wrong in a sentence, with its exit code.
export type CommandIo = {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
};

/**
 * Exit codes: 1 the command failed (its message says why), 2 a usage error, 3 the question was
 * already settled, 4 declined and 5 nobody answered in time (ask), 6 the daemon went away while
 * the command was connected (watch, listen, the interactive answer), 130 the person left with
 * Ctrl+C or Esc (nothing was sent; ask withdraws its question).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
