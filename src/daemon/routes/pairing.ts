// Pairing a browser: a local program asks for a one-time link; the page trades its code for a
// cookie (HttpOnly) and a key (which the page keeps in its own origin's storage). Guesses are
// rate-limited: codes are long enough that guessing is hopeless, and this keeps it so. A live code
// is not a guess and never counts, so opening many pages at once is never refused. Links and the
// cookie's Secure follow the public URL the daemon accepts at that moment (it can change live).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { encode } from 'uqr';
import { ErrorReplySchema, PairedReplySchema, PairingReplySchema, PairingRequestSchema, PairRequestSchema, SessionReplySchema, TelegramPairingReplySchema } from '../../protocol.js';
import { PublicUrlStatusSchema } from '../../public-url-status.js';
import type { RouteContext } from './context.js';
import type { Principal } from './auth.js';
import { deviceNameOf } from '../device-name.js';
import { deciderOf } from './decider.js';
import { HttpError } from '../errors.js';

/** The links, and the public URL as the daemon holds it (`askbridge pair` says where it comes from, or how to set one). */
const PairingWithStatusSchema = PairingReplySchema.extend({ publicUrl: PublicUrlStatusSchema.optional() });

/** Attempts to pair with a code that is not live, from anyone, per minute. */
export const PAIRING_GUESSES_PER_MINUTE = 10;

export const pairingRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { auth, deps, port }) => {
  /**
   * Whose device a new pairing makes: the person named, who must be known; a page may pair only for
   * its own person (naming none: its own). No people known: nobody's, as before.
   */
  function pairingPerson(principal: Principal, named: string | undefined): string | undefined {
    const own = principal.kind === 'page' ? principal.person : undefined;
    if (principal.kind === 'page' && named !== undefined && named !== own) throw new HttpError(403, 'not_your_person', 'a paired page pairs more devices for its own person only: run askbridge pair --person on the machine running askbridge');
    const person = named ?? own;
    if (person !== undefined && !deps.people?.get(person)) {
      const known = deps.people?.list().map((known) => known.name) ?? [];
      throw new HttpError(400, 'unknown_person', `askbridge knows no person named "${person}": ${known.length === 0 ? 'add one with askbridge people add NAME' : `the people are ${known.join(', ')}`}`);
    }
    return person;
  }

  // A local program, or a paired page showing a QR code to pair another device.
  app.post(
    '/api/pairings',
    {
      config: { access: 'page-or-local' },
      bodyLimit: 1024,
      schema: { summary: 'A one-time code, and the links and QR code that carry it, to pair one more browser (for a person, when one is named)', body: PairingRequestSchema, response: { 200: PairingWithStatusSchema, '4xx': ErrorReplySchema } },
    },
    async (request) => {
      const code = auth.createPairingCode(pairingPerson(request.principal, request.body?.person));
      const local = `http://127.0.0.1:${port()}/#pair=${code}`;
      const publicUrl = auth.publicUrl();
      const publicLink = publicUrl ? `${publicUrl.href}#pair=${code}` : undefined;
      const { data } = encode(publicLink ?? local, { border: 0 });
      const status = deps.publicUrlStatus?.();
      return { code, links: { local, ...(publicLink ? { public: publicLink } : {}) }, qr: data.map((row) => row.map((dark) => (dark ? '1' : '0')).join('')), ...(status ? { publicUrl: status } : {}) };
    },
  );

  // A Telegram chat pairs by sending `/start CODE` to the user's bot (telegram/bot.ts).
  app.post(
    '/api/pairings/telegram',
    { config: { access: 'page-or-local' }, bodyLimit: 1024, schema: { summary: 'A one-time code that pairs one Telegram chat with the bot of the user config (for a person, when one is named): the chat sends /start CODE', body: PairingRequestSchema, response: { 200: TelegramPairingReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema } } },
    async (request) => {
      const result = deps.telegram?.createPairingCode(pairingPerson(request.principal, request.body?.person)) ?? { kind: 'not_configured' as const };
      if (result.kind === 'not_configured') throw new HttpError(409, 'telegram_not_configured', `no Telegram bot is set: put "telegram": {"token": "<your bot's token from @BotFather>"} in ${deps.publicUrlStatus?.().userFile ?? 'the user config'}`);
      if (result.kind === 'not_ready') throw new HttpError(503, 'telegram_not_ready', `the Telegram bot is not connected (${result.why}): see askbridge logs`);
      return { code: result.code, bot: result.bot, expiresAt: result.expiresAt };
    },
  );

  app.post(
    '/api/pair',
    {
      config: {
        access: 'public',
        // Counted after the body is read, so that a live code can be let through.
        rateLimit: { max: PAIRING_GUESSES_PER_MINUTE, timeWindow: 60_000, hook: 'preHandler', allowList: (request) => auth.isLivePairingCode(PairRequestSchema.safeParse(request.body).data?.code) },
      },
      bodyLimit: 1024,
      schema: {
        summary: "Trade a one-time code for this page's cookie (Set-Cookie) and key",
        body: PairRequestSchema,
        response: { 200: PairedReplySchema, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema },
      },
    },
    async (request, reply) => {
      const result = auth.pair(request.body.code, deviceNameOf(request.headers['user-agent']));
      if (result.kind === 'bad_code') throw new HttpError(401, 'bad_pairing_code', 'this link was already used or has expired: run `askbridge open` on the machine running askbridge for a new one');
      if (result.kind === 'unknown_person') {
        request.log.info({ person: result.person }, 'a pairing for a person since removed was refused');
        throw new HttpError(403, 'unknown_person', `this link pairs a device for "${result.person}", whom askbridge no longer knows (removed since it was made): nothing was paired`);
      }
      if (result.kind === 'not_saved') throw new HttpError(503, 'pairing_not_saved', `the pairing could not be saved (${result.reason}): the link still works, try again once the disk has room`);
      const { page } = result;
      // Through the public URL over https, the cookie is never sent in the clear.
      const publicUrl = auth.publicUrl();
      const secure = publicUrl?.secure === true && request.headers.host?.toLowerCase() === publicUrl.host ? '; Secure' : '';
      reply.header('set-cookie', `${auth.cookieName(request.headers.host)}=${page.cookie}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${page.maxAgeSeconds}${secure}`);
      request.log.info('page paired');
      return { paired: true as const, key: page.key };
    },
  );

  /** Lets the page tell "not paired" apart from "daemon down" before it opens the WebSocket. */
  app.get(
    '/api/session',
    { config: { access: 'page' }, schema: { summary: 'Is this page paired, and as whose device?', response: { 200: SessionReplySchema, '4xx': ErrorReplySchema } } },
    // From the pairing alone, as every decision of this page is recorded (decider.ts).
    async (request) => {
      const { device, person } = deciderOf(request, auth);
      return { paired: true as const, ...(device === undefined ? {} : { device }), ...(person === undefined ? {} : { person }) };
    },
  );
};
