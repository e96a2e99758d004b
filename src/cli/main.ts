// `askbridge <command>`: parses the command line and loads only the command asked for, so that
// `--help` stays instant (this file loads nothing else heavy). stdout carries results (JSON with
// --json); messages go to stderr. Every failure is one line on stderr and a documented exit code.
import { askbridgeCommand } from '../command-name.js';
import { closestName } from '../closest-name.js';
import { markInvisible } from '../visible-text.js';
import { CliError, type CommandIo } from './command.js';

type Command = {
  /** The options, as `askbridge NAME --help` shows them. */
  usage: string;
  summary: string;
  /** More for `askbridge NAME --help` alone (the keys of the terminal flow). */
  more?: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a command that can only succeed returns nothing (exit 0)
  load: () => Promise<{ run: (io: CommandIo) => Promise<number | void> }>;
};

/** The keys of the terminal flow (answer and watch): the one place they are listed in full. */
const FLOW_KEYS = `Keys, in each question:
  1-9           a number picks that option (the last is Other: type your own answer); in a multi-select question it ticks it
  Up/Down Enter move and choose; Space ticks in a multi-select question, Enter confirms
  d             decline: Claude is told you chose not to answer (as the page's Decline)
  t             let the terminal answer: Claude Code's own dialog asks (its questions only, not a script's)
  c             show all the context: the session's title and what Claude said, unshortened
  n             in a single one-choice question: add a note, and review before sending
A single question with one choice is sent by its number (or Enter) at once, as in Claude Code's dialog.
Otherwise each question asks an optional note, and a review lists every answer: pick one to change it,
or Submit. --confirm: a single choice goes through the note and the review too, and d and t ask first.
A permission or a plan: its whole input is shown, then a number decides at once: Allow once (a plan: Approve),
each of Claude Code's "always allow" suggestions, Deny (asks an optional message), Deny and stop; for a plan,
Tell Claude what to change (required) and Reject and stop. t and c as above; no d. --confirm: a decision asks first.
An MCP server's request for input: its server and message, then a form field by field (text and numbers typed,
an empty line leaves an optional one empty; yes/no and choices picked or ticked), each value checked as given;
then a review: pick a field to change it, or Accept, Decline, Cancel, Let the terminal answer. A link is shown
whole with its host, never opened: Done, Decline, Cancel, Let the terminal answer. d, t and c as above.
In watch, the end of Claude's turn (while you are away): its last message, whole, then type a reply and Enter: Claude
goes on with it; an empty line or /done: Claude stops. --confirm: either asks first. (answer leaves it to the reply command.)`;

