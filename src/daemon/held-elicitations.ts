// Which sessions have an MCP server's request held for the command hook, kept in the state directory.
// The command hook hands a typed prompt and the end of a turn to the daemon only while the person is
// away (they would cost a start of Node at every turn otherwise); while a session's request is held it
// hands them over too, read from this file, since either says the session moved on (Esc, then a new
// prompt), which lets the request go before a late response reaches the server. A file that cannot
// be written is logged, never fatal: the request still leaves at its deadline.
import { rmSync } from 'node:fs';
import { writeFileAtomic } from '../state-dir.js';
import type { AskStore } from './asks/store.js';

type Log = { warn(fields: Record<string, unknown>, message: string): void };

export function keepHeldElicitations(store: AskStore, file: string, log: Log): void {
  let written = '';
  store.subscribe((event) => {
    if (event.ask.elicitation === undefined || event.type === 'updated') return;
    const sessions = [...new Set(store.pending().filter((ask) => ask.elicitation && store.askerOf(ask.id)?.transport === 'command-hook').map((ask) => ask.sessionId))];
    const text = sessions.length === 0 ? '' : `${JSON.stringify({ sessions })}\n`;
    if (text === written) return;
    try {
      if (text === '') rmSync(file, { force: true });
      else writeFileAtomic(file, text);
      written = text;
    } catch (error) {
      log.warn({ error: (error as Error).message }, 'could not keep the sessions with a held MCP request on disk: the command hook may not say they moved on');
    }
  });
}
