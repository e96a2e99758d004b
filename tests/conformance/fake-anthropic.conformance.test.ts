/**
 * The fake model server on its own, over HTTP: the paths the real client does
 * not exercise in the tmux tests (non-streaming replies, retries, unknown
 * paths) must still behave like the Messages API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from './fake-anthropic.js';
import { DATABASE } from './questions.js';
import type { AskUserQuestionInput, FakeAnthropic } from './fake-anthropic.js';

const SCRIPT: AskUserQuestionInput = { ...DATABASE, metadata: { source: 'conformance' } };

const ASK_TOOL = { name: 'AskUserQuestion', description: 'Ask the user', input_schema: { type: 'object' } };

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

let fake: FakeAnthropic | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((chunk) => chunk.trim().length > 0)
    .map((chunk) => {
      const lines = chunk.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length) ?? '';
      const data = lines.find((l) => l.startsWith('data: '))?.slice('data: '.length) ?? '{}';
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

function userText(text: string): Record<string, unknown> {
  return { role: 'user', content: [{ type: 'text', text }] };
}

describe('fake Anthropic Messages API', () => {
  it('streams the scripted AskUserQuestion call as server-sent events in API order', async () => {
    fake = await startFakeAnthropic({ script: SCRIPT });
    const res = await post(`${fake.url}/v1/messages?beta=true`, {
      model: 'claude-test',
      stream: true,
      tools: [ASK_TOOL],
      messages: [userText('Ask me')],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    expect(events[1]?.data.content_block).toMatchObject({ type: 'tool_use', id: fake.currentToolUseId, name: 'AskUserQuestion' });
    const json = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => (e.data.delta as { partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual(SCRIPT);
    expect(events[5]?.data.delta).toMatchObject({ stop_reason: 'tool_use' });
    expect(events[5]?.data.usage).toMatchObject({ output_tokens: expect.any(Number) });
    expect(fake.requests[0]).toMatchObject({ kind: 'main', reply: 'tool_use', path: '/v1/messages', url: '/v1/messages?beta=true' });
  });

  it('answers non-streaming requests with one JSON message, and background requests with text', async () => {
    fake = await startFakeAnthropic({ script: SCRIPT, backgroundText: 'A title' });
    const main = await post(`${fake.url}/v1/messages`, { model: 'm', stream: false, tools: [ASK_TOOL], messages: [userText('Ask me')] });
    const mainBody = (await main.json()) as Record<string, unknown>;
    expect(mainBody).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'tool_use' });
    expect(mainBody.content).toEqual([{ type: 'tool_use', id: fake.currentToolUseId, name: 'AskUserQuestion', input: SCRIPT }]);

    // Title generation sends `tools: []`: it must never get the tool call.
    const background = await post(`${fake.url}/v1/messages?beta=true`, { model: 'm', tools: [], messages: [userText('name this session')] });
    const backgroundBody = (await background.json()) as Record<string, unknown>;
    expect(backgroundBody).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'A title' }] });
    expect(fake.requests.map((r) => r.kind)).toEqual(['main', 'background']);
  });

  it('records the tool_result found anywhere in the request, with what follows it, and ends the turn', async () => {
    fake = await startFakeAnthropic({ script: SCRIPT, finalText: 'Done.' });
    await post(`${fake.url}/v1/messages`, { model: 'm', tools: [ASK_TOOL], messages: [userText('Ask me')] });
    const id = fake.currentToolUseId;
    const pending = fake.waitForToolResult(5_000);
    const res = await post(`${fake.url}/v1/messages`, {
      model: 'm',
      tools: [ASK_TOOL],
      messages: [
        userText('Ask me'),
        { role: 'assistant', content: [{ type: 'tool_use', id, name: 'AskUserQuestion', input: SCRIPT }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: 'part one' }, { type: 'text', text: 'part two' }], is_error: true },
            { type: 'text', text: 'same-message note' },
          ],
        },
        { role: 'system', content: [{ type: 'text', text: 'hook context' }] },
      ],
    });
    expect(((await res.json()) as Record<string, unknown>).content).toEqual([{ type: 'text', text: 'Done.' }]);
    const result = await pending;
    expect(result).toMatchObject({ toolUseId: id, text: 'part one\npart two', isError: true, requestIndex: 1 });
    expect(result.following.map((m) => [m.role, m.text])).toEqual([
      ['user', 'same-message note'],
      ['system', 'hook context'],
    ]);
  });

  it('asks again on a retried first request, but not once the call is in the conversation', async () => {
    fake = await startFakeAnthropic({ script: SCRIPT });
    const first = { model: 'm', tools: [ASK_TOOL], messages: [userText('Ask me')] };
    await post(`${fake.url}/v1/messages`, first);
    await post(`${fake.url}/v1/messages`, first);
    const id = fake.currentToolUseId;
    await post(`${fake.url}/v1/messages`, {
      ...first,
      messages: [...first.messages, { role: 'assistant', content: [{ type: 'tool_use', id, name: 'AskUserQuestion', input: SCRIPT }] }, userText('still there?')],
    });
    expect(fake.requests.map((r) => r.reply)).toEqual(['tool_use', 'tool_use', 'text']);
  });

  it('plays steps in order: any tool, the next step once the previous tool_result arrives, text ending the turn', async () => {
    const BASH_TOOL = { name: 'Bash', description: 'Run a command', input_schema: { type: 'object' } };
    fake = await startFakeAnthropic({
      steps: [
        { tool: 'Bash', input: { command: 'npm test', description: 'Run the tests' } },
        { tool: 'Write', text: 'Writing it down.', inputFrom: ({ system }) => ({ file_path: system.trim(), content: 'x' }) },
        { text: 'All done.' },
        { tool: 'Bash', input: { command: 'ls' } },
      ],
      finalText: 'Nothing more.',
    });
    // No AskUserQuestion offered: the tools of the steps mark the main conversation.
    const base = { model: 'm', system: [{ type: 'text', text: '/tmp/plan.md' }], tools: [BASH_TOOL] };
    const reply = async (messages: unknown[]) => ((await (await post(`${fake!.url}/v1/messages`, { ...base, messages })).json()) as { content: unknown[] }).content;
    const bashId = fake.stepToolUseId(0)!;
    const writeId = fake.stepToolUseId(1)!;
    expect(fake.currentToolUseId).toBe(bashId);
    const first = [userText('Go')];
    expect(await reply(first)).toEqual([{ type: 'tool_use', id: bashId, name: 'Bash', input: { command: 'npm test', description: 'Run the tests' } }]);
    const afterBash = [
      ...first,
      { role: 'assistant', content: [{ type: 'tool_use', id: bashId, name: 'Bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: bashId, content: 'tests-ok' }] },
    ];
    expect(await reply(afterBash)).toEqual([
      { type: 'text', text: 'Writing it down.' },
      { type: 'tool_use', id: writeId, name: 'Write', input: { file_path: '/tmp/plan.md', content: 'x' } },
    ]);
    expect(fake.currentToolUseId).toBe(writeId);
    const afterWrite = [
      ...afterBash,
      { role: 'assistant', content: [{ type: 'tool_use', id: writeId, name: 'Write', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: writeId, content: 'denied', is_error: true }] },
    ];
    expect(await reply(afterWrite)).toEqual([{ type: 'text', text: 'All done.' }]);
    expect((await fake.waitForStepResult(0, 100)).text).toBe('tests-ok');
    expect(fake.toolResult).toMatchObject({ toolUseId: writeId, text: 'denied', isError: true });
    expect(fake.toolResults.map((r) => r.toolUseId)).toEqual([bashId, writeId]);
    // The next prompt plays the step after the text; once all are done, finalText.
    const next = [...afterWrite, { role: 'assistant', content: [{ type: 'text', text: 'All done.' }] }, userText('Again')];
    expect(await reply(next)).toMatchObject([{ type: 'tool_use', name: 'Bash', input: { command: 'ls' } }]);
    const lsId = fake.stepToolUseId(3)!;
    const afterLs = [...next, { role: 'assistant', content: [{ type: 'tool_use', id: lsId, name: 'Bash', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: lsId, content: 'a' }] }];
    expect(await reply(afterLs)).toEqual([{ type: 'text', text: 'Nothing more.' }]);
    expect(fake.stepIndex).toBe(4);
    expect(fake.mainRequests.map((r) => r.step)).toEqual([0, 1, 2, 3, undefined]);
  });

  it('answers other paths and methods with 200 {}, and times out waiting with a summary', async () => {
    fake = await startFakeAnthropic({ script: SCRIPT });
    const head = await fetch(`${fake.url}/api/hello`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const get = await fetch(`${fake.url}/v1/models`);
    expect(await get.json()).toEqual({});
    const count = await post(`${fake.url}/v1/messages/count_tokens?beta=true`, { messages: [] });
    expect(await count.json()).toEqual({ input_tokens: 1 });
    expect(fake.requests.map((r) => r.kind)).toEqual(['other', 'other', 'other']);
    await expect(fake.waitForToolResult(200)).rejects.toThrow(/no tool_result .* within 200 ms; requests: #0 HEAD \/api\/hello/);
  });
});