const COMMANDS: Record<string, Command> = {
  start: {
    usage: '[--port N] [--public-url URL] [--listen ADDR:PORT --tls-cert FILE --tls-key FILE] [--background [--quiet]]',
    summary: 'run the daemon and print a one-time page link; --background detaches and returns once it serves (at once when it already runs), --quiet prints nothing',
    load: () => import('./start.js') },
  service: {
    usage: 'install|uninstall|status [--port N]',
    summary: 'let systemd hold the daemon\'s port and run it (Linux, a systemd user manager): askbridge.socket and askbridge.service in ~/.config/systemd/user',
    load: () => import('./service.js') },
  stop: { usage: '', summary: 'stop the running daemon and wait until it has exited (waiting questions go back to the terminal)', load: () => import('./stop.js') },
  status: { usage: '[--json]', summary: 'is the daemon running (pid, port, url, pending count, whether you are away), and if it cannot be used, why', load: () => import('./status.js') },
  open: { usage: '[--print] [--person NAME]', summary: "print a one-time link that pairs a browser, and open it; --person: the browser is that person's", load: () => import('./open.js') },
  grants: { usage: '[--json] | --revoke ID|all', summary: 'the live grants (allow the same request for a while) and the time each has left; --revoke ends one or all at once', load: () => import('./grants.js') },
  devices: { usage: '[--json] | --revoke ID', summary: 'the paired browsers and Telegram chats, whose each is, and when each was last seen; --revoke unpairs one at once', load: () => import('./devices.js') },
  people: {
    usage: 'add NAME [--group G ...] | list [--json] | remove NAME',
    summary: 'the people askbridge knows (none: it serves one person, you): add one, in groups a route can name; list each with their groups, devices and Telegram chats; remove one, which unpairs every device and chat of theirs at once',
    load: () => import('./people.js'),
  },
  pair: {
    usage: '[--no-qr] [--person NAME] | --telegram [--person NAME]',
    summary: "print a one-time link and its QR code that pair a phone or another machine (through the public URL); --telegram: a one-time code that pairs a Telegram chat with your bot; --person: the device or chat is that person's (see people)",
    load: () => import('./pair.js'),
  },
  install: {
    usage: '[--project DIR | --user] [--hook http|command] [--no-approvals] [--no-turn-ends] [--rotate-key] [--force] [--claude PATH] | --url URL --key KEY [--machine NAME] [--person NAME] | --codex [--project DIR | --user]',
    summary: "add askbridge's hooks to this machine's Claude Code settings (questions, and with them permissions and plans unless --no-approvals, and with the http hook the ends of turns while you are away and waits in the terminal unless --no-turn-ends): DIR/.claude/settings.local.json (default DIR: here), or ~/.claude/settings.json; the http hook when Claude Code has it (2.1.63+) and systemd holds the port (the service command), else the command hook; never into a file git tracks or a link points through (--force: anyway); --codex: Codex CLI's permission requests, in DIR/.codex/hooks.json or $CODEX_HOME/hooks.json (default ~/.codex), trusted in its config.toml",
    load: () => import('./install.js') },
  'remote-hook': { usage: '[--url URL] [--machine NAME] [--person NAME]', summary: 'the settings entry (and the install command) for a Claude Code on another machine to ask this daemon through its public URL; --person names whose sessions they are, for routes', load: () => import('./remote-hook.js') },
  uninstall: { usage: '[--project DIR | --user] [--codex]', summary: 'remove exactly what install added (--codex: what install --codex added)', load: () => import('./uninstall.js') },
  pending: { usage: '[--json]', summary: "list the questions, permissions and plans waiting (their suggestions numbered), the ends of Claude's turns waiting for a reply, and the sessions waiting for you in their terminal", load: () => import('./pending.js') },
  answer: {
    usage: '[ID | --session ID] [--confirm] | --all | ID --pick 1=LABEL|NUMBER [--other 2=TEXT] [--note 1=TEXT] | ID --json FILE | ID --allow | ID --allow-suggestion N | ID --deny [--message TEXT] [--interrupt]',
    summary: 'answer a question from the terminal, every question of it as on the page: on a terminal, one at a time (the oldest waiting, ID, or the oldest of a session; a unique prefix of an ID is enough, a finished one is exit 3 as with the whole ID, and so is one answered in the terminal); for scripts, at once with --pick (an option by its label or its number); a permission or a plan with --allow, --allow-suggestion N (as pending numbers them) or --deny with an optional --message and --interrupt (for a plan, --allow approves it and --deny needs --message: what to change); --all, on a terminal: every waiting permission shown whole, then tick the ones to allow and the ones to deny, with one message for each one denied',
    more: `${FLOW_KEYS}\nEsc or Ctrl+C leaves, nothing is sent (exit 130). Sent, declined or handed back: exit 0.`,
    load: () => import('./answer.js') },
  away: { usage: '[on|off]', summary: "say you are away (on: the end of each of Claude's turns waits for your reply) or back (off: every turn end waiting is let go, and Claude stops); alone, whether you are", load: () => import('./away.js') },
  reply: {
    usage: 'SESSION [--machine NAME] TEXT... | SESSION - | SESSION --done',
    summary: "reply to the end of Claude's turn in SESSION (its id, or a unique prefix of one that waits) on this machine, or with --machine NAME on the machine `pending` names: Claude goes on with exactly TEXT (- reads it from standard input); --done lets Claude stop. Two turn ends in one session there are refused, naming both (reply in watch or on the page). Exit 3 when that turn's end was settled meanwhile (you typed in its terminal)",
    load: () => import('./reply.js') },
  watch: {
    usage: '[--confirm]',
    summary: "wait for questions and answer each in the terminal as it arrives, oldest first, with a bell, and reply to the end of Claude's turn while you are away; Esc skips one (it keeps waiting), Ctrl+C leaves, the questions keep waiting; a session waiting for you in its terminal is printed as a line",
    more: `${FLOW_KEYS}\nEsc skips a question: it keeps waiting, and watch goes on to the next. A skipped question is not asked again while others wait; once nothing else waits, Enter asks the skipped ones again. Ctrl+C leaves (exit 0).`,
    load: () => import('./watch.js') },
  listen: { usage: '[--json]', summary: "print each question (a permission, the end of Claude's turn, a session waiting in its terminal) as it is added, updated while it waits (its session context), and settled (by whom) or withdrawn, until Ctrl+C or the daemon stops; --json: one object a line", load: () => import('./listen.js') },
  ask: {
    usage: '--question TEXT --option "LABEL: DESCRIPTION" --option ... [--header TEXT] [--multi] | --json FILE|-  [--timeout SECONDS] [--name NAME] [--json-output]',
    summary: 'ask a person from a script and wait: the answer on stdout; exit 4 when declined, 5 when nobody answered in time, 130 when withdrawn with Ctrl+C',
    load: () => import('./ask.js') },
  attach: {
    usage: 'opencode [URL] | codex',
    summary: "relay opencode's questions and permissions to askbridge from its server (opencode serve; URL default http://127.0.0.1:4096, plain http only to this machine; its password from OPENCODE_SERVER_PASSWORD), or Codex's questions (request_user_input, in Plan mode) from its TUI's app-server under CODEX_HOME, and send the answers back; the agent's own prompt decides what askbridge does not; Ctrl+C withdraws what waits",
    load: () => import('./attach.js') },
  mcp: { usage: '', summary: 'an MCP server on stdio with one tool, ask_user, that asks through askbridge (for Claude Code, Codex, Gemini CLI, Cursor: see docs/scripts.md)', load: () => import('./mcp.js') },
  history: { usage: '[--limit N] [--search TEXT] [--json] [--local]', summary: "the finished questions, newest first: who or what answered, and with what; the ends of Claude's turns with the reply; with a shared store, every daemon's (--local: this daemon's own)", load: () => import('./history.js') },
  audit: {
    usage: 'verify [--file PATH] [--local] | export [--since DATE] [--until DATE] [--format json|csv] [--file PATH] [--local]',
    summary: "the audit trail of every decision (docs/audit.md), read without the daemon: verify checks every line's sequence, hash and MAC and the head, and names the first broken line (exit 1), and with a shared store every daemon's trail there too; export writes the lines from --since to --until as JSON lines (each as in the trail) or CSV, with a shared store every daemon's (--local: this machine's own)",
    load: () => import('./audit.js') },
  store: {
    usage: 'migrate | status [--json]',
    summary: 'the shared store several daemons keep their state in (a PostgreSQL database, docs/shared-store.md): migrate makes or brings up its schema (run it before starting a newer askbridge; a second run does nothing), status says where it is, whether it answers and why not, its schema version and this askbridge\'s, and the daemons it has seen',
    load: () => import('./store.js'),
  },
  trust: { usage: '[DIR] | --revoke DIR | --list', summary: "let a project's .claude/askbridge.json apply (its content as it is now), after showing what it does", load: () => import('./trust.js') },
  config: { usage: '[--cwd DIR] [--json]', summary: 'the effective configuration for a directory and where each value comes from', load: () => import('./config.js') },
  logs: { usage: '[-n N] [--follow] [--json]', summary: "the background daemon's log, readable", load: () => import('./logs.js') },
  doctor: { usage: '[--cwd DIR] [--claude PATH] [--json] | --route [--project DIR] [--agent A] [--kind K] [--machine M|local] [--person P] [--risky] [--json]', summary: 'check the Claude Code settings, the hook and the daemon, and say how to fix what is wrong; --route: where an ask would go (the route rule, its people, who could see it now); --machine names a remote hook\'s machine, `local` (or no --machine) this machine\'s own sessions', load: () => import('./doctor.js') },
};

