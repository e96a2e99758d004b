// What whoever holds the hook key can reach, with the real daemon, command hook and CLI: a question
// belongs to the hook that asked it. Claude Code's http hook (or anyone with its key) naming another
// session's session_id and tool_use_id (both are on every page and in transcripts) is refused (409)
// and never learns the answer, while the question waits and after it was answered. Only the moment
// the question starts is different: the entries of one event start together (askbridge wired twice),
// and a second one waits with the first (wired-twice.e2e). A request with the token (the command
// hook) may wait with it at any time: the token reads every ask anyway. The machine a remote hook
// names arrives as UTF-8 bytes and is shown as written; bytes that are not UTF-8 are refused.
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JOIN_WINDOW_MS } from '../../src/daemon/asks/store.js';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH, MACHINE_HEADER } from '../../src/http-hook.js';
import type { AskView } from '../../src/protocol.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { killStrayProcesses, runCli, runHook } from '../stack/processes.js';

let daemon: Daemon;
let key: string;
beforeAll(async () => {
  daemon = await startDaemon({ config: { waitSeconds: 600 } });
  key = daemon.hookKey();
}, 30_000);
afterEach(async () => {
  await killStrayProcesses();
});
afterAll(async () => {
  await daemon?.stop();
});

/**
 * Claude Code's http hook POST with the machine header as exactly these bytes, over a socket of its
 * own (a Node client would re-encode a header string): the status and body once the daemon replies.
 */
function postWithMachineBytes(payload: unknown, machine: Buffer): Promise<{ statusCode: number; body: string }> {
  const body = Buffer.from(JSON.stringify(payload));
  const head = (text: string) => Buffer.from(text, 'latin1');
  const request = Buffer.concat([
    head(`POST ${HTTP_HOOK_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${daemon.port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`),
    head(`${HOOK_KEY_HEADER}: ${key}\r\nConnection: close\r\n${MACHINE_HEADER}: `),
    machine,
    head('\r\n\r\n'),
    body,
  ]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(daemon.port, '127.0.0.1', () => socket.write(request)); // not end(): a hook that half-closes has gone away
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ statusCode: Number(text.slice(9, 12)), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

/** Once the question is older than the moment the entries of one event take to start: a request naming it now is not a second entry. */
async function pastItsStart(question: AskView): Promise<void> {
  await waitUntil(() => Date.now() > question.createdAt + JOIN_WINDOW_MS || undefined, JOIN_WINDOW_MS + 5_000, 'the question to be past its start');
}

const ALREADY_ASKED = {
  error: { code: 'already_asked', message: 'this session and tool call were asked already: only the command hook that asked it can wait for it again, and nobody else learns its answer' },
};

describe("another session's question, named by its session_id and tool_use_id", () => {
  it("is refused to the hook key while it waits and after it was answered: the answer goes to its own hook only", async () => {
    const payload = freshPayload('01-single-select', 'victim-command');
    const ownHook = runHook(payload, daemon.env);
    const question = await daemon.waitForAsk(payload.tool_use_id);
    await pastItsStart(question);

    // Refused at once (no waiting on it), from this machine or naming another.
    for (const headers of [{}, { [MACHINE_HEADER]: 'laptop' }] as Array<Record<string, string>>) {
      const stolen = await postAsHttpHook({ port: daemon.port, key, payload, headers }).response;
      expect(stolen.statusCode).toBe(409);
      expect(JSON.parse(stolen.body)).toEqual(ALREADY_ASKED);
    }
    expect((await daemon.ask(question.id)).status).toBe('pending');

    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    const own = await ownHook.result;
    expect(JSON.parse(own.stdout).hookSpecificOutput.updatedInput.answers).toEqual({ 'Which database should the new orders service use?': 'SQLite' });

    // Answered: the answer is kept a while, so that a late answer learns who won; the hook key never gets it.
    const late = await postAsHttpHook({ port: daemon.port, key, payload }).response;
    expect(late.statusCode).toBe(409);
    expect(late.body).not.toContain('SQLite');
    expect(JSON.parse(late.body)).toEqual(ALREADY_ASKED);
  });

  it("is refused when Claude Code's http hook asked it too; the command hook, which holds the token, may wait with it", async () => {
    const payload = freshPayload('01-single-select', 'victim-http');
    const ownHook = postAsHttpHook({ port: daemon.port, key, payload });
    const question = await daemon.waitForAsk(payload.tool_use_id);
    await pastItsStart(question);
    expect((await postAsHttpHook({ port: daemon.port, key, payload }).response).statusCode).toBe(409);
    // The token reads every answer anyway: the command hook waits with it, and gets the same answer.
    const command = runHook(payload, daemon.env);
    await waitUntil(() => daemon.logs().some((entry) => entry.askId === question.id && typeof entry.msg === 'string' && entry.msg.startsWith('the same wait')) || undefined, 10_000, 'the command hook waiting with it');
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    const own = await ownHook.response;
    expect(own.statusCode).toBe(200);
    expect(JSON.parse((await command.result).stdout)).toEqual(JSON.parse(own.body));
    expect((await postAsHttpHook({ port: daemon.port, key, payload }).response).statusCode).toBe(409);
  });
});

describe('the machine a remote hook names', () => {
  it("arrives as Claude Code sends it, UTF-8 bytes, and is shown as written", async () => {
    const payload = freshPayload('01-single-select', 'machine-utf8');
    const name = "Zoë's laptop — 東京";
    const hook = postWithMachineBytes(payload, Buffer.from(name, 'utf8'));
    const question = await daemon.waitForAsk(payload.tool_use_id);
    expect(question.machine).toBe(name);
    expect((await runCli(['answer', question.id, '--pick', '1=SQLite'], daemon.env)).code).toBe(0);
    expect((await hook).statusCode).toBe(200);
  });

  it('is refused (400) when its bytes are not UTF-8, and no question is opened', async () => {
    const payload = freshPayload('01-single-select', 'machine-latin1');
    // "Zoë" as Latin-1 wrote it: 0xEB alone is no UTF-8.
    const refused = await postWithMachineBytes(payload, Buffer.from([0x5a, 0x6f, 0xeb]));
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body).error.code).toBe('bad_machine');
    // The fix it names is a command install takes (there is no --remote).
    expect(JSON.parse(refused.body).error.message).toContain('askbridge install --url URL --key KEY --machine NAME');
    expect((await daemon.pending()).some((ask) => ask.toolUseId === payload.tool_use_id)).toBe(false);
  });
});
