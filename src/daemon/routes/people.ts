// The people askbridge knows (people.ts), for `askbridge people`: list them with their groups, devices
// and chats, add one, remove one. Only the local token: a paired page cannot make itself or anyone
// else a person. Removing a person unpairs every device and chat of theirs at once, each as
// `askbridge devices --revoke` would, and withdraws the pairing codes made for them. The people file
// is the change that counts: when it cannot be saved, nothing changes and the reply says why; once it
// is, a page or chat of the removed person is no longer paired (auth.ts and telegram/chats.ts ask the
// people), whatever happens to the lists after.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AddPersonRequestSchema, ErrorReplySchema, PeopleReplySchema, PersonChangeReplySchema, PersonNameSchema } from '../../protocol.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';
import { pairedDevices, unpairDevice } from './devices.js';

const PersonParamsSchema = z.object({ name: PersonNameSchema }).meta({ title: 'person name' });

export const peopleRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, context) => {
  const { deps } = context;
  /** A person's devices and chats, as the reply lists them. */
  const devicesOf = (name: string) => pairedDevices(context).filter((device) => device.person === name);
  const people = () => {
    if (!deps.people) throw new HttpError(503, 'people_unavailable', 'this daemon keeps no people');
    return deps.people;
  };

  app.get(
    '/api/people',
    { config: { access: 'local' }, schema: { summary: 'The people askbridge knows, in the order they were added, with their groups and their devices and Telegram chats', response: { 200: PeopleReplySchema, '4xx': ErrorReplySchema } } },
    async () => ({ people: (deps.people?.list() ?? []).map((person) => ({ ...person, devices: devicesOf(person.name) })) }),
  );

  app.post(
    '/api/people',
    {
      config: { access: 'local' },
      bodyLimit: 4096,
      schema: { summary: 'Add a person, in the groups given', body: AddPersonRequestSchema, response: { 200: PersonChangeReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema } },
    },
    async (request) => {
      const change = people().add(request.body.name, request.body.groups);
      if (change.kind === 'exists') throw new HttpError(409, 'person_exists', `askbridge already knows a person named "${request.body.name}"`);
      if (change.kind === 'not_saved') throw notSaved(change.reason);
      if (change.kind !== 'done') throw new HttpError(500, 'internal', 'the person was not added');
      request.log.info({ person: change.person.name, groups: change.person.groups.length }, 'person added');
      return { person: change.person };
    },
  );

  app.delete(
    '/api/people/:name',
    {
      config: { access: 'local' },
      schema: { summary: 'Remove a person: every device and Telegram chat of theirs is unpaired at once', params: PersonParamsSchema, response: { 200: PersonChangeReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema } },
    },
    async (request) => {
      const theirs = devicesOf(request.params.name);
      const change = people().remove(request.params.name);
      if (change.kind === 'not_found') throw new HttpError(404, 'not_found', `askbridge knows no person named "${request.params.name}"`);
      if (change.kind === 'not_saved') throw notSaved(change.reason);
      if (change.kind !== 'done') throw new HttpError(500, 'internal', 'the person was not removed');
      // A link or a Telegram code made for them pairs nobody from now on.
      context.auth.withdrawPairingCodes(change.person.name);
      deps.telegram?.withdrawPairingCodes(change.person.name);
      // Nothing of theirs goes on: their grants end (one would still allow what no route gives anyone),
      // and they are no longer away (which would hold the turn ends routed to their name).
      deps.grants?.revoke('all', { kind: 'person', person: change.person.name });
      context.away.set(false, change.person.name);
      const stillPaired = theirs.filter((device) => unpairDevice(context, device.id, request.log).kind === 'not_saved');
      request.log.info({ person: change.person.name, unpaired: theirs.length - stillPaired.length, stillPaired: stillPaired.length }, 'person removed');
      if (stillPaired.length > 0) {
        // The person is gone (their pages and chats with them), but these stay on the lists on disk.
        throw new HttpError(503, 'revoke_not_saved', `${change.person.name} was removed, but the device list could not be saved: ${stillPaired.map((device) => device.id).join(', ')} still paired, revoke them with askbridge devices --revoke once the disk has room`);
      }
      return { person: change.person, unpaired: theirs };
    },
  );
};

function notSaved(reason: string): HttpError {
  return new HttpError(503, 'people_not_saved', `the people file could not be saved (${reason}): nothing changed`);
}
