// The paired Telegram chats: one-time codes that expire, wrong codes counted per chat, and a list on
// disk (0600) that survives a restart and that a revoke leaves without the chat.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChats, GUESSES_PER_CHAT } from '../../src/daemon/telegram/chats.js';

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
  it('pairs a chat once per code, keeps it on disk 0600 without the code, and forgets it when revoked', () => {
    const file = chatsFile();
    const chats = createChats({ file });
    const { code } = chats.createCode();
    const paired = chats.pair(code, 42, 'Telegram: @alice');
    expect(paired.kind).toBe('paired');
    expect(chats.pair(code, 43, 'Telegram: @bob')).toEqual({ kind: 'bad_code' });
    expect(chats.isPaired(42)).toBe(true);
    expect(chats.isPaired(43)).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(code);

    const again = createChats({ file });
    expect(again.list().map((chat) => [chat.chatId, chat.name])).toEqual([[42, 'Telegram: @alice']]);
    const id = again.list()[0]!.id;
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(again.revoke(id).kind).toBe('revoked');
    expect(again.revoke(id)).toEqual({ kind: 'not_found' });
    expect(createChats({ file }).isPaired(42)).toBe(false);
  });

  it('refuses a code after ten minutes', () => {
    let now = 1_000_000;
    const chats = createChats({ file: chatsFile(), now: () => now });
    const { code } = chats.createCode();
    now += 10 * 60_000 + 1;
    expect(chats.pair(code, 42, 'x')).toEqual({ kind: 'bad_code' });
  });

  it('stops answering a chat that guesses too often, even with a live code', () => {
    const chats = createChats({ file: chatsFile() });
    for (let guess = 0; guess < GUESSES_PER_CHAT; guess++) expect(chats.pair(`guess${guess}`, 7, 'x')).toEqual({ kind: 'bad_code' });
    expect(chats.pair('one-more', 7, 'x')).toEqual({ kind: 'too_many_guesses' });
    const { code } = chats.createCode();
    expect(chats.pair(code, 7, 'x')).toEqual({ kind: 'too_many_guesses' });
    // Another chat is not held back by it.
    expect(chats.pair(code, 8, 'y').kind).toBe('paired');
  });

  it('starts empty from a file that is not a list of chats, and says so', () => {
    const file = chatsFile();
    writeFileSync(file, '{not json');
    const reasons: string[] = [];
    expect(createChats({ file, onUnreadable: (reason) => reasons.push(reason) }).list()).toEqual([]);
    expect(reasons).toEqual(['not a list of chats']);
  });
});
