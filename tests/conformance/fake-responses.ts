/**
 * A local mock of the Responses API (POST /v1/responses, SSE) that plays a scripted model for the
 * real Codex CLI (protocol.md 7: a `[model_providers.X]` with `wire_api = "responses"`).
 *
 * The script is a list of steps, chosen by how far the conversation has got: a request whose input
 * holds n tool results gets step n (a shell call through Codex's `exec_command`, or a final message),
 * and after the last step a plain message. Codex's side requests (a task's title), which offer the
 * model no tools, get a short message and are not counted. Every turn's request body is recorded,
 * so a test reads what the model really received (a command's output, a denial's message).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ResponsesStep =
  /** The model runs a shell command, asking to leave the sandbox (which makes Codex ask for approval). */
  | { exec: string; justification?: string }
  /** The model calls a tool Codex offers by its name; an MCP server's tools are in the namespace `mcp__<server>`. */
  | { call: string; namespace?: string; input?: Record<string, unknown> }
  | { say: string };

/** One tool result the model received: its call and Codex's text for it. */
export type RecordedOutput = { callId: string; output: string };

export interface FakeResponses {
  /** `http://127.0.0.1:P/v1`, for the provider's base_url. */
  readonly baseUrl: string;
  /** Every request body of a turn (one that offers the model its shell) to /v1/responses, in order. */
  readonly requests: Array<Record<string, unknown>>;
  /** Every request's method and path, in order (what else Codex asked for). */
  readonly seen: string[];
  /** The tool results the model received so far (from the latest request that carries each). */
  outputs(): RecordedOutput[];
  /** The users' messages the model received so far (their text). */
  userMessages(): string[];
  /** From now on plays these steps, with nothing recorded yet (one mock for the cases of a file). */
  play(steps: ResponsesStep[]): void;
  stop(): Promise<void>;
}

type InputItem = { type?: string; role?: string; call_id?: string; output?: unknown; content?: unknown };

function inputOf(body: Record<string, unknown>): InputItem[] {
  return Array.isArray(body.input) ? (body.input as InputItem[]) : [];
}

/** A tool result's text: Codex sends a string, or a list of content parts. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('');
  if (typeof output === 'object' && output !== null && 'content' in output) return outputText((output as { content: unknown }).content);
  return JSON.stringify(output);
}

function sse(events: Array<Record<string, unknown>>): string {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

function reply(id: string, item: Record<string, unknown>): string {
  return sse([
    { type: 'response.created', response: { id } },
    { type: 'response.output_item.done', item },
    {
      type: 'response.completed',
      response: { id, usage: { input_tokens: 10, input_tokens_details: null, output_tokens: 10, output_tokens_details: null, total_tokens: 20 } },
    },
  ]);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startFakeResponses(initialSteps: ResponsesStep[]): Promise<FakeResponses> {
  let steps = initialSteps;
  const requests: Array<Record<string, unknown>> = [];
  const seen: string[] = [];
  let served = 0;
  const server: Server = createServer((request, response) => {
    void (async () => {
      seen.push(`${request.method} ${request.url}`);
      const text = await readBody(request);
      if (request.method !== 'POST' || !request.url?.endsWith('/responses')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not mocked"}}');
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      served += 1;
      const offersShell = Array.isArray(body.tools) && body.tools.some((tool) => typeof tool === 'object' && tool !== null && (tool as { name?: unknown }).name === 'exec_command');
      if (!offersShell) {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        response.end(reply(`resp-${served}`, { type: 'message', role: 'assistant', id: `msg-${served}`, content: [{ type: 'output_text', text: 'Scripted task' }] }));
        return;
      }
      requests.push(body);
      const done = inputOf(body).filter((item) => item.type === 'function_call_output').length;
      const step = steps[done] ?? { say: 'All done.' };
      const id = `resp-${served}`;
      const item =
        'exec' in step
          ? {
              type: 'function_call',
              call_id: `call-${done}`,
              name: 'exec_command',
              arguments: JSON.stringify({ cmd: step.exec, justification: step.justification ?? 'Needs to run outside the sandbox', sandbox_permissions: 'require_escalated' }),
            }
          : 'call' in step
            ? { type: 'function_call', call_id: `call-${done}`, name: step.call, ...(step.namespace ? { namespace: step.namespace } : {}), arguments: JSON.stringify(step.input ?? {}) }
            : { type: 'message', role: 'assistant', id: `msg-${served}`, content: [{ type: 'output_text', text: step.say }] };
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      response.end(reply(id, item));
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const latest = () => requests.at(-1);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    seen,
    outputs: () =>
      inputOf(latest() ?? {})
        .filter((item) => item.type === 'function_call_output')
        .map((item) => ({ callId: String(item.call_id), output: outputText(item.output) })),
    userMessages: () =>
      inputOf(latest() ?? {})
        .filter((item) => item.type === 'message' && item.role === 'user')
        .map((item) => outputText(item.content)),
    play: (next) => {
      steps = next;
      requests.length = 0;
      seen.length = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
