// The hook key: what Claude Code's http hooks (a question, a session that ended), and any program that may only ask, send.
import type { FastifyRequest } from 'fastify';
import { HOOK_KEY_HEADER } from '../../http-hook.js';
import { HttpError } from '../errors.js';
import { sameSecret } from '../hook-identity.js';
import type { AppDeps } from './context.js';

/** Refuses (401) a request without the current hook key. */
export function requireHookKey(request: FastifyRequest, deps: Pick<AppDeps, 'hookKey'>): void {
  const key = request.headers[HOOK_KEY_HEADER];
  const expected = deps.hookKey?.();
  if (typeof key !== 'string' || key === '') throw new HttpError(401, 'hook_key_missing', `an http hook must send its key in ${HOOK_KEY_HEADER}: run \`askbridge install\``);
  if (expected === undefined || !sameSecret(key, expected)) throw new HttpError(401, 'bad_hook_key', 'this hook key is not the current one (it was rotated?): run `askbridge install` again');
}
