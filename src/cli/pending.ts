import { parseArgs } from 'node:util';
import type { QuestionView } from '../protocol.js';
import { connectToDaemon } from './client.js';
import type { CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { json: { type: 'boolean', default: false } }, strict: true });
  const { body } = await connectToDaemon(io.env).request<{ questions: QuestionView[] }>('GET', '/api/questions');
  if (values.json) {
    io.stdout(`${JSON.stringify(body.questions)}\n`);
    return;
  }
  if (body.questions.length === 0) {
    io.stdout('No questions waiting.\n');
    return;
  }
  for (const call of body.questions) {
    const seconds = Math.max(0, Math.round((call.expiresAt - Date.now()) / 1000));
    io.stdout(`${call.id}  ${call.cwd}  (${seconds}s left, then ${call.timeout.summary})\n`);
    call.questions.forEach((question, index) => {
      const kind = question.multiSelect ? 'pick one or more' : 'pick one';
      io.stdout(`  ${index + 1}. ${question.header ? `[${question.header}] ` : ''}${question.question}  (${kind})\n`);
      for (const option of question.options) io.stdout(`       - ${option.label}: ${option.description}\n`);
    });
  }
}
