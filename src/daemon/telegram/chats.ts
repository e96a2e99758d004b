// The Telegram chats paired with the user's bot: each is a device the person can list and revoke,
// kept as the document telegram-chats (documents.ts: telegram-chats.json, 0600, or the shared store,
// whichever daemon polls the bot) so that it survives restarts. A chat pairs by sending
// `/start CODE` with a one-time code `askbridge pair --telegram` asked for; only hashes of codes are
// kept, and wrong codes are counted per chat. A pairing is of a chat and of the person who sent the
// code there (their Telegram user id): in a group, only they decide. Pairing and revoking write the
// list they would make first and change memory only once it is on disk, as auth.ts does for
// browsers. No I/O but that document.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { PAIRING_CODE_TTL_MS, PersonNameSchema } from '../../protocol.js';
import type { Document } from '../documents.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A chat as kept on disk; one paired before askbridge kept who paired it has no userId. */
const StoredChatSchema = z.object({ id: z.string().regex(/^[0-9a-f]{12}$/), chatId: z.number().int(), userId: z.number().int().optional(), name: z.string(), pairedAt: z.number(), lastSeen: z.number(), person: PersonNameSchema.optional() });
/** A paired chat, and the one person in it whose presses and replies decide. */
export type StoredChat = z.infer<typeof StoredChatSchema>;
export type PairedChat = StoredChat & { userId: number };
/** How the paired chats are kept. */
export const StoredChatsSchema = z.array(StoredChatSchema);

/**
 * How pairing a chat went: paired, a code that does not pair, one made for a person askbridge no
 * longer knows (removed since), a chat that guessed too often, or a list that could not be saved.
 */
export type ChatPairing = { kind: 'paired'; chat: PairedChat } | { kind: 'bad_code' } | { kind: 'unknown_person'; person: string } | { kind: 'too_many_guesses' } | { kind: 'not_saved'; reason: string };
export type ChatRevoke = { kind: 'revoked'; chat: PairedChat } | { kind: 'not_found' } | { kind: 'not_saved'; reason: string };

/** Wrong codes a chat may send per GUESS_WINDOW_MS before it is no longer answered. */
export const GUESSES_PER_CHAT = 5;
const GUESS_WINDOW_MS = 10 * 60_000;
const MAX_CODES = 20;
/** Chats whose wrong guesses are remembered: the oldest are forgotten first. */
const MAX_GUESSERS = 1000;
/** A chat's last-seen time is written at most this often. */
const LAST_SEEN_SAVE_MS = 60_000;

export type ChatsOptions = {
  /** Where the paired chats are kept (documents.ts: the document `telegram-chats`). */
  document: Document<StoredChat[]>;
  now?: () => number;
  /** Told of each group paired before askbridge kept who paired it: no longer paired, until it pairs again. */
  onUnknownPerson?: (chat: Pick<PairedChat, 'id' | 'chatId'>) => void;
  /**
   * Whether askbridge still knows a person (people.ts): a chat paired for someone removed is not
   * paired, even should its unpairing not have reached the disk. Absent: every person is known.
   */
  isKnownPerson?: (person: string) => boolean;
};

