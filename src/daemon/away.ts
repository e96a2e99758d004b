// Who said they are away (the page's switch, `askbridge away on|off`): only then does the end of a
// turn wait for a reply, and a session waiting in its terminal is announced. The daemon's own user
// ("you": the CLI, and a page paired for nobody) has one switch, as before people were defined; each
// person has their own, which only their pages turn. An ask is for someone away when its route's
// people include one who is away (with no route, anyone is), or when the daemon's own user is, who
// sees and may answer everything. Kept as a document ({away, people?}: one written before people
// keeps reading; documents.ts), so a daemon that restarts keeps it, and every daemon sharing a store
// has the same switches; one that cannot be read or written leaves it as it was in memory (logged),
// never stops the daemon.
import { z } from 'zod';
import { PersonNameSchema, type RouteView } from '../protocol.js';
import type { Document } from './documents.js';

type Log = { warn(fields: Record<string, unknown>, message: string): void };

/** away.json: the daemon's own user's switch, and the people away (absent: nobody). */
export const AwayFileSchema = z.object({ away: z.boolean(), people: z.array(PersonNameSchema).optional() });
type AwayFile = z.infer<typeof AwayFileSchema>;

/** A switch that changed: a person's, or the daemon's own user's (`person` absent). */
export type AwayChange = { person?: string; away: boolean };

export type AwaySwitch = {
  /** `person` absent: the daemon's own user. */
  isAway(person?: string): boolean;
  /** The people who said they are away, in the order they did. */
  awayPeople(): readonly string[];
  /** Whether an ask (or one about to open, by its route) is for someone away: then a turn's end waits for a reply. */
  awayFor(view: { route?: Pick<RouteView, 'people'> | undefined }): boolean;
  /** Returns whether it changed. */
  set(away: boolean, person?: string): boolean;
  subscribe(listener: (change: AwayChange) => void): () => void;
};

/** `document`: where it is kept (absent: memory only, for tests). */
export function createAwaySwitch(options: { document?: Document<AwayFile>; log?: Log } = {}): AwaySwitch {
  const stored = options.document?.read();
  let away = stored?.away ?? false;
  let people: string[] = [...new Set(stored?.people ?? [])];
  const listeners = new Set<(change: AwayChange) => void>();
  const isAway = (person?: string) => (person === undefined ? away : people.includes(person));
  const tell = (change: AwayChange) => {
    for (const listener of listeners) listener(change);
  };
  /** The switches as they are now: each one that changed is told. */
  function apply(value: AwayFile): void {
    const before = { away, people };
    away = value.away;
    people = [...new Set(value.people ?? [])];
    if (before.away !== away) tell({ away });
    for (const person of new Set([...before.people, ...people])) if (before.people.includes(person) !== people.includes(person)) tell({ person, away: people.includes(person) });
  }
  // Switched on another daemon sharing the store, as if turned here.
  options.document?.onChange(apply);
  return {
    isAway,
    awayPeople: () => people,
    awayFor: (view) => away || (view.route ? view.route.people.some((person) => people.includes(person)) : people.length > 0),
    set(next, person) {
      if (isAway(person) === next) return false;
      // One switch turned, on the switches as they are kept (with a shared store, another daemon may have turned others meanwhile).
      const turn = (current: AwayFile | undefined): AwayFile => {
        const value = current ?? { away: false };
        if (person === undefined) return { ...value, away: next };
        const others = (value.people ?? []).filter((name) => name !== person);
        const turned = next ? [...others, person] : others;
        return { away: value.away, ...(turned.length > 0 ? { people: turned } : {}) };
      };
      let value: AwayFile;
      try {
        value = options.document ? options.document.update(turn) : turn({ away, people });
      } catch (error) {
        options.log?.warn({ error: (error as Error).message }, 'could not keep the away switch: it holds here until the daemon stops');
        value = turn({ away, people });
      }
      apply(value);
      return true;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
