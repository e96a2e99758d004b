/**
 * A recording server for Claude Code's `http` hooks: one URL per event, every
 * request kept with its arrival time, body, what was answered and when its
 * socket closed. A decider chooses per request what to answer: at once, after
 * a delay, or never (held open until the test answers it or the client gives up).
 *
 * Used by the permission probes (permissions.probe.ts); a conformance test can
 * use it the same way.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Every event the probes register an http hook for. */
export const ALL_HOOK_EVENTS = [
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionDenied',
  'Stop',
  'UserPromptSubmit',
  'Notification',
  'SessionStart',
  'SessionEnd',
] as const;

/** Events whose hook entries take a tool-name matcher. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied']);

export interface HookCall {
  /** 0, 1, 2... in arrival order. */
  seq: number;
  /** From the URL path (`/hook/<event>`). */
  event: string;
  body: Record<string, unknown>;
  /** Milliseconds since the recorder's t0. */
  at: number;
  /** When an answer was written (ms since t0). */
  answeredAt?: number;
  answer?: HookAnswer;
  /** When the socket closed without an answer written by us (ms since t0): the client gave up. */
  abortedAt?: number;
}

/** What to send back: a JSON body (200), or another status with an empty body, or a dropped connection. */
export interface HookAnswer {
  status?: number;
  json?: unknown;
  /** Close the connection without writing a response. */
  destroy?: boolean;
  /** Answer this many ms after arrival. */
  delayMs?: number;
}

/** undefined: hold the request open (until answer() or the client closes it). */
export type HookDecider = (call: HookCall) => HookAnswer | undefined;

interface Pending {
  call: HookCall;
  res: ServerResponse;
  timer?: ReturnType<typeof setTimeout>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export class HookRecorder {
  readonly calls: HookCall[] = [];
  decider: HookDecider;
  /** Called on every arrival, answer and abort (for a timeline). */
  onChange: ((what: 'arrive' | 'answer' | 'abort', call: HookCall) => void) | undefined;
  private server: Server | undefined;
  private baseUrl: string | undefined;
  private pending = new Map<number, Pending>();
  private readonly t0: number;

  constructor(decider: HookDecider = () => ({ json: {} }), t0 = Date.now()) {
    this.decider = decider;
    this.t0 = t0;
  }

  now(): number {
    return Date.now() - this.t0;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  get url(): string {
    if (!this.baseUrl) throw new Error('HookRecorder: start() first');
    return this.baseUrl;
  }

  /**
   * `hooks` settings with one http entry per event (tool events with matcher "*").
   * `timeouts` overrides the entry timeout (seconds) per event; default 600.
   */
  settings(events: readonly string[] = ALL_HOOK_EVENTS, timeouts: Record<string, number> = {}): Record<string, unknown> {
    const hooks: Record<string, unknown> = {};
    for (const event of events) {
      const entry = { type: 'http', url: `${this.url}/hook/${event}`, timeout: timeouts[event] ?? 600 };
      hooks[event] = [TOOL_EVENTS.has(event) ? { matcher: '*', hooks: [entry] } : { hooks: [entry] }];
    }
    return { hooks };
  }

  /** Calls of one event. */
  of(event: string): HookCall[] {
    return this.calls.filter((c) => c.event === event);
  }

  /** True while the request is neither answered nor aborted. */
  isOpen(call: HookCall): boolean {
    return this.pending.has(call.seq);
  }

  /** Answers a held request now; false when it is no longer open. */
  answer(call: HookCall, answer: HookAnswer): boolean {
    const pending = this.pending.get(call.seq);
    if (!pending) return false;
    if (pending.timer) clearTimeout(pending.timer);
    this.write(pending, answer);
    return true;
  }

  /** Resolves with the first call of `event` (after `afterSeq`) that matches; rejects after timeoutMs. */
  async waitFor(event: string, timeoutMs: number, match: (call: HookCall) => boolean = () => true, afterSeq = -1): Promise<HookCall> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.calls.find((c) => c.seq > afterSeq && c.event === event && match(c));
      if (hit) return hit;
      if (Date.now() >= deadline) throw new Error(`HookRecorder: no ${event} within ${timeoutMs} ms; got ${this.calls.map((c) => c.event).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = this.now();
    const raw = await readBody(req);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      body = { unparsed: raw };
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const event = path.startsWith('/hook/') ? path.slice('/hook/'.length) : String(body.hook_event_name ?? path);
    const call: HookCall = { seq: this.calls.length, event, body, at };
    this.calls.push(call);
    const pending: Pending = { call, res };
    this.pending.set(call.seq, pending);
    res.on('close', () => {
      if (this.pending.has(call.seq)) {
        this.pending.delete(call.seq);
        if (pending.timer) clearTimeout(pending.timer);
        call.abortedAt = this.now();
        this.onChange?.('abort', call);
      }
    });
    this.onChange?.('arrive', call);
    const answer = this.decider(call);
    if (!answer) return;
    if (answer.delayMs) pending.timer = setTimeout(() => this.write(pending, answer), answer.delayMs);
    else this.write(pending, answer);
  }

  private write(pending: Pending, answer: HookAnswer): void {
    if (!this.pending.has(pending.call.seq)) return;
    this.pending.delete(pending.call.seq);
    pending.call.answeredAt = this.now();
    pending.call.answer = answer;
    if (answer.destroy) {
      pending.res.socket?.destroy();
      this.onChange?.('answer', pending.call);
      return;
    }
    const status = answer.status ?? 200;
    if (answer.json === undefined) {
      pending.res.writeHead(status, { 'content-length': 0 });
      pending.res.end();
    } else {
      const text = JSON.stringify(answer.json);
      pending.res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      pending.res.end(text);
    }
    this.onChange?.('answer', pending.call);
  }
}