export function createChats(options: ChatsOptions) {
  const now = options.now ?? Date.now;
  // sha256(code) -> when it expires, whose chat it pairs, and whether that person was removed since
  // (it then pairs nobody, and is kept until it expires only to say why).
  const codes = new Map<string, { expiresAt: number; person?: string; removed?: true }>();
  const guesses = new Map<number, number[]>(); // chat id -> times of its wrong codes
  let chats = load();
  let lastSeenSavedAt = now();
  /** The chats that count as paired: those of a person askbridge knows, or of nobody named. */
  const heeded = () => chats.filter((chat) => chat.person === undefined || options.isKnownPerson?.(chat.person) !== false);

  function load(): PairedChat[] {
    return (options.document.read() ?? []).flatMap(withPerson);
  }

  /**
   * A stored chat with its person. A private chat's id is its person's user id, and nobody else is
   * in it; a group paired before askbridge kept who paired it has no one person, and any member could
   * decide there: it is dropped (and told), and must pair again.
   */
  function withPerson(chat: z.infer<typeof StoredChatSchema>): PairedChat[] {
    if (chat.userId !== undefined) return [{ ...chat, userId: chat.userId }];
    if (chat.chatId > 0) return [{ ...chat, userId: chat.chatId }];
    options.onUnknownPerson?.({ id: chat.id, chatId: chat.chatId });
    return [];
  }

  /**
   * Makes a change to the chats as kept (documents.ts: with a shared store, on another daemon's
   * pairing made meanwhile too), without the groups that no longer pair, and returns them as kept.
   */
  const save = (change: (list: StoredChat[]) => StoredChat[]) => options.document.update((current) => change((current ?? []).filter((chat) => chat.userId !== undefined || chat.chatId > 0)));
  /** The chats as kept, in memory; a last-seen time not written yet stays. */
  function adopt(list: StoredChat[]): void {
    const before = new Map(chats.map((chat) => [chat.id, chat.lastSeen]));
    chats = list.flatMap(withPerson).map((chat) => ({ ...chat, lastSeen: Math.max(chat.lastSeen, before.get(chat.id) ?? 0) }));
  }
  // Paired or unpaired through another daemon sharing the store.
  options.document.onChange(adopt);
  /** Every chat's last-seen time as this daemon has it, where it is later than the one kept. */
  const withLastSeen = (list: StoredChat[]) =>
    list.map((stored) => {
      const lastSeen = chats.find((chat) => chat.id === stored.id)?.lastSeen ?? 0;
      return lastSeen > stored.lastSeen ? { ...stored, lastSeen } : stored;
    });
  const reasonOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

  /** Whether this chat sent too many wrong codes lately; counts this one when `count`. */
  function overGuessing(chatId: number, count: boolean): boolean {
    const recent = (guesses.get(chatId) ?? []).filter((at) => at > now() - GUESS_WINDOW_MS);
    if (count) recent.push(now());
    guesses.delete(chatId);
    if (recent.length > 0) guesses.set(chatId, recent);
    if (guesses.size > MAX_GUESSERS) guesses.delete(guesses.keys().next().value!);
    return recent.length > GUESSES_PER_CHAT;
  }

  return {
    /** A one-time code: it pairs one chat within ten minutes, as `person`'s when one is named. */
    createCode(person?: string): { code: string; expiresAt: number } {
      const code = randomBytes(12).toString('base64url');
      for (const [hash, { expiresAt }] of codes) if (expiresAt < now()) codes.delete(hash);
      if (codes.size >= MAX_CODES) codes.delete(codes.keys().next().value!);
      const expiresAt = now() + PAIRING_CODE_TTL_MS;
      codes.set(sha256(code), { expiresAt, ...(person === undefined ? {} : { person }) });
      return { code, expiresAt };
    },

    /** The person was removed: every code made for them pairs nobody from now on, even should they be added again. */
    withdrawCodes(person: string): void {
      for (const [hash, pairing] of codes) if (pairing.person === person) codes.set(hash, { ...pairing, removed: true });
    },

    /**
     * Pairs the chat that sent this code, with the person who sent it, when it is live; the code is
     * spent once the chat is on disk. A chat paired again keeps its id, and is now that person's.
     */
    pair(code: string, sender: Pick<PairedChat, 'chatId' | 'userId' | 'name'>): ChatPairing {
      const { chatId } = sender;
      if (overGuessing(chatId, false)) return { kind: 'too_many_guesses' };
      const hash = sha256(code);
      const pairing = codes.get(hash);
      if (pairing === undefined || pairing.expiresAt < now()) {
        codes.delete(hash);
        return overGuessing(chatId, true) ? { kind: 'too_many_guesses' } : { kind: 'bad_code' };
      }
      // A chat of someone askbridge no longer knows would be ignored: it is not paired.
      if (pairing.person !== undefined && (pairing.removed || options.isKnownPerson?.(pairing.person) === false)) {
        codes.delete(hash);
        return { kind: 'unknown_person', person: pairing.person };
      }
      const existing = chats.find((chat) => chat.chatId === chatId);
      const chat: PairedChat = { id: existing?.id ?? randomBytes(6).toString('hex'), chatId, userId: sender.userId, name: sender.name, pairedAt: now(), lastSeen: now(), ...(pairing.person === undefined ? {} : { person: pairing.person }) };
      try {
        adopt(save((list) => [...withLastSeen(list).filter((each) => each.chatId !== chatId), chat]));
      } catch (error) {
        return { kind: 'not_saved', reason: reasonOf(error) };
      }
      codes.delete(hash);
      return { kind: 'paired', chat };
    },

    isPaired: (chatId: number) => heeded().some((chat) => chat.chatId === chatId),

    /** The person whose presses and replies decide in this chat; undefined when it is not paired. */
    personOf: (chatId: number) => heeded().find((chat) => chat.chatId === chatId)?.userId,

    /** The chat was heard from: its last-seen time, written now and then. */
    seen(chatId: number): void {
      const chat = chats.find((each) => each.chatId === chatId);
      if (!chat) return;
      chat.lastSeen = now();
      if (chat.lastSeen - lastSeenSavedAt < LAST_SEEN_SAVE_MS) return;
      lastSeenSavedAt = chat.lastSeen;
      try {
        save(withLastSeen);
      } catch {
        // Only a last-seen time is late on disk; it is written again with the next change.
      }
    },

    /** Every paired chat, most recently seen first. */
    list(): PairedChat[] {
      return heeded().sort((a, b) => b.lastSeen - a.lastSeen);
    },

    /** Unpairs a chat by its device id, once the list without it is on disk. */
    revoke(id: string): ChatRevoke {
      const chat = chats.find((each) => each.id === id);
      if (!chat) return { kind: 'not_found' };
      try {
        adopt(save((list) => list.filter((each) => each.id !== id)));
      } catch (error) {
        return { kind: 'not_saved', reason: reasonOf(error) };
      }
      return { kind: 'revoked', chat };
    },
  };
}

export type Chats = ReturnType<typeof createChats>;
