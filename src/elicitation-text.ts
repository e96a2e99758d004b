// An MCP server's elicitation in a terminal's words, for `pending`, `history`, `listen` and `watch`:
// "forms asks: Who gets the report?", its fields or its link, and how it ended. Pure: no I/O. The
// server's name, its message, its field titles and its URL are hostile text: these come back as
// they are (on one line, shortened), for the caller to mark as it prints them (terminalText).
import type { Elicitation, ElicitationResult } from './protocol.js';
import { shorten } from './shorten.js';

/** How much of the server's message a one-line list shows. */
const MESSAGE_LINE_CHARS = 240;

/** "forms asks: Who gets the report?", on one line. Not marked. */
export function elicitationLine(elicitation: Pick<Elicitation, 'server' | 'message'>): string {
  const message = shorten(elicitation.message, MESSAGE_LINE_CHARS);
  return `${shorten(elicitation.server, 80)} asks${message === '' ? ' for input' : `: ${message}`}`;
}

/** Under that line: each field of a form ("name (text, required)"), or the link and its exact host. Not marked. */
export function elicitationDetails(elicitation: Elicitation): string[] {
  if (elicitation.mode === 'url') return [`open: ${elicitation.url}`, `host: ${elicitation.host}`];
  return elicitation.form.fields.map((field) => {
    const title = typeof field.title === 'string' && field.title !== '' ? ` "${shorten(field.title, 80)}"` : '';
    return `${shorten(field.name, 80)}${title} (${field.kind}${field.required ? ', required' : ''})`;
  });
}

/** What a person's response sent the server, in one line: "accepted {…}", "declined", "cancelled". Not marked. */
export function elicitationResultText(result: ElicitationResult): string {
  if (result.action === 'decline') return 'declined';
  if (result.action === 'cancel') return 'cancelled';
  return result.content === undefined ? 'accepted' : `accepted ${JSON.stringify(result.content)}`;
}
