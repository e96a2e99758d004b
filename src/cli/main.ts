// `askbridge <command>`: parses the command line and loads only the command asked for, so that
// `--help` and `status` stay instant. stdout carries results (JSON with --json); messages go to stderr.
import { markInvisible } from '../visible-text.js';
import { CliError } from './client.js';

export type CommandIo = {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
};

type Command = { summary: string; load: () => Promise<{ run: (io: CommandIo) => Promise<number | void> }> };

const COMMANDS: Record<string, Command> = {
  start: { summary: 'run the daemon in the foreground and print a one-time page link   [--port N]', load: () => import('./start.js') },
  stop: { summary: 'stop the running daemon (waiting questions go back to the terminal)', load: () => import('./stop.js') },
  status: { summary: 'is the daemon running? pid, port, url, pending count               [--json]', load: () => import('./status.js') },
  open: { summary: 'print a one-time link that pairs a browser, and open it             [--print]', load: () => import('./open.js') },
  install: { summary: "add the hook to a project's Claude Code settings   [--project DIR | --user] [--local]", load: () => import('./install.js') },
  pending: { summary: 'list the questions waiting for an answer                          [--json]', load: () => import('./pending.js') },
  history: { summary: 'the finished questions: who or what answered, and with what   [--limit N] [--json]', load: () => import('./history.js') },
  config: { summary: 'print the effective configuration for a directory and where each value comes from   [--cwd DIR] [--json]', load: () => import('./config.js') },
  doctor: { summary: 'check the Claude Code settings, the hook and the daemon, and say how to fix what is wrong', load: () => import('./doctor.js') },
  answer: { summary: 'answer a question: answer ID --pick 1=LABEL [--other 2=TEXT] [--note 1=TEXT]', load: () => import('./answer.js') },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(8)} ${command.summary}`);
  return `Usage: askbridge <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nEnvironment: ASKBRIDGE_HOME (state directory), ASKBRIDGE_PORT (daemon port, default 7433)\n`;
}

export async function runCli(io: CommandIo): Promise<number> {
  const [name, ...rest] = io.argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout(usage());
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v') {
    const { VERSION } = await import('../version.js');
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`askbridge: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    const module = await command.load();
    return (await module.run({ ...io, argv: rest })) ?? 0;
  } catch (error) {
    if (error instanceof CliError) {
      // A message may echo a label or question text: never let it act on the terminal.
      io.stderr(`askbridge ${name}: ${markInvisible(error.message)}\n`);
      return error.exitCode;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`askbridge ${name}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
