// A pairing code made for a person who is then removed pairs nothing, end to end: the real daemon
// (with a bot pointed at the stand-in Bot API), the CLI, and the page in headless Chromium. Links and
// Telegram codes are made for bob (and one for alice); `askbridge people remove bob` withdraws bob's
// at once: his link opened in a browser says it pairs a device for someone askbridge no longer knows
// and makes no device, and his Telegram code is answered the same and pairs no chat. Withdrawn means
// withdrawn: bob added again does not bring his old codes back. alice's link still pairs.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevicesReply, PairingReply } from '../../src/protocol.js';
import { chromiumAvailability, launchBrowser, openPairedPage } from '../stack/browser.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { runCli } from '../stack/processes.js';
import { startTelegramApi, type TelegramApi } from '../stack/telegram-api.js';

const TOKEN = `123456789:${'A'.repeat(20)}bcdefghijklmnop_-`;
const REFUSED = 'this link pairs a device for "bob", whom askbridge no longer knows (removed since it was made): nothing was paired';
const chromium = chromiumAvailability();

let tg: TelegramApi;
let daemon: Daemon;
let browser: Browser;

/** A one-time link that pairs a browser as `person`'s. */
async function linkFor(person: string): Promise<string> {
  const made = await daemon.api<PairingReply>('POST', '/api/pairings', { person });
  expect(made.status).toBe(200);
  return made.body.links.local;
}

/** A one-time Telegram code that pairs a chat as `person`'s. */
async function telegramCodeFor(person: string): Promise<string> {
  const made = await daemon.api<{ code: string }>('POST', '/api/pairings/telegram', { person });
  expect(made.status).toBe(200);
  return made.body.code;
}

/** Trades a link's code as a page does (its Origin, no cookie yet): the daemon's reply. */
async function pairWith(link: string): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  const origin = daemon.url.replace(/\/$/, '');
  const reply = await fetch(`${origin}/api/pair`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ code: new URL(link).hash.slice('#pair='.length) }) });
  return { status: reply.status, body: (await reply.json()) as { error?: { code: string; message: string } } };
}

const devices = async () => (await daemon.api<DevicesReply>('GET', '/api/devices')).body.devices;

beforeAll(async () => {
  const home = await mkdtemp(join(tmpdir(), 'askbridge-e2e-'));
  const addedAt = Date.now();
  await writeFile(join(home, 'people.json'), `${JSON.stringify(['alice', 'bob'].map((name) => ({ name, groups: [], addedAt })))}\n`);
  tg = await startTelegramApi([TOKEN]);
  daemon = await startDaemon({ home, config: { telegram: { token: TOKEN, apiRoot: tg.root } } });
  await tg.waitForCall((call) => call.method === 'getUpdates', 'the bot to poll');
  if (chromium.available) browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await tg?.close();
});

describe.skipIf(!chromium.available)('a pairing code made for a person who is then removed', () => {
  it('pairs no browser and no Telegram chat, and says why; bob added again does not bring his codes back; alice still pairs', async () => {
    const [opened, traded, again, aliceLink] = [await linkFor('bob'), await linkFor('bob'), await linkFor('bob'), await linkFor('alice')];
    const [chatCode, chatCodeAgain] = [await telegramCodeFor('bob'), await telegramCodeFor('bob')];
    const before = (await devices()).length;

    const removed = await runCli(['people', 'remove', 'bob'], daemon.env);
    expect(removed.code, removed.stderr).toBe(0);

    // Opened in a browser: not paired, and the page says why.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(opened);
    await page.locator('#unpaired-detail').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await page.locator('#unpaired-detail').textContent()).toBe(REFUSED);
    expect(await page.locator('#conn-text').textContent()).toBe('Not paired');
    await context.close();
    expect(await pairWith(traded)).toEqual({ status: 403, body: { error: { code: 'unknown_person', message: REFUSED } } });

    // In Telegram: answered why, and no chat paired.
    const chat = tg.privateChat(4002, 'bob');
    tg.sendText(chat, `/start ${chatCode}`);
    await tg.waitForMessage((message) => message.chat.id === chat.id && message.text === 'Not paired: this code was for bob, whom askbridge no longer knows (removed since it was made).', "bob's chat to be refused");
    expect((await devices()).length).toBe(before);

    // bob added again: the codes made for the bob who was removed still pair nothing.
    expect((await runCli(['people', 'add', 'bob'], daemon.env)).code).toBe(0);
    expect(await pairWith(again)).toMatchObject({ status: 403, body: { error: { code: 'unknown_person' } } });
    tg.sendText(chat, `/start ${chatCodeAgain}`);
    await tg.waitForMessage((message) => message.chat.id === chat.id && message.text.startsWith('Not paired: this code was for bob') && tg.messages.filter((each) => each.chat.id === chat.id).length === 2, "bob's chat to be refused again");
    expect((await devices()).length).toBe(before);
    expect((await daemon.api<{ people: Array<{ name: string; devices: unknown[] }> }>('GET', '/api/people')).body.people.find((person) => person.name === 'bob')?.devices).toEqual([]);

    // alice's link, made before, pairs as hers.
    const alice = await openPairedPage(browser, daemon, { pairingUrl: aliceLink });
    expect((await devices()).map((device) => device.person)).toContain('alice');
    await alice.context.close();
  });
});
