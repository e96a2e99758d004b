// The people routes in memory (inject): the local token only; a removal the people file cannot keep
// changes nothing (503, the person and their page stay); a page of a person removed is no longer
// paired, and names its person and device in GET /api/session.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPeople, PeopleSchema } from '../../src/daemon/people.js';
import { fileDocuments } from '../../src/daemon/documents.js';
import { buildTestApp, HOST, LOCAL, ORIGIN, type TestApp } from '../stack/app.js';

let test: TestApp | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await test?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A page paired as `person`'s device, as `askbridge pair --person` makes one. */
async function pairFor(app: TestApp['app'], person: string) {
  const code = app.askbridge.auth.createPairingCode(person);
  const paired = await app.inject({ method: 'POST', url: '/api/pair', headers: { host: HOST, origin: ORIGIN, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0' }, payload: { code } });
  expect(paired.statusCode).toBe(200);
  return { host: HOST, origin: ORIGIN, cookie: String(paired.headers['set-cookie']).split(';')[0]!, 'x-askbridge-key': paired.json<{ key: string }>().key };
}

describe('the people routes', () => {
  it('take the local token only', async () => {
    test = await buildTestApp({ people: createPeople() });
    const page = await test.pairPage();
    for (const [method, url] of [['GET', '/api/people'], ['POST', '/api/people'], ['DELETE', '/api/people/alice']] as const) {
      const response = await test.app.inject({ method, url, headers: page.headers, ...(method === 'POST' ? { payload: { name: 'mallory' } } : {}) });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it("list a person's devices as the device list shows them", async () => {
    test = await buildTestApp({ people: createPeople() });
    expect((await test.app.inject({ method: 'POST', url: '/api/people', headers: LOCAL, payload: { name: 'alice' } })).statusCode).toBe(200);
    await pairFor(test.app, 'alice');
    const [device] = (await test.app.inject({ method: 'GET', url: '/api/devices', headers: LOCAL })).json<{ devices: Array<Record<string, unknown>> }>().devices;
    const { current, ...listed } = device!;
    expect(current).toBe(false);
    expect(listed).toMatchObject({ kind: 'browser', name: 'Firefox on Linux', person: 'alice', pairedAt: expect.any(Number) });
    expect((await test.app.inject({ method: 'GET', url: '/api/people', headers: LOCAL })).json()).toEqual({ people: [expect.objectContaining({ name: 'alice', devices: [listed] })] });
  });

  it('refuse a removal the people file cannot keep, and change nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'askbridge-people-'));
    dirs.push(dir);
    const file = join(dir, 'people.json');
    test = await buildTestApp({ people: createPeople({ document: fileDocuments.open('people', file, PeopleSchema) }) });
    expect((await test.app.inject({ method: 'POST', url: '/api/people', headers: LOCAL, payload: { name: 'alice', groups: ['dev'] } })).statusCode).toBe(200);
    const alice = await pairFor(test.app, 'alice');
    // The file can no longer be replaced: a folder stands where it was.
    rmSync(file);
    mkdirSync(file);
    const removed = await test.app.inject({ method: 'DELETE', url: '/api/people/alice', headers: LOCAL });
    expect(removed.statusCode).toBe(503);
    expect(removed.json()).toMatchObject({ error: { code: 'people_not_saved', message: expect.stringContaining('nothing changed') } });
    expect((await test.app.inject({ method: 'GET', url: '/api/people', headers: LOCAL })).json()).toMatchObject({ people: [{ name: 'alice', groups: ['dev'], devices: [{ kind: 'browser', name: 'Firefox on Linux' }] }] });
    expect((await test.app.inject({ method: 'GET', url: '/api/session', headers: alice })).json()).toEqual({ paired: true, person: 'alice', device: 'Firefox on Linux' });
  });

  it("unpair a removed person's page, and refuse one whose person askbridge no longer knows", async () => {
    const people = createPeople();
    test = await buildTestApp({ people });
    people.add('alice');
    people.add('bob');
    const alice = await pairFor(test.app, 'alice');
    const bob = await pairFor(test.app, 'bob');
    const removed = await test.app.inject({ method: 'DELETE', url: '/api/people/alice', headers: LOCAL });
    expect(removed.json()).toMatchObject({ person: { name: 'alice' }, unpaired: [{ kind: 'browser', name: 'Firefox on Linux' }] });
    expect((await test.app.inject({ method: 'GET', url: '/api/session', headers: alice })).statusCode).toBe(401);
    // Bob's device is still on the list, but bob is gone from the people: his page is not paired either.
    people.remove('bob');
    expect((await test.app.inject({ method: 'GET', url: '/api/session', headers: bob })).statusCode).toBe(401);
  });
});
