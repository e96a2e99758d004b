// Who decides, from the credential alone: a paired page is its device (and its person, when it was
// paired for one); the local token is the CLI. Nothing a request says of itself (a header, a field)
// names a person.
import type { FastifyRequest } from 'fastify';
import type { Decider, PersonClient } from '../../protocol.js';
import type { Viewer } from '../../route-access.js';
import type { Auth } from './auth.js';

/** `pageClient`: what a page's decision is called (a Web Push button's answer is a `notification`'s). */
export function deciderOf(request: FastifyRequest, auth: Pick<Auth, 'devices'>, pageClient: PersonClient = 'page'): Decider {
  const { principal } = request;
  if (principal.kind !== 'page') return { client: 'cli' };
  const device = auth.devices().find((paired) => paired.id === principal.deviceId);
  return { client: pageClient, device: device?.name ?? 'a paired browser', ...(principal.person === undefined ? {} : { person: principal.person }) };
}

/** Who looks, from the credential alone: a paired page is its person's (route-access.ts); the local token sees everything. */
export function viewerOfRequest(request: FastifyRequest): Viewer {
  const { principal } = request;
  return principal.kind === 'page' ? { kind: 'person', person: principal.person } : { kind: 'local' };
}
