/**
 * A fake Anthropic Messages API for conformance tests.
 *
 * The real Claude Code client talks to it through ANTHROPIC_BASE_URL. For the
 * main conversation it plays a model that follows a list of steps: each step
 * is one tool call (any tool, any input) or a text reply. A tool step is
 * played on a main request, and the next step once that call's tool_result
 * arrives; a text step ends the turn, and the next step waits for the next
 * main request (a new prompt). Every tool_result is recorded, so a test can
 * assert exactly what the model would have read.
 *
 * The original form, `{ script, tool? }`, is the one-step list "call `tool`
 * (AskUserQuestion unless set) with `script`", then `finalText`.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AskUserQuestionInput } from '../official/ask-user-question-input.js';

/** The input the fake model passes to `AskUserQuestion`: the official type of the pinned Claude Code. */
export type { AskUserQuestionInput };

/** What a step's input may be computed from: the main request that plays it. */
export interface StepContext {
  /** The request body as received (its `system` holds the system prompt). */
  body: unknown;
  /** The system prompt as text (string, or its text blocks joined with a newline). */
  system: string;
  /** Index of this request in `requests`. */
  requestIndex: number;
}

/** One tool call by the model. */
export interface ToolStep {
  /** Any tool name the client offers: `Bash`, `Edit`, `ExitPlanMode`, `mcp__server__tool`... */
  tool: string;
  /** The call's input (ignored when `inputFrom` is set). */
  input?: unknown;
  /** Computes the input from the request that plays the step (e.g. a path named in the system prompt or a reminder). */
  inputFrom?: (context: StepContext) => unknown;
  /** Text the model says before the call, in the same reply. */
  text?: string;
  /** A fixed tool_use id; a fresh real-looking one unless set. */
  id?: string;
}

/** A Bash call, as Claude Code's model makes one: the command and what it does in words. */
export function bashStep(command: string, description: string): ToolStep {
  return { tool: 'Bash', input: { command, description } };
}

/** A reply with text only: it ends the turn. */
export interface TextStep {
  text: string;
}

export type Step = ToolStep | TextStep;