/** Every command's name, as `askbridge --help` lists them. */
export const COMMAND_NAMES = Object.keys(COMMANDS);

const EXIT_CODES =
  'Exit codes: 0 done, 1 failed (the message says why), 2 wrong usage, 3 the question (or the end of a turn) was already settled, 4 declined (ask), 5 nobody answered in time (ask), 6 the daemon stopped (watch, listen, the interactive answer), 130 left with Ctrl+C or Esc (nothing was sent; ask withdraws its question).';

/** Every command, one line each; `askbridge` runs askbridge here (askbridgeCommand). */
function usage(askbridge: string): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(12)}${command.summary}`);
  return `Usage: ${askbridge} <command> [options]   (${askbridge} <command> --help for its options)\n\nCommands:\n${lines.join('\n')}\n\nEnvironment: ASKBRIDGE_HOME (state directory), ASKBRIDGE_PORT (daemon port, default 7433), ASKBRIDGE_STORE (the shared store's URL)\n${EXIT_CODES}\n`;
}

export async function runCli(io: CommandIo): Promise<number> {
  const [name, ...rest] = io.argv;
  const askbridge = askbridgeCommand(io.env);
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout(usage(askbridge));
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    const { VERSION } = await import('../version.js');
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    const meant = closestName(name, Object.keys(COMMANDS));
    io.stderr(meant ? `askbridge: unknown command "${markInvisible(name)}": did you mean ${meant}? (${askbridge} --help lists every command)\n` : `askbridge: unknown command "${markInvisible(name)}"\n\n${usage(askbridge)}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    const more = command.more ? `\n${command.more}\n` : '';
    io.stdout(`Usage: ${askbridge} ${name}${command.usage ? ` ${command.usage}` : ''}\n\n${command.summary}.\n${more}${EXIT_CODES}\n`);
    return 0;
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
      io.stderr(`askbridge ${name}: ${error.message} (${askbridge} ${name} --help)\n`);
      return 2;
    }
    // Not a failure the command foresaw: still one line, with the stack only when asked for.
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`askbridge ${name}: ${message.split('\n')[0]}${io.env.ASKBRIDGE_DEBUG === '1' && error instanceof Error ? `\n${error.stack}` : ' (ASKBRIDGE_DEBUG=1 shows where)'}\n`);
    return 1;
  }
}
