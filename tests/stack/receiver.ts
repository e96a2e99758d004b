// A local HTTP endpoint that records every request it gets: a webhook receiver, or a stand-in for a
// browser's push service. Each path answers as the test says: a status, or never (it hangs).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { now, waitUntil } from './clock.js';

/** A request as it arrived; `at`: when its body had (now() clock). */
export type Received = { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer; at: number };
/** How a path answers its `count`th request (1 for the first): an HTTP status, or 'hang' for never. */
export type Answer = (request: Received, count: number) => number | 'hang';

export type Receiver = {
  /** http://127.0.0.1:PORT, without a trailing slash. */
  origin: string;
  received: Received[];
  /** How requests to `path` are answered from now on (201 for a path nobody set). */
  answer(path: string, how: Answer): void;
  /** Waits until `count` requests to `path` have arrived; returns them. */
  waitFor(path: string, count?: number, timeoutMs?: number): Promise<Received[]>;
  to(path: string): Received[];
  /** How many requests to `path` are still waiting for an answer ('hang'), their connection still open. */
  hanging(path: string): number;
  /** Ends every hung request, then stops. */
  close(): Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers = new Map<string, Answer>();
  /** Every request left hanging and still open, with its path. */
  const hung = new Map<ServerResponse, string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: Received = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks), at: now() };
      received.push(entry);
      const count = received.filter((other) => other.path === entry.path).length;
      const status = (answers.get(entry.path) ?? (() => 201))(entry, count);
      if (status === 'hang') {
        hung.set(response, entry.path);
        response.once('close', () => hung.delete(response));
      } else response.writeHead(status).end();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const to = (path: string) => received.filter((entry) => entry.path === path);
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer: (path, how) => void answers.set(path, how),
    to,
    hanging: (path) => [...hung.values()].filter((hungPath) => hungPath === path).length,
    waitFor: (path, count = 1, timeoutMs = 10_000) => waitUntil(() => (to(path).length >= count ? to(path) : undefined), timeoutMs, `${count} request(s) to ${path}`),
    async close() {
      for (const response of hung.keys()) response.destroy();
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    },
  };
}
