/**
 * A fake OpenAI-compatible chat API (`POST /v1/chat/completions`, streamed) for conformance tests
 * of clients that take any such provider: opencode through `@ai-sdk/openai-compatible`.
 *
 * It plays a model that follows the steps a test queues. A request that offers tools is the main
 * conversation: a new prompt plays the next step (a tool call), and the tool's result, recorded,
 * gets the final text, which ends the turn. A request without tools (a session's title) gets a
 * short title. Every tool
 * result is recorded, so a test can assert exactly what the model would have read.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call by the model: any tool the client offers (`bash`, `question`...) and its arguments. */
export type ChatToolStep = { tool: string; input: Record<string, unknown> };

export type FakeChatOptions = {
  /** The model's text once a tool result came back, or when no step is queued. */
  finalText?: string;
};

export type FakeChat = {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  /** Every tool result the client sent back, in order: what the model read. */
  toolResults(): string[];
  /** Resolves with the first tool result that matches. */
  waitForToolResult(match: (content: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Queues the tool call the next prompt plays. */
  play(step: ChatToolStep): void;
  /** Main-conversation requests so far. */
  mainRequests(): number;
  close(): Promise<void>;
};

type ChatMessage = { role?: unknown; content?: unknown };

export async function startFakeChat(options: FakeChatOptions = {}): Promise<FakeChat> {
  const steps: ChatToolStep[] = [];
  const results: string[] = [];
  const waiters = new Set<() => void>();
  let played = 0;
  let main = 0;

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += chunk;
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(text) as { tools?: unknown[]; messages?: ChatMessage[]; stream?: boolean };
    const messages = body.messages ?? [];
    if (!Array.isArray(body.tools) || body.tools.length === 0) return stream(response, { text: 'Test session' });
    main += 1;
    const last = messages[messages.length - 1];
    if (last?.role === 'tool') {
      results.push(contentText(last.content));
      for (const wake of waiters) wake();
    }
    // A tool result ends the turn; a new prompt plays the next step.
    const step = last?.role === 'tool' ? undefined : steps.shift();
    if (!step) return stream(response, { text: options.finalText ?? 'Done.' });
    played += 1;
    return stream(response, { call: step, id: `call_${played}` });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    toolResults: () => [...results],
    play: (step) => steps.push(step),
    mainRequests: () => main,
    waitForToolResult(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = results.find(match);
          if (found === undefined) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching tool result within ${timeoutMs} ms; results so far: ${JSON.stringify(results)}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('');
  return JSON.stringify(content);
}

/** One streamed completion: a text, or one tool call, then its finish reason and [DONE]. */
function stream(response: ServerResponse, reply: { text: string } | { call: ChatToolStep; id: string }): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'fake-model' };
  const send = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) => response.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }], ...extra })}\n\n`);
  if ('text' in reply) {
    send({ delta: { role: 'assistant', content: reply.text }, finish_reason: null });
    send({ delta: {}, finish_reason: 'stop' }, { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  } else {
    send({
      delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: reply.id, type: 'function', function: { name: reply.call.tool, arguments: JSON.stringify(reply.call.input) } }] },
      finish_reason: null,
    });
    send({ delta: {}, finish_reason: 'tool_calls' }, { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  }
  response.end('data: [DONE]\n\n');
}
