/**
 * A fake Anthropic Messages API for conformance tests.
 *
 * The real Claude Code client talks to it through ANTHROPIC_BASE_URL. For the
 * main conversation it plays a model that calls `AskUserQuestion` once with a
 * scripted input, then records the tool_result the client sends back, so a
 * test can assert exactly what the model would have read.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AskUserQuestionInput } from '../official/ask-user-question-input.js';

/** The input the fake model passes to `AskUserQuestion`: the official type of the pinned Claude Code. */
export type { AskUserQuestionInput };

export interface FakeAnthropicOptions {
  /** What the model asks on the first main-conversation request. */
  script: AskUserQuestionInput;
  /** The tool the model calls with it: AskUserQuestion unless set (an MCP tool, say `mcp__askbridge__ask_user`). */
  tool?: string;
  /** Text that ends the turn once the tool_result has arrived. */
  finalText?: string;
  /** Text returned to every background request (title, summary, classifiers...). */
  backgroundText?: string;
}

export type RequestKind = 'main' | 'background' | 'other';

export interface RecordedRequest {
  method: string;
  /** Path and query as received, e.g. `/v1/messages?beta=true`. */
  url: string;
  /** Path without query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
  kind: RequestKind;
  stream: boolean;
  /** What the fake answered: a tool_use call, text, or a plain `{}`. */
  reply: 'tool_use' | 'text' | 'empty';
  receivedAt: number;
}

/** A message (or the rest of a message) that came after the tool_result in the same request. */
export interface FollowingMessage {
  role: string;
  /** All text found in it, text blocks joined with a newline. */
  text: string;
  content: unknown;
}

export interface RecordedToolResult {
  toolUseId: string;
  /** The tool_result content as text: the string itself, or its text blocks joined with a newline. */
  text: string;
  /** The raw `content` of the tool_result block (string or array of blocks). */
  content: unknown;
  isError: boolean;
  /**
   * Everything after the tool_result block: the remaining blocks of its own
   * message (as role of that message), then every later message. Hook
   * `additionalContext` arrives here, not inside the tool_result.
   */
  following: FollowingMessage[];
  /** Index of the main request (in `requests`) that carried the tool_result. */
  requestIndex: number;
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: AskUserQuestionInput };

interface Waiter {
  resolve: (result: RecordedToolResult) => void;
}

const ASK_TOOL = 'AskUserQuestion';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Tool ids look like the real ones so that nothing in the client trips on their shape. */
function newToolUseId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(22);
  let id = 'toolu_01';
  for (const byte of bytes) id += alphabet[byte % alphabet.length] ?? 'A';
  return id;
}

function newMessageId(): string {
  return `msg_01${randomBytes(11).toString('hex')}`;
}

/** Text of a message or block content: a string, or the text blocks of an array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n');
}

/**
 * The main conversation is the only request that offers the `AskUserQuestion`
 * tool: title generation, summaries and the permission classifier send no
 * tools or a different set, so this rule does not depend on prompt wording.
 */
function isMainRequest(body: unknown): boolean {
  if (!isRecord(body) || !Array.isArray(body.tools)) return false;
  return body.tools.some((tool) => isRecord(tool) && tool.name === ASK_TOOL);
}

function messagesOf(body: unknown): unknown[] {
  return isRecord(body) && Array.isArray(body.messages) ? body.messages : [];
}

/** Scans every message, since additionalContext and reminders may follow the tool_result. */
function findToolResult(body: unknown, toolUseId: string, requestIndex: number): RecordedToolResult | undefined {
  const messages = messagesOf(body);
  for (let m = 0; m < messages.length; m++) {
    const message = messages[m];
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    const blocks: unknown[] = message.content;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      if (!isRecord(block) || block.type !== 'tool_result' || block.tool_use_id !== toolUseId) continue;
      const role = typeof message.role === 'string' ? message.role : 'unknown';
      const following: FollowingMessage[] = [];
      const restOfMessage = blocks.slice(b + 1);
      if (restOfMessage.length > 0) {
        following.push({ role, text: contentText(restOfMessage), content: restOfMessage });
      }
      for (const later of messages.slice(m + 1)) {
        if (!isRecord(later)) continue;
        following.push({
          role: typeof later.role === 'string' ? later.role : 'unknown',
          text: contentText(later.content),
          content: later.content,
        });
      }
      return {
        toolUseId,
        text: contentText(block.content),
        content: block.content,
        isError: block.is_error === true,
        following,
        requestIndex,
      };
    }
  }
  return undefined;
}

