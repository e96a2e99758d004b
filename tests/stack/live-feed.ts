// The daemon's live feed (its WebSocket) as tests hear it: every message kept in order, and a wait
// for the messages a test expects, woken by each message rather than by a timer. For a page's socket
// in memory (injectWS) and a local program's over a real connection alike.
import WebSocket from 'ws';
import type { ServerMessage } from '../../src/protocol.js';

export type RecordedMessages = {
  /** Every message received so far, in order. */
  messages: ServerMessage[];
  /** Resolves once `done` holds for the messages received so far; rejects if the socket closes first. */
  waitFor(done: (messages: ServerMessage[]) => boolean): Promise<void>;
};

/** Keeps every message `socket` receives from now on: call it before the first one can arrive. */
export function recordMessages(socket: WebSocket): RecordedMessages {
  const messages: ServerMessage[] = [];
  const waiters = new Set<() => void>();
  let closed = false;
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as ServerMessage);
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  return {
    messages,
    waitFor(done) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (done(messages)) {
            waiters.delete(check);
            resolve();
          } else if (closed) {
            waiters.delete(check);
            reject(new Error(`the socket closed before the messages a test waited for arrived (${messages.length} received)`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** The feed as a local program opens it (the CLI's `watch` and `listen`): the bearer token, no page key. */
export async function listenAsProgram(daemon: { port: number; token: string }): Promise<{ socket: WebSocket } & RecordedMessages> {
  const socket = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, { headers: { authorization: `Bearer ${daemon.token}` } });
  const recorded = recordMessages(socket);
  await new Promise((open, fail) => socket.once('open', open).once('error', fail));
  return { socket, ...recorded };
}
