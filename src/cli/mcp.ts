// `askbridge mcp`: a stdio MCP server with one tool, `ask_user`, so that any agent with an MCP client
// (Codex, Gemini CLI, Cursor, Claude Code itself) can ask the person through askbridge: the page,
// the terminal, the policies and history, as for Claude Code's own AskUserQuestion. The call blocks
// until the question is settled, with progress notifications meanwhile so that clients keep
// waiting. It never makes an answer up: no daemon, no answer, one clear tool error.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { LIMITS, MULTI_SELECT_SEPARATOR, QuestionSchema, type AskView } from '../protocol.js';
import { howItEnded, policyReason } from '../settlement.js';
import { VERSION } from '../version.js';
import { askAndWait, askerEnvironment } from './ask.js';
import { connectToDaemon } from './client.js';
import type { CommandIo } from './command.js';
import { startInBackground } from './start.js';

/** How often a waiting call tells the client it is still alive. */
export const PROGRESS_INTERVAL_MS = 10_000;

const DESCRIPTION = `Ask the user one or more multiple-choice questions and wait for their answer. Use it when a decision is the user's to make (a choice between approaches, a preference, a missing requirement) rather than guessing. Each question has a short header, 2-${LIMITS.options.max} options with a label and a description (put "(Recommended)" at the end of the label you recommend), and multiSelect when several options may be chosen together; the user can always answer in their own words instead. Up to 4 questions at once (more, up to ${LIMITS.askQuestions.max}, when the user's configuration allows them). The answer may take minutes: the call waits.`;

export async function run(io: CommandIo): Promise<number> {
  const server = new McpServer({ name: 'askbridge', version: VERSION });
  server.registerTool(
    'ask_user',
    {
      title: 'Ask the user',
      description: DESCRIPTION,
      inputSchema: { questions: z.array(QuestionSchema).min(LIMITS.askQuestions.min).max(LIMITS.askQuestions.max) },
      outputSchema: {
        message: z.string(),
        status: z.enum(['answered', 'declined', 'unanswered']),
        answers: z.record(z.string(), z.string()),
        notes: z.record(z.string(), z.string()),
        answeredBy: z.enum(['person', 'policy', 'nobody']),
      },
    },
    async ({ questions }, extra) => {
      const progressToken = extra._meta?.progressToken;
      // For tests only: a short interval, to see progress without waiting ten seconds.
      const intervalMs = Number(io.env.ASKBRIDGE_TEST_PROGRESS_MS) || PROGRESS_INTERVAL_MS;
      let beats = 0;
      const heartbeat =
        progressToken === undefined
          ? undefined
          : setInterval(() => {
              beats += 1;
              extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: beats, message: 'waiting for the user to answer' } }).catch(() => {});
            }, intervalMs);
      try {
        // The daemon serves every asker; start it when it is not running, as a Claude Code session does.
        await startInBackground({ ...io, stdout: () => {}, stderr: () => {} }, [], true);
        const client = server.server.getClientVersion();
        const question = await askAndWait(connectToDaemon(io.env), { questions, asker: { kind: 'mcp', name: client?.name || 'MCP client' }, cwd: process.cwd(), environment: askerEnvironment(io.env) }, extra.signal);
        return resultOf(question);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { isError: true, content: [{ type: 'text', text: `askbridge could not ask the user: ${reason}. No answer was given: do not assume one.` }] };
      } finally {
        clearInterval(heartbeat);
      }
    },
  );
  const transport = new StdioServerTransport();
  await server.connect(transport);
  // Served until the client closes stdin.
  await new Promise<void>((done) => {
    transport.onclose = done;
    process.stdin.once('end', done);
  });
  await server.close();
  return 0;
}

/** The settled question as the model reads it: Claude Code's own wording for answers, and the same facts as structured content. */
export function resultOf(question: AskView): CallToolResult {
  const answers = question.answers ?? {};
  const notes = question.notes ?? {};
  if (question.status === 'answered') {
    const byPolicy = question.source?.kind === 'policy';
    const pairs = question.questions.map(({ question: text }) => `"${text}"="${Object.hasOwn(answers, text) ? answers[text] : ''}"${Object.hasOwn(notes, text) ? ` (note: ${notes[text]})` : ''}`).join(', ');
    const onlyLabels = Object.keys(notes).length === 0 && question.questions.every(({ question: text, options, multiSelect }) => {
      const answer = Object.hasOwn(answers, text) ? answers[text]! : '';
      const labels = multiSelect ? answer.split(MULTI_SELECT_SEPARATOR) : [answer];
      return labels.every((label) => options.some((option) => option.label === label));
    });
    const text = onlyLabels
      ? `Your questions have been answered: ${pairs}. You can now continue with these answers in mind.`
      : `The user answered: ${pairs}. Read the answers carefully and follow what they actually say.`;
    const policy = question.source?.kind === 'policy' ? ` These answers were chosen by the configured default, not by a person: ${policyReason(question.source.trigger)}. State the assumption and let the user correct it later.` : '';
    return withMessage(`${text}${policy}`, { status: 'answered', answers, notes, answeredBy: byPolicy ? 'policy' : 'person' });
  }
  const declined = question.status === 'declined';
  const text = declined
    ? question.source?.kind === 'person'
      ? 'The user declined to answer these questions. Do not ask again: proceed with your best judgment, state the assumptions you make, and let the user correct them later.'
      : 'Nobody is available to answer. Proceed with your best judgment, state the assumptions you make, and let the user correct them later.'
    : `The user did not answer the questions (${howItEnded(question)}). No answer was given: do not assume one.`;
  return withMessage(text, { status: declined ? 'declined' : 'unanswered', answers: {}, notes: {}, answeredBy: declined && question.source?.kind === 'person' ? 'person' : 'nobody' });
}

/**
 * The sentence as text content and inside the structured content too: Claude Code (2.1.330) gives
 * its model only the structured content when there is some, and the sentence is what says whether a
 * person chose, or nobody did.
 */
function withMessage(message: string, facts: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: message }], structuredContent: { message, ...facts } };
}
