// `askbridge ask`: ask a person from a shell script or an agent, and wait for the answer. The
// question goes through the daemon's inbox like one from Claude Code: the page and the terminal
// show it, the configuration's policies apply, and history keeps it. Ctrl+C withdraws it.
//
//   choice=$(askbridge ask --question "Deploy now?" --option "Yes: ship it" --option "No: wait")
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { askbridgeCommand } from '../command-name.js';
import { z } from 'zod';
import { EffectiveConfigSchema } from '../config.js';
import { HTTP_HOOK_ENV } from '../http-hook.js';
import { AskReplySchema, ErrorReplySchema, type AskRequest, type AskView } from '../protocol.js';
import { howItEnded } from '../settlement.js';
import { markInvisible, terminalJson, terminalText } from '../visible-text.js';
import { connectToDaemon, type DaemonClient } from './client.js';
import { CliError, type CommandIo } from './command.js';
import { readJsonInput } from './json-input.js';
import { readReply } from './replies.js';

/** Exit codes beyond 0-2 (main.ts): how the question ended when it was not answered. */
export const ASK_EXIT = { declined: 4, unanswered: 5, withdrawn: 130 } as const;

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: io.argv,
    allowPositionals: true,
    strict: true,
    options: {
      question: { type: 'string' },
      header: { type: 'string', default: '' },
      option: { type: 'string', multiple: true, default: [] },
      multi: { type: 'boolean', default: false },
      json: { type: 'string' },
      'json-output': { type: 'boolean', default: false },
      timeout: { type: 'string' },
      name: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new CliError(`unexpected ${terminalText(positionals[0]!)}: put the question in --question "..."`, 2);
  const questions = values.json !== undefined ? readQuestionsFile(values.json, values) : [questionFromFlags(values, askbridgeCommand(io.env))];
  const waitSeconds = values.timeout === undefined ? undefined : parseSeconds(values.timeout);
  const ask: AskRequest = {
    questions: questions as AskRequest['questions'],
    asker: { kind: 'script', name: values.name ?? callerName() },
    cwd: process.cwd(),
    environment: askerEnvironment(io.env),
    ...(waitSeconds === undefined ? {} : { waitSeconds }),
  };
  const daemon = connectToDaemon(io.env);
  if (waitSeconds !== undefined) await refuseWaitAboveCap(daemon, ask.cwd ?? '', waitSeconds);

  const withdraw = new AbortController();
  const onInterrupt = () => withdraw.abort();
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  let question: AskView;
  try {
    question = await askAndWait(daemon, ask, withdraw.signal);
  } catch (error) {
    if (!withdraw.signal.aborted) throw error;
    io.stderr('askbridge ask: withdrawn, nobody was asked any longer\n');
    return ASK_EXIT.withdrawn;
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
  return report(io, question, values['json-output']);
}

/** What tells the daemon nobody watches (CI, ASKBRIDGE_UNATTENDED), as an http hook forwards it. */
export function askerEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(HTTP_HOOK_ENV.flatMap((name) => (env[name] ? [[name, env[name].slice(0, 100)]] : [])));
}

/** What the daemon's GET /api/config says of how long a question asked in a folder may wait, and where that is set. */
const WaitCapSchema = z.object({
  config: z.object({ waitSeconds: EffectiveConfigSchema.shape.config.shape.waitSeconds }),
  origins: EffectiveConfigSchema.shape.origins,
  files: EffectiveConfigSchema.shape.files,
});

/**
 * The daemon waits at most the configuration's waitSeconds (for the folder a question is asked in),
 * whatever the asker asks for: a longer --timeout would be cut short without a word. It is refused
 * instead, with the cap and where it is set.
 */
async function refuseWaitAboveCap(daemon: DaemonClient, cwd: string, waitSeconds: number): Promise<void> {
  const response = await daemon.request('GET', `/api/config?cwd=${encodeURIComponent(cwd)}`);
  if (response.status !== 200) return; // an older daemon: it still holds the wait to the cap
  const { config, origins, files } = readReply(WaitCapSchema, response.body, 'configuration');
  if (waitSeconds <= config.waitSeconds) return;
  const origin = origins.waitSeconds;
  const where = origin === 'project' && files.project ? `set in ${files.project}` : origin === 'user' ? `set in ${files.user}` : `askbridge's default; waitSeconds in ${files.user} changes it`;
  throw new CliError(`--timeout ${waitSeconds} is above the longest a question asked here may wait: waitSeconds is ${config.waitSeconds} (${where}); give --timeout ${config.waitSeconds} or less`, 2);
}

