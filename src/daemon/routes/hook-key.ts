// The hook key: what Claude Code's http hooks (a question, a session that ended), and any program that may only ask, send;
// and the machine such a request is from.
import type { FastifyRequest } from 'fastify';
import { HOOK_KEY_HEADER, MACHINE_HEADER, PERSON_HEADER, UNNAMED_MACHINE } from '../../http-hook.js';
import { LIMITS, PersonNameSchema } from '../../protocol.js';
import { shorten } from '../../shorten.js';
import { HttpError } from '../errors.js';
import { isFromThisMachine } from '../hook-identity.js';
import type { AppDeps } from './context.js';

/** Refuses (401) a request without the current hook key. */
export function requireHookKey(request: FastifyRequest, deps: Pick<AppDeps, 'acceptsHookKey' | 'command'>): void {
  const key = request.headers[HOOK_KEY_HEADER];
  if (typeof key !== 'string' || key === '') throw new HttpError(401, 'hook_key_missing', `an http hook must send its key in ${HOOK_KEY_HEADER}: run \`${deps.command} install\``);
  if (deps.acceptsHookKey?.(key) !== true) throw new HttpError(401, 'bad_hook_key', `this hook key is not the current one (it was rotated?): run \`${deps.command} install\` again`);
  request.principal = { kind: 'hook' };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The machine a remote hook names (`install --url` writes it into Claude Code's settings, which
 * sends it as UTF-8 bytes; Node hands header bytes over one character each). Decoded as the UTF-8
 * it is, so "Zoë's laptop" shows as written; bytes that are not UTF-8 are refused (400), never
 * shown as something else. Shown on the page as text, so only bounded, never trusted. Undefined
 * (this machine) only for a request from this machine that names none: one from elsewhere that
 * names none is UNNAMED_MACHINE's, so it never passes for this machine's own hook, whose asks
 * (a turn's end, what a session says of itself) are its alone.
 */
export function machineOf(request: FastifyRequest): string | undefined {
  const header = request.headers[MACHINE_HEADER];
  if (typeof header !== 'string' || header.trim() === '') return isFromThisMachine(request.ip, request.headers.host) ? undefined : UNNAMED_MACHINE;
  let machine: string;
  try {
    machine = utf8.decode(Buffer.from(header, 'latin1'));
  } catch {
    throw new HttpError(400, 'bad_machine', `${MACHINE_HEADER} is not UTF-8 text: write the machine's name again (on that machine: askbridge install --url URL --key KEY --machine NAME)`);
  }
  return shorten(machine.trim(), LIMITS.machineChars);
}

/**
 * Whose session a remote hook says it is (`remote-hook --person`), or undefined when it names none.
 * A name that is not a person's name is refused (400), never dropped: the session's asks would
 * otherwise go to everyone. It only names: a route sends the asks there, and nothing is authorised by it.
 */
export function personOf(request: FastifyRequest): string | undefined {
  const header = request.headers[PERSON_HEADER];
  if (header === undefined || (typeof header === 'string' && header.trim() === '')) return undefined;
  const parsed = PersonNameSchema.safeParse(typeof header === 'string' ? header.trim() : header);
  if (!parsed.success) throw new HttpError(400, 'bad_person', `${PERSON_HEADER} is not a person's name (letters, digits, ".", "_" and "-", up to 40): write it again (on that machine: askbridge install --url URL --key KEY --person NAME)`);
  return parsed.data;
}
