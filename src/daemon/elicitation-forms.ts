// What askbridge shows of an MCP server's elicitation, whichever agent relays it (Claude Code's
// Elicitation hook, `askbridge attach codex`), or why it will not show it. elicitation-form.ts,
// which reads a form, is loaded by the first elicitation: it brings re2js, which most daemons never
// need, so the daemon does not load it at start (as config.ts does with its rules' patterns).
import type { Elicitation } from '../protocol.js';

export type ElicitationForms = typeof import('../elicitation-form.js');

let loaded: Promise<ElicitationForms> | undefined;

export function loadElicitationForms(): Promise<ElicitationForms> {
  loaded ??= import('../elicitation-form.js');
  return loaded;
}

/** An MCP server's request as its agent hands it over, in words common to every agent. */
export type ElicitationRequest = { server: string; message: string; mode: 'form' | 'url'; requestedSchema: unknown; url: string | undefined; elicitationId: string | undefined };

/**
 * An elicitation as askbridge shows it, or why it will not: a form elicitation-form.ts reads, or a
 * URL that parses as an http(s) address, with its exact host (a look-alike stays visible as itself:
 * an international name shows as its xn-- form).
 */
export function readElicitation(request: ElicitationRequest, forms: ElicitationForms): { elicitation: Elicitation } | { refused: string } {
  const common = { server: request.server, message: request.message };
  if (request.mode === 'url') {
    if (request.url === undefined) return { refused: 'a URL request without a url' };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { refused: 'its url does not parse as a URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { refused: `its url is not an http(s) address (${url.protocol})` };
    return { elicitation: { ...common, mode: 'url', url: url.href, host: url.host, elicitationId: request.elicitationId ?? '' } };
  }
  const reading = forms.readFormSchema(request.requestedSchema);
  if (!reading.ok) return { refused: reading.reason };
  return { elicitation: { ...common, mode: 'form', form: reading.form } };
}
