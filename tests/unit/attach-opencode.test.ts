// `askbridge attach opencode` on its own: which servers it follows (plain http only on this machine,
// the password only from the environment), and what it does with events it cannot relay: said in
// one line with opencode's text marked, and left to opencode's own prompt. A fake opencode serves
// the event stream; no daemon runs, so a request that would be relayed meets "not running".
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachOpencode, opencodeServer } from '../../src/cli/attach-opencode.js';
import { CliError } from '../../src/cli/command.js';
import { waitUntil } from '../stack/clock.js';

describe("the opencode server's address", () => {
  it('takes plain http only to this machine, and https anywhere', () => {
    expect(opencodeServer('http://127.0.0.1:4096', {}).url.href).toBe('http://127.0.0.1:4096/');
    expect(opencodeServer('http://localhost:4096', {}).url.host).toBe('localhost:4096');
    expect(opencodeServer('http://[::1]:4096', {}).url.host).toBe('[::1]:4096');
    expect(opencodeServer('https://opencode.example.com', {}).url.host).toBe('opencode.example.com');
    for (const address of ['http://192.168.1.5:4096', 'http://localhost.example.com:4096', 'http://0.0.0.0:4096', 'ftp://127.0.0.1', 'not a url']) {
      expect(() => opencodeServer(address, {}), address).toThrow(CliError);
    }
  });

  it('takes the password from the environment only, never from the URL', () => {
    expect(() => opencodeServer('http://opencode:secret@127.0.0.1:4096', {})).toThrow(/no credentials in the URL/);
    expect(opencodeServer('http://127.0.0.1:4096', {}).authorization).toBeUndefined();
    expect(opencodeServer('http://127.0.0.1:4096', { OPENCODE_SERVER_PASSWORD: 'pw' }).authorization).toBe(`Basic ${Buffer.from('opencode:pw').toString('base64')}`);
    expect(opencodeServer('http://127.0.0.1:4096', { OPENCODE_SERVER_PASSWORD: 'pw', OPENCODE_SERVER_USERNAME: 'me' }).authorization).toBe(`Basic ${Buffer.from('me:pw').toString('base64')}`);
  });
});

describe('events it cannot relay', () => {
  let server: Server | undefined;
  let home: string | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    if (home) await rm(home, { recursive: true, force: true });
    server = undefined;
    home = undefined;
  });

  it('says each in one line with opencode\'s text marked, and leaves it to opencode', async () => {
    let events: ServerResponse | undefined;
    const lists: string[] = [];
    server = createServer((request, response) => {
      if (request.url?.startsWith('/global/event')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: {"payload":{"type":"server.connected","properties":{}}}\n\n');
        events = response;
        return;
      }
      lists.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(request.url?.startsWith('/session/') ? '{"directory":"/p","title":"t"}' : '[]');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    home = await mkdtemp(join(tmpdir(), 'askbridge-attach-'));
    const printed: string[] = [];
    const warned: string[] = [];
    const stop = new AbortController();
    const done = attachOpencode({ server: opencodeServer(`http://127.0.0.1:${port}`, {}), env: { ASKBRIDGE_HOME: home }, print: (line) => printed.push(line), warn: (line) => warned.push(line), signal: stop.signal });
    // Connected, it lists what already waits: nothing here.
    await waitUntil(() => (events && lists.length === 2 ? true : undefined), 5000, 'the event stream and the lists');
    expect(lists).toEqual(['/question', '/permission']);

    events!.write('data: {not json\n\n');
    events!.write(`data: ${JSON.stringify({ directory: '/p', payload: { type: 'question.asked', properties: { id: 'que_\u001b[2Jx', sessionID: 'ses_1', questions: 'Which?' } } })}\n\n`);
    events!.write(`data: ${JSON.stringify({ directory: '/p', payload: { type: 'permission.asked', properties: { id: 'per_1', sessionID: 'ses_1', permission: 'bash', patterns: ['ls'], metadata: {}, always: [] } } })}\n\n`);
    await waitUntil(() => (printed.some((line) => line.includes('per_1: askbridge is not running')) ? true : undefined), 5000, `the permission's line (${printed.join('')})`);
    await waitUntil(() => (printed.some((line) => line.includes('not relayed')) ? true : undefined), 5000, `the question's line (${printed.join('')})`);

    expect(warned.join('')).toContain('opencode sent an event askbridge does not read: skipped');
    const question = printed.find((line) => line.includes('not relayed'))!;
    expect(question).toContain('question que_[U+001B][2Jx: not relayed');
    expect(printed.join('')).not.toContain('\u001b');
    stop.abort();
    await done;
  });
});