export interface FakeAnthropicOptions {
  /** What the model asks on the first main-conversation request (ignored when `steps` is set). */
  script?: AskUserQuestionInput;
  /** The tool the model calls with `script`: AskUserQuestion unless set (an MCP tool, say `mcp__askbridge__ask_user`). */
  tool?: string;
  /** The model's steps, played in order (see the file comment). Either this or `script` must be set. */
  steps?: Step[];
  /** Text that ends the turn once the last tool_result has arrived, and answers every main request after the last step. */
  finalText?: string;
  /** Text returned to every background request (title, summary, classifiers...). */
  backgroundText?: string;
  /**
   * Tool names whose presence in a request's `tools` marks it as the main
   * conversation. Default: AskUserQuestion plus every tool the steps call.
   */
  mainTools?: string[];
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
  /** For a main request: the index of the step it played, if it played one (a fallback text has none). */
  step?: number;
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

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

interface Waiter {
  toolUseId: string;
  resolve: (result: RecordedToolResult) => void;
}

/** A step as armed: tool steps carry their id from the start, so a test knows it before the call is made. */
interface ArmedStep {
  step: Step;
  id: string | undefined;
  played: boolean;
}

function isToolStep(step: Step): step is ToolStep {
  return 'tool' in step;
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
 * tool (or the tools the script calls): title generation, summaries and the
 * permission classifier send no tools or a different set, so this rule does
 * not depend on prompt wording.
 */
function isMainRequest(body: unknown, mainTools: ReadonlySet<string>): boolean {
  if (!isRecord(body) || !Array.isArray(body.tools)) return false;
  return body.tools.some((tool) => isRecord(tool) && typeof tool.name === 'string' && mainTools.has(tool.name));
}

/** The system prompt of a request as text. */
export function systemText(body: unknown): string {
  return isRecord(body) ? contentText(body.system) : '';
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
  /** Every tool_result received for a scripted call, in arrival order. */
  readonly toolResults: RecordedToolResult[] = [];
  private server: Server | undefined;
  private baseUrl: string | undefined;
  private readonly finalText: string;
  private readonly backgroundText: string;
  private readonly tool: string;
  private readonly fixedMainTools: string[] | undefined;
  private mainTools = new Set<string>();
  private steps: ArmedStep[] = [];
  /** Index of the step the next main request deals with. */
  private cursor = 0;
  private results = new Map<string, RecordedToolResult>();
  private waiters: Waiter[] = [];

  constructor(options: FakeAnthropicOptions) {
    this.finalText = options.finalText ?? 'Thanks, I will go with that.';
    this.backgroundText = options.backgroundText ?? 'Conformance test';
    this.tool = options.tool ?? ASK_TOOL;
    this.fixedMainTools = options.mainTools;
    if (options.steps) this.setSteps(options.steps);
    else if (options.script) this.setScript(options.script);
    else throw new Error('FakeAnthropic: give `script` or `steps`');
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

  /**
   * The id of the model's current tool call: the last tool step played, or
   * the next one to play when none has been (known before the call is made).
   */
  get currentToolUseId(): string {
    return this.currentToolStep()?.id ?? '';
  }

  /** The tool_result for currentToolUseId, if it has arrived. */
  get toolResult(): RecordedToolResult | undefined {
    return this.results.get(this.currentToolUseId);
  }

  /** The tool_use id of step `index` (undefined for a text step). */
  stepToolUseId(index: number): string | undefined {
    return this.steps[index]?.id;
  }

  /** Index of the step the next main request deals with (equals the number of steps once all are done). */
  get stepIndex(): number {
    return this.cursor;
  }

  /** The tool_result for step `index`, if it has arrived. */
  stepResult(index: number): RecordedToolResult | undefined {
    const id = this.steps[index]?.id;
    return id === undefined ? undefined : this.results.get(id);
  }

  /** Main-conversation requests only. */
  get mainRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'main');
  }

  /** Arms a new question: the next main request gets a fresh tool_use call (of the `tool` option) with this input. */
  setScript(script: AskUserQuestionInput): void {
    this.setSteps([{ tool: this.tool, input: script }]);
  }

  /** Replaces the script: the next main request plays the first of these steps. Tool steps get fresh ids unless they name one. */
  setSteps(steps: Step[]): void {
    this.steps = steps.map((step) => ({ step, id: isToolStep(step) ? (step.id ?? newToolUseId()) : undefined, played: false }));
    this.cursor = 0;
    this.mainTools = new Set(this.fixedMainTools ?? [ASK_TOOL, ...steps.filter(isToolStep).map((s) => s.tool)]);
  }

  /** Adds steps after the current ones (e.g. for the next prompt); returns the index of the first. */
  addSteps(steps: Step[]): number {
    const first = this.steps.length;
    for (const step of steps) {
      this.steps.push({ step, id: isToolStep(step) ? (step.id ?? newToolUseId()) : undefined, played: false });
      if (isToolStep(step) && !this.fixedMainTools) this.mainTools.add(step.tool);
    }
    return first;
  }

  /** Resolves with the tool_result for the current call; rejects after timeoutMs with a summary of what arrived. */
  waitForToolResult(timeoutMs: number): Promise<RecordedToolResult> {
    return this.waitForResultOf(this.currentToolUseId, timeoutMs);
  }

  /** Resolves with the tool_result for step `index`; rejects after timeoutMs. */
  waitForStepResult(index: number, timeoutMs: number): Promise<RecordedToolResult> {
    const id = this.steps[index]?.id;
    if (id === undefined) return Promise.reject(new Error(`FakeAnthropic: step ${index} is no tool step`));
    return this.waitForResultOf(id, timeoutMs);
  }

  private waitForResultOf(toolUseId: string, timeoutMs: number): Promise<RecordedToolResult> {
    const current = this.results.get(toolUseId);
    if (current) return Promise.resolve(current);
    return new Promise<RecordedToolResult>((resolve, reject) => {
      const waiter: Waiter = {
        toolUseId,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`FakeAnthropic: no tool_result for ${toolUseId} within ${timeoutMs} ms; requests: ${this.describeRequests()}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** The last tool step played, else the next tool step to play. */
  private currentToolStep(): ArmedStep | undefined {
    let played: ArmedStep | undefined;
    for (const armed of this.steps) if (armed.id !== undefined && armed.played) played = armed;
    if (played) return played;
    return this.steps.slice(this.cursor).find((armed) => armed.id !== undefined) ?? this.steps.find((armed) => armed.id !== undefined);
  }

  private recordResult(found: RecordedToolResult): void {
    if (this.results.has(found.toolUseId)) return;
    this.results.set(found.toolUseId, found);
    this.toolResults.push(found);
    const ready = this.waiters.filter((w) => w.toolUseId === found.toolUseId);
    this.waiters = this.waiters.filter((w) => w.toolUseId !== found.toolUseId);
    for (const waiter of ready) waiter.resolve(found);
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
    if (isMainRequest(body, this.mainTools)) {
      record.kind = 'main';
      blocks = this.mainReply(body, requestIndex, record);
    } else {
      record.kind = 'background';
      blocks = [{ type: 'text', text: this.backgroundText }];
    }
    record.reply = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'text';
    if (stream) this.sendStream(res, model, blocks);
    else sendJson(res, 200, this.message(model, blocks));
  }

  private mainReply(body: unknown, requestIndex: number, record: RecordedRequest): Block[] {
    // Record every scripted call's result this request carries (a later request repeats them all).
    for (const armed of this.steps) {
      if (armed.id === undefined || !armed.played || this.results.has(armed.id)) continue;
      const found = findToolResult(body, armed.id, requestIndex);
      if (found) this.recordResult(found);
    }
    const current = this.steps[this.cursor];
    if (current?.played && current.id !== undefined) {
      if (this.results.has(current.id)) {
        // The call was answered: play the next step, or end the turn.
        this.cursor++;
        return this.play(body, requestIndex, record, this.finalText);
      }
      // A request that already holds our call is waiting on something else; a
      // request without it is a retry of the one that asked, so ask again.
      if (containsToolUse(body, current.id)) return [{ type: 'text', text: this.finalText }];
      return this.play(body, requestIndex, record, this.finalText);
    }
    return this.play(body, requestIndex, record, this.finalText);
  }

  /** Plays the step at the cursor; a text step moves the cursor on (it ends the turn), a tool step waits for its result. */
  private play(body: unknown, requestIndex: number, record: RecordedRequest, fallback: string): Block[] {
    const armed = this.steps[this.cursor];
    if (!armed) return [{ type: 'text', text: fallback }];
    armed.played = true;
    record.step = this.cursor;
    const step = armed.step;
    if (!isToolStep(step)) {
      this.cursor++;
      return [{ type: 'text', text: step.text }];
    }
    const input = step.inputFrom ? step.inputFrom({ body, system: systemText(body), requestIndex }) : (step.input ?? {});
    const blocks: Block[] = [];
    if (step.text !== undefined) blocks.push({ type: 'text', text: step.text });
    blocks.push({ type: 'tool_use', id: armed.id ?? newToolUseId(), name: step.tool, input });
    return blocks;
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
