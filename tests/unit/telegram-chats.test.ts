// The paired Telegram chats: one-time codes that expire, wrong codes counted per chat, and a list on
// disk (0600) that survives a restart and that a revoke leaves without the chat. Each pairing keeps
// the person who sent the code; a group paired before that was kept is paired no more.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChats, GUESSES_PER_CHAT, StoredChatsSchema } from '../../src/daemon/telegram/chats.js';
import { fileDocuments } from '../../src/daemon/documents.js';

/** The chats kept in this file, as the daemon keeps them without a shared store. */
const chatsIn = (file: string, unreadable?: (reason: string) => void) => fileDocuments.open('telegram-chats', file, StoredChatsSchema, unreadable);

const dirs: string[] = [];
function chatsFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'askbridge-telegram-'));
  dirs.push(dir);
  return join(dir, 'telegram-chats.json');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('telegram chats', () => {
  it("pairs a chat as a person's, and no longer heeds it once askbridge does not know that person", () => {
    const known = new Set(['carol']);
    const chats = createChats({ document: chatsIn(chatsFile()), isKnownPerson: (person) => known.has(person) });
    const paired = chats.pair(chats.createCode('carol').code, { chatId: 42, userId: 42, name: 'Telegram: @carol' });
    expect(paired).toMatchObject({ kind: 'paired', chat: { person: 'carol' } });
    expect(chats.isPaired(42)).toBe(true);
    known.delete('carol');
    expect(chats.isPaired(42)).toBe(false);
    expect(chats.personOf(42)).toBeUndefined();
    expect(chats.list()).toEqual([]);
  });

  it('pairs a chat once per code, keeps it on disk 0600 without the code, and forgets it when revoked', () => {
    const file = chatsFile();
    const chats = createChats({ document: chatsIn(file) });
    const { code } = chats.createCode();
    const paired = chats.pair(code, { chatId: 42, userId: 42, name: 'Telegram: @alice' });
    expect(paired.kind).toBe('paired');
    expect(chats.pair(code, { chatId: 43, userId: 43, name: 'Telegram: @bob' })).toEqual({ kind: 'bad_code' });
    expect(chats.isPaired(42)).toBe(true);
    expect(chats.isPaired(43)).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(code);

    const again = createChats({ document: chatsIn(file) });
    expect(again.list().map((chat) => [chat.chatId, chat.name])).toEqual([[42, 'Telegram: @alice']]);
    const id = again.list()[0]!.id;
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(again.revoke(id).kind).toBe('revoked');
    expect(again.revoke(id)).toEqual({ kind: 'not_found' });
    expect(createChats({ document: chatsIn(file) }).isPaired(42)).toBe(false);
  });

  it('refuses a code after ten minutes', () => {
    let now = 1_000_000;
    const chats = createChats({ document: chatsIn(chatsFile()), now: () => now });
    const { code } = chats.createCode();
    now += 10 * 60_000 + 1;
    expect(chats.pair(code, { chatId: 42, userId: 42, name: 'x' })).toEqual({ kind: 'bad_code' });
  });

  it('stops answering a chat that guesses too often, even with a live code', () => {
    const chats = createChats({ document: chatsIn(chatsFile()) });
    for (let guess = 0; guess < GUESSES_PER_CHAT; guess++) expect(chats.pair(`guess${guess}`, { chatId: 7, userId: 7, name: 'x' })).toEqual({ kind: 'bad_code' });
    expect(chats.pair('one-more', { chatId: 7, userId: 7, name: 'x' })).toEqual({ kind: 'too_many_guesses' });
    const { code } = chats.createCode();
    expect(chats.pair(code, { chatId: 7, userId: 7, name: 'x' })).toEqual({ kind: 'too_many_guesses' });
    // Another chat is not held back by it.
    expect(chats.pair(code, { chatId: 8, userId: 8, name: 'y' }).kind).toBe('paired');
  });

  it('keeps who paired a group; a group paired before that was kept is paired no more, and said so; a private chat is its own person', () => {
    const file = chatsFile();
    const chats = createChats({ document: chatsIn(file) });
    const { code } = chats.createCode();
    expect(chats.pair(code, { chatId: -100_200, userId: 42, name: 'Telegram: Team (@alice)' }).kind).toBe('paired');
    expect(chats.personOf(-100_200)).toBe(42);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject([{ chatId: -100_200, userId: 42 }]);

    writeFileSync(file, JSON.stringify([
      { id: 'aaaaaaaaaaaa', chatId: 42, name: 'Telegram: @alice', pairedAt: 1, lastSeen: 1 },
      { id: 'bbbbbbbbbbbb', chatId: -300, name: 'Telegram: Team', pairedAt: 1, lastSeen: 1 },
    ]));
    const unknown: unknown[] = [];
    const older = createChats({ document: chatsIn(file), onUnknownPerson: (chat) => unknown.push(chat) });
    expect(unknown).toEqual([{ id: 'bbbbbbbbbbbb', chatId: -300 }]);
    expect(older.isPaired(-300)).toBe(false);
    expect(older.personOf(42)).toBe(42);
  });

  it('starts empty from a file that is not a list of chats, and says why', () => {
    const file = chatsFile();
    const reasons: string[] = [];
    writeFileSync(file, '{not json');
    expect(createChats({ document: chatsIn(file, (reason) => reasons.push(reason)) }).list()).toEqual([]);
    writeFileSync(file, '{"chats": []}');
    expect(createChats({ document: chatsIn(file, (reason) => reasons.push(reason)) }).list()).toEqual([]);
    expect(reasons).toEqual(['not JSON', 'not as askbridge writes it']);
  });
});
