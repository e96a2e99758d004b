// The people askbridge knows (`askbridge people add NAME --group G`), kept as a document
// (documents.ts: the state directory's file, or the shared store). With none, askbridge serves one person, "you", exactly as before: no
// route applies and every paired device sees and decides everything. A change is on disk before it
// is in memory, so a restart never brings back a person shown as removed; a change another daemon
// sharing the store made is told to the listeners as one made here. Devices and chats name
// their person; removing a person unpairs them (the caller's, once this has succeeded).
import { z } from 'zod';
import { PersonSchema, type Person } from '../protocol.js';
import type { Document } from './documents.js';

/** How a change went: `not_saved` changed nothing, here as on disk. */
export type PeopleChange = { kind: 'done'; person: Person } | { kind: 'exists' } | { kind: 'not_found' } | { kind: 'not_saved'; reason: string };

export type People = ReturnType<typeof createPeople>;

/** How the people are kept. */
export const PeopleSchema = z.array(PersonSchema);

/** `document`: where they are kept (absent: memory only, for tests). */
export function createPeople(options: { document?: Document<Person[]>; now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  let people: Person[] = options.document?.read() ?? [];
  const listeners = new Set<(people: readonly Person[]) => void>();
  const changed = (next: Person[]) => {
    people = next;
    for (const listener of listeners) listener(people);
  };
  options.document?.onChange(changed);

  /** Makes a change (on the store's value, with a shared store: it may merge others'); undefined, or why it could not be kept. */
  function save(change: (current: Person[]) => Person[]): string | undefined {
    let next: Person[];
    try {
      next = options.document ? options.document.update((current) => change(current ?? [])) : change(people);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    }
    changed(next);
    return undefined;
  }

  return {
    /** Everyone, in the order they were added. */
    list: (): readonly Person[] => people,
    get: (name: string): Person | undefined => people.find((person) => person.name === name),
    add(name: string, groups: readonly string[] = []): PeopleChange {
      if (people.some((person) => person.name === name)) return { kind: 'exists' };
      const person: Person = { name, groups: [...new Set(groups)], addedAt: now() };
      const reason = save((current) => (current.some((known) => known.name === name) ? current : [...current, person]));
      return reason === undefined ? { kind: 'done', person } : { kind: 'not_saved', reason };
    },
    remove(name: string): PeopleChange {
      const person = people.find((known) => known.name === name);
      if (!person) return { kind: 'not_found' };
      const reason = save((current) => current.filter((known) => known.name !== name));
      return reason === undefined ? { kind: 'done', person } : { kind: 'not_saved', reason };
    },
    /** Told after every change. */
    onChange(listener: (people: readonly Person[]) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