/** True when the request already holds our tool_use call (so the model has asked already). */
function containsToolUse(body: unknown, toolUseId: string): boolean {
  return messagesOf(body).some(
    (message) =>
      isRecord(message) &&
      Array.isArray(message.content) &&
      message.content.some((block) => isRecord(block) && block.type === 'tool_use' && block.id === toolUseId),
  );
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const payload = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

export class FakeAnthropic {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private server: Server | undefined;
  private baseUrl: string | undefined;
  private script: AskUserQuestionInput;
  private readonly finalText: string;
  private readonly backgroundText: string;
  private readonly tool: string;
  private toolUseId: string = newToolUseId();
  private result: RecordedToolResult | undefined;
  private waiters: Waiter[] = [];

  constructor(options: FakeAnthropicOptions) {
    this.script = options.script;
    this.finalText = options.finalText ?? 'Thanks, I will go with that.';
    this.backgroundText = options.backgroundText ?? 'Conformance test';
    this.tool = options.tool ?? ASK_TOOL;
  }

  /** Listens on 127.0.0.1 with a free port. */
  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        // A failed handler must still answer, or the client would retry and muddle the log.
        if (!res.headersSent) sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: String(error) } });
        else res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address() as AddressInfo;
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${address.port}`;
  }

  /** Base URL for ANTHROPIC_BASE_URL. */
  get url(): string {
    if (!this.baseUrl) throw new Error('FakeAnthropic: start() first');
    return this.baseUrl;
  }

  /** The id the model uses for its current `AskUserQuestion` call. */
  get currentToolUseId(): string {
    return this.toolUseId;
  }

  /** The tool_result received so far, if any. */
  get toolResult(): RecordedToolResult | undefined {
    return this.result;
  }

  /** Main-conversation requests only. */
  get mainRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'main');
  }

  /** Arms a new question: the next main request gets a fresh tool_use call with this input. */
  setScript(script: AskUserQuestionInput): void {
    this.script = script;
    this.toolUseId = newToolUseId();
    this.result = undefined;
  }

  /** Resolves with the tool_result for the current call; rejects after timeoutMs with a summary of what arrived. */
  waitForToolResult(timeoutMs: number): Promise<RecordedToolResult> {
    const current = this.result;
    if (current) return Promise.resolve(current);
    return new Promise<RecordedToolResult>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`FakeAnthropic: no tool_result for ${this.toolUseId} within ${timeoutMs} ms; requests: ${this.describeRequests()}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** One line per request, for failure messages. */
  describeRequests(): string {
    if (this.requests.length === 0) return '(none)';
    return this.requests.map((r, i) => `#${i} ${r.method} ${r.url} kind=${r.kind} stream=${r.stream} reply=${r.reply}`).join('; ');
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // The client keeps connections alive; drop them so close() does not hang.
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const stream = isRecord(body) && body.stream === true;
    const record: RecordedRequest = {
      method,
      url,
      path,
      headers: req.headers,
      body,
      kind: 'other',
      stream,
      reply: 'empty',
      receivedAt: Date.now(),
    };
    this.requests.push(record);
    const requestIndex = this.requests.length - 1;

    if (method === 'POST' && path === '/v1/messages/count_tokens') {
      // Token counting expects a number; `{}` could make the client misjudge context size.
      sendJson(res, 200, { input_tokens: 1 });
      return;
    }
    if (method !== 'POST' || path !== '/v1/messages') {
      sendJson(res, 200, {});
      return;
    }

    const model = isRecord(body) && typeof body.model === 'string' ? body.model : 'claude-fake';
    let blocks: Block[];
    if (isMainRequest(body)) {
      record.kind = 'main';
      blocks = this.mainReply(body, requestIndex);
    } else {
      record.kind = 'background';
      blocks = [{ type: 'text', text: this.backgroundText }];
    }
    record.reply = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'text';
    if (stream) this.sendStream(res, model, blocks);
    else sendJson(res, 200, this.message(model, blocks));
  }

  private mainReply(body: unknown, requestIndex: number): Block[] {
    const found = findToolResult(body, this.toolUseId, requestIndex);
    if (found) {
      if (!this.result) {
        this.result = found;
        const waiters = this.waiters;
        this.waiters = [];
        for (const waiter of waiters) waiter.resolve(found);
      }
      return [{ type: 'text', text: this.finalText }];
    }
    if (this.result) return [{ type: 'text', text: this.finalText }];
    // A request that already holds our call is waiting on something else; a
    // request without it is the first ask or a retry of it, so ask (again).
    if (containsToolUse(body, this.toolUseId)) return [{ type: 'text', text: this.finalText }];
    return [{ type: 'tool_use', id: this.toolUseId, name: this.tool, input: this.script }];
  }

  private message(model: string, blocks: Block[]): Record<string, unknown> {
    return {
      id: newMessageId(),
      type: 'message',
      role: 'assistant',
      model,
      content: blocks,
      stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
  }

  private sendStream(res: ServerResponse, model: string, blocks: Block[]): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event: string, data: Record<string, unknown>): void => {
      res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    };
    const full = this.message(model, blocks);
    send('message_start', {
      message: { ...full, content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
    });
    blocks.forEach((block, index) => {
      if (block.type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
      } else {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
        // Split the JSON in two deltas, as the real API streams it in pieces.
        const json = JSON.stringify(block.input);
        const cut = Math.floor(json.length / 2);
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, cut) } });
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(cut) } });
      }
      send('content_block_stop', { index });
    });
    send('message_delta', { delta: { stop_reason: full.stop_reason, stop_sequence: null }, usage: { output_tokens: 8 } });
    send('message_stop', {});
    res.end();
  }
}

/** Creates and starts a fake server. */
export async function startFakeAnthropic(options: FakeAnthropicOptions): Promise<FakeAnthropic> {
  const fake = new FakeAnthropic(options);
  await fake.start();
  return fake;
}