/** Asks through the daemon and returns the settled ask; aborting `signal` withdraws it. */
export async function askAndWait(daemon: DaemonClient, ask: AskRequest, signal: AbortSignal): Promise<AskView> {
  const response = await daemon.request('POST', '/api/asks', ask, { waitsForAPerson: true, signal });
  if (response.status !== 200) {
    // The daemon names every bad field; its message may quote the question: markers, never raw control characters.
    throw new CliError(markInvisible(readReply(ErrorReplySchema, response.body, 'refusal').error.message), response.status === 400 ? 2 : 1);
  }
  return readReply(AskReplySchema, response.body, 'reply').ask;
}

/** The answer on stdout (only the answer, for `$(...)`); how it came about on stderr. */
function report(io: CommandIo, question: AskView, json: boolean): number {
  const code = question.status === 'answered' ? 0 : question.status === 'declined' ? ASK_EXIT.declined : ASK_EXIT.unanswered;
  if (json) {
    const { id, status, answers, notes, source } = question;
    io.stdout(`${terminalJson({ id, status, answers: answers ?? {}, notes: notes ?? {}, source })}\n`);
    return code;
  }
  if (question.status === 'answered') {
    const answers = question.answers ?? {};
    const one = question.questions.length === 1;
    for (const { question: text, header } of question.questions) {
      const answer = terminalText(Object.hasOwn(answers, text) ? answers[text]! : '', '  ');
      io.stdout(one ? `${answer}\n` : `${terminalText(header || text, '  ')}: ${answer}\n`);
      const note = question.notes && Object.hasOwn(question.notes, text) ? question.notes[text] : undefined;
      if (note) io.stderr(`note${one ? '' : ` (${terminalText(header || text, '  ')})`}: ${terminalText(note, '  ')}\n`);
    }
    if (question.source?.kind === 'policy') io.stderr(`${terminalText(howItEnded(question))}\n`);
    return code;
  }
  io.stderr(`askbridge ask: ${terminalText(howItEnded(question))}\n`);
  return code;
}

type Flags = { question?: string | undefined; header: string; option: string[]; multi: boolean };

/** One question from the flags; each --option is "Label: description" (or just "Label"). `command` runs askbridge here, for the usage. */
function questionFromFlags(flags: Flags, command: string) {
  if (flags.question === undefined) throw new CliError(`usage: ${command} ask --question TEXT --option "LABEL: DESCRIPTION" --option ... [--header TEXT] [--multi] | --json FILE|-`, 2);
  if (flags.option.length < 2) throw new CliError('give at least two --option "LABEL: DESCRIPTION"', 2);
  const options = flags.option.map((value) => {
    const split = value.indexOf(': ');
    return split === -1 ? { label: value, description: '' } : { label: value.slice(0, split), description: value.slice(split + 2) };
  });
  return { question: flags.question, header: flags.header, multiSelect: flags.multi, options };
}

/** Questions as AskUserQuestion takes them (`{"questions": [...]}`), from a file or stdin ("-"); the daemon checks them. */
function readQuestionsFile(path: string, flags: Flags): unknown[] {
  if (flags.question !== undefined || flags.option.length > 0) throw new CliError('give the question either with --question/--option or with --json, not both', 2);
  const { json, where } = readJsonInput(path);
  const questions = typeof json === 'object' && json !== null && 'questions' in json ? json.questions : undefined;
  if (!Array.isArray(questions)) throw new CliError(`${where} must hold {"questions": [...]}, as AskUserQuestion takes them`, 2);
  return questions;
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400) throw new CliError(`--timeout ${terminalText(value)}: expected whole seconds from 1 to 86400`, 2);
  return seconds;
}

/** Who asks, as the page shows it: the program that ran this command (a script's own name when it has a #! line). */
function callerName(): string {
  try {
    const name = readFileSync(`/proc/${process.ppid}/comm`, 'utf8').trim();
    if (name) return basename(name);
  } catch {
    // Not Linux: --name says it.
  }
  return 'script';
}
