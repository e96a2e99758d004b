/**
 * A fake Gemini API (generativelanguage v1beta) for the Gemini CLI conformance suite.
 *
 * The real Gemini CLI talks to it through GOOGLE_GEMINI_BASE_URL. It plays a model that makes one
 * function call: on the first main request (a streamed generateContent that offers the function) it
 * calls it with the given arguments; once a request carries the function's response, it records
 * that response (what the model would read) and ends the turn with text. Every other request
 * (routing, titles, next-speaker checks: plain generateContent) gets a short text, and token counts
 * get a number, so that nothing in the client waits on the fake.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGeminiOptions {
  /** The function the model calls, as the client declares it (Gemini CLI names an MCP tool `mcp_<server>_<tool>`). */
  functionName: string;
  /** The call's arguments. */
  args: unknown;
  /** The text that ends the turn once the function's response has arrived. */
  finalText?: string;
}

export interface RecordedRequest {
  /** Path and query as received, e.g. `/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`. */
  url: string;
  /** The model named in the path. */
  model: string;
  /** What was asked of the model: `streamGenerateContent`, `generateContent`, `countTokens`... */
  rpc: string;
  /** The names of the functions the request offers the model. */
  functions: string[];
  /** Whether this request was the main conversation (it offered `functionName`). */
  main: boolean;
  body: unknown;
}

export interface RecordedFunctionResponse {
  name: string;
  /** The function response's `response` object, as the model reads it. */
  response: unknown;
  /** Index of the request (in `requests`) that carried it. */
  requestIndex: number;
}

/** What the model says to every request that is not the main conversation. */
export const IDLE_TEXT = 'The fake model has nothing to call here.';

type Part = { text: string } | { functionCall: { name: string; args: unknown } };

const PATH = /^\/v1beta\/models\/([^/:]+):([A-Za-z]+)$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function functionsOf(body: unknown): string[] {
  if (!isRecord(body) || !Array.isArray(body.tools)) return [];
  return body.tools.flatMap((tool) =>
    isRecord(tool) && Array.isArray(tool.functionDeclarations)
      ? tool.functionDeclarations.flatMap((declaration) => (isRecord(declaration) && typeof declaration.name === 'string' ? [declaration.name] : []))
      : [],
  );
}

/** The response to `name` among the parts of the request's last content, if it carries one. */
function functionResponseIn(body: unknown, name: string): Record<string, unknown> | undefined {
  if (!isRecord(body) || !Array.isArray(body.contents)) return undefined;
  const last: unknown = body.contents.at(-1);
  if (!isRecord(last) || !Array.isArray(last.parts)) return undefined;
  for (const part of last.parts) {
    if (isRecord(part) && isRecord(part.functionResponse) && part.functionResponse.name === name) return part.functionResponse;
  }
  return undefined;
}

export class FakeGemini {
  readonly requests: RecordedRequest[] = [];
  readonly functionResponses: RecordedFunctionResponse[] = [];
  private readonly server: Server;
  private readonly finalText: string;
  private called = false;
  private readonly listeners = new Set<() => void>();
  private port = 0;

  constructor(private readonly options: FakeGeminiOptions) {
    this.finalText = options.finalText ?? 'Thanks, going on with that.';
    this.server = createServer((req, res) => this.handle(req, res));
  }

  /** What GOOGLE_GEMINI_BASE_URL must say. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((listening, fail) => {
      this.server.once('error', fail);
      this.server.listen(0, '127.0.0.1', () => listening());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((closed) => this.server.close(() => closed()));
  }

  /** Resolves with the first request for which `match` holds, among those received or still to come. */
  waitForRequest(match: (request: RecordedRequest) => boolean, timeoutMs: number, what: string): Promise<RecordedRequest> {
    return this.waitFor(() => this.requests.find(match), timeoutMs, what);
  }

  /** Resolves with the response to the model's call once a request carries it. */
  waitForFunctionResponse(timeoutMs: number): Promise<RecordedFunctionResponse> {
    return this.waitFor(() => this.functionResponses[0], timeoutMs, `the response to ${this.options.functionName}`);
  }

  private waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((found, fail) => {
      const check = () => {
        const value = probe();
        if (value === undefined) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        found(value);
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        fail(new Error(`the fake Gemini API saw no ${what} within ${timeoutMs} ms (requests: ${this.requests.map((r) => `${r.model}:${r.rpc}`).join(', ') || 'none'})`));
      }, timeoutMs);
      this.listeners.add(check);
      check();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const path = PATH.exec(new URL(req.url ?? '/', 'http://fake').pathname);
      if (req.method !== 'POST' || !path) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 404, message: 'not found', status: 'NOT_FOUND' } }));
        return;
      }
      const [, model = '', rpc = ''] = path;
      const functions = functionsOf(body);
      const main = rpc === 'streamGenerateContent' && functions.includes(this.options.functionName);
      const requestIndex = this.requests.length;
      this.requests.push({ url: req.url ?? '', model, rpc, functions, main, body });
      if (rpc === 'countTokens') {
        this.sendJson(res, { totalTokens: 12 });
      } else {
        const parts = main ? this.mainReply(body, requestIndex) : [{ text: IDLE_TEXT }];
        const reply = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 8, totalTokenCount: 20 }, modelVersion: model };
        if (rpc === 'streamGenerateContent') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.end(`data: ${JSON.stringify(reply)}\r\n\r\n`);
        } else {
          this.sendJson(res, reply);
        }
      }
      for (const listener of [...this.listeners]) listener();
    });
  }

  /** The call once, then (its response recorded) the turn's end. */
  private mainReply(body: unknown, requestIndex: number): Part[] {
    const { functionName: name, args } = this.options;
    const response = functionResponseIn(body, name);
    if (response) {
      this.functionResponses.push({ name, response: response.response, requestIndex });
      return [{ text: this.finalText }];
    }
    if (this.called) return [{ text: this.finalText }];
    this.called = true;
    return [{ functionCall: { name, args } }];
  }

  private sendJson(res: ServerResponse, value: unknown): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }
}

/** Creates and starts a fake Gemini API. */
export async function startFakeGemini(options: FakeGeminiOptions): Promise<FakeGemini> {
  const fake = new FakeGemini(options);
  await fake.start();
  return fake;
}
