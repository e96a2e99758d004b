// buildApp(deps): the daemon's HTTP and WebSocket surface, put together from its parts. It never
// listens and never touches `process`: main.ts does, and tests call app.inject()/injectWS().
import rateLimit from '@fastify/rate-limit';
import websocket from '@fastify/websocket';
import Fastify, { LogController, type FastifyError, type FastifyReply, type FastifyRequest, type FastifySerializerCompiler, type FastifyServerOptions, type RouteOptions } from 'fastify';
import { hasZodFastifySchemaValidationErrors, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { checkShape, describeZodError, PAGE_PROTOCOL, REVOKED_CLOSE_CODE, STOPPING_CLOSE_CODE, type AwayReply, type ServerMessage } from '../protocol.js';
import { createAuth, registerGuard } from './routes/auth.js';
import { HttpError } from './errors.js';
import { HOOK_KEY_HEADER } from '../http-hook.js';
import { createOpenApiBuilder } from './routes/openapi.js';
import { BODY_LIMIT_BYTES, MAX_PENDING, REQUEST_TIMEOUTS, WAITING_BYTES, WS_MESSAGE_LIMIT_BYTES } from './limits.js';
import type { AppDeps, RouteContext, Watchers } from './routes/context.js';
import type { PublicUrl } from '../public-url.js';
import type { AskDesk } from './asks/open-ask.js';
import { isRoutedTo, type Viewer } from '../route-access.js';
import { asksRoutes } from './routes/asks.js';
import { attachRoutes } from './routes/attach.js';
import { broadcast, eventRoutes } from './routes/events.js';
import { sessionRoutes } from './routes/sessions.js';
import { createAwaySwitch } from './away.js';
import { historyRoutes } from './routes/history.js';
import { hookRoutes } from './routes/hook.js';
import { pageRoutes } from './routes/page.js';
import { deviceRoutes } from './routes/devices.js';
import { pairingRoutes } from './routes/pairing.js';
import { pushRoutes } from './routes/push.js';
import { oneTapRoutes } from './routes/one-tap.js';
import { statusRoutes } from './routes/status.js';
import { grantRoutes } from './routes/grants.js';
import { peopleRoutes } from './routes/people.js';
import { routeExplainRoutes } from './routes/route-explain.js';
import { createPersonDecisions } from './asks/person-decisions.js';

/** A WebSocket closed because the address it came through is no longer accepted (policy violation). */
const ADDRESS_GONE_CLOSE_CODE = 1008;

/** How often the server looks for requests past their time limits (limits.ts). */
const TIMEOUT_CHECK_MS = 1_000;

export async function buildApp(deps: AppDeps) {
  const app = Fastify({
    ...(deps.logger === false ? { logger: false } : { loggerInstance: deps.logger }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: deps.timeouts?.requestMs ?? REQUEST_TIMEOUTS.requestMs,
    http: { headersTimeout: deps.timeouts?.headersMs ?? REQUEST_TIMEOUTS.headersMs, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
    // Routes log what matters (question received, answered); a line per request would drown it.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    forceCloseConnections: true,
    // zod checks requests and replies. Given here, not set after: fastify would first build its own
    // compilers, loading ajv and fast-json-stringify (a third of its start) to be replaced at once.
    schemaController: { compilersFactory: ZOD_COMPILERS },
    // Refused by the router before any route or hook runs (a part of the URL too long, an invalid
    // percent-encoding): the same error shape as every other refusal.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      return reply
        .code(tooLong ? 414 : 400)
        .send({ error: { code: tooLong ? 'url_too_long' : 'bad_url', message: tooLong ? 'a part of the URL is too long' : 'the URL is not valid' } });
    },
  }).withTypeProvider<ZodTypeProvider>();
  const openApi = createOpenApiBuilder({ version: deps.version });
  app.addHook('onRoute', (route) => {
    requireReplySchemas(route);
    openApi.note(route);
  });

  const listeningPort = () => {
    const address = app.server.address();
    return typeof address === 'object' && address !== null ? address.port : deps.port;
  };
  const auth = createAuth({ token: deps.token, port: listeningPort, publicUrl: deps.publicUrl, pageSessionStore: deps.pageSessionStore, holdsIpv6: deps.holdsIpv6, isKnownPerson: deps.people && ((person) => deps.people?.get(person) !== undefined), now: deps.now });
  const watchers: Watchers = { sockets: new Set(), deviceOf: new WeakMap(), viewerOf: new WeakMap(), hostOf: new WeakMap(), visible: new Set(), visibilityListeners: new Set() };
  // A device another daemon sharing the store unpaired: its pages here close as a revoke here closes them.
  auth.onDevicesGone((deviceIds) => {
    for (const socket of watchers.sockets) if (deviceIds.includes(watchers.deviceOf.get(socket) ?? '')) socket.close(REVOKED_CLOSE_CODE, 'this device was unpaired');
  });

  const refusals = createRefusalTally((fields, message) => app.log.warn(fields, message));
  app.addHook('onClose', async () => refusals.close());
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) error = invalidRequest(error, request);
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') error = new HttpError(415, 'unsupported_media_type', 'the body must be JSON, sent with Content-Type: application/json');
    const status = error instanceof HttpError ? error.statusCode : (error.statusCode ?? 500);
    if (!(error instanceof HttpError) && status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return reply.code(500).send({ error: { code: 'internal', message: 'internal error' } });
    }
    // Fastify's own 4xx (body too large, malformed JSON) get the same shape, with its code.
    const refusal = error instanceof HttpError ? error : new HttpError(status, (error.code ?? 'bad_request').toLowerCase(), error.message);
    const route = request.routeOptions.url ?? 'unknown';
    // Refusals are worth a line (a refused hook question silently goes to the terminal otherwise),
    // but not one each for anyone without a credential: a flood of those would rotate every
    // question's lines out of the kept log files. They are counted, and summed up in one line.
    if (status >= 500 || hasCredential(request, auth, deps)) request.log.warn({ url: route, code: refusal.code, details: refusal.details }, 'request refused');
    else refusals.count(`${status} ${refusal.code} ${request.method} ${route}`, { url: route, code: refusal.code });
    return reply.code(status).send({ error: { code: refusal.code, message: refusal.message, ...(refusal.details ? { details: refusal.details } : {}) } });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: { code: 'not_found', message: 'not found' } }));

  // JSON is the one body the API takes: fastify's text/plain parser would let a text body through
  // to a schema check (400); without it, any other content type is a 415.
  app.removeContentTypeParser('text/plain');
  registerGuard(app, auth);
  // Only routes that ask for it (config.rateLimit) are limited; a 429 goes through the error handler.
  await app.register(rateLimit, { global: false });
  // A refused WebSocket upgrade is answered on the raw socket, which nothing closes after that: every
  // refusal (any web page's `new WebSocket()` to this port) would hold a descriptor forever.
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode !== 101 && request.headers.upgrade?.toLowerCase() === 'websocket') request.raw.socket.destroy();
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-resource-policy', 'same-origin');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });

  await app.register(websocket, {
    // The page asks for `askbridge` plus `key.<its key>` (browsers cannot set headers on an upgrade): select the former.
    options: { maxPayload: WS_MESSAGE_LIMIT_BYTES, handleProtocols: (protocols) => (protocols.has(PAGE_PROTOCOL) ? PAGE_PROTOCOL : false) },
    preClose: async () => {
      for (const socket of watchers.sockets) socket.close(STOPPING_CLOSE_CODE, 'daemon stopping');
    },
  });

  const desk: AskDesk = {
    store: deps.store,
    planQuestion: deps.planQuestion,
    // With a route, only the pages of its people count, and the CLI's listeners (which see everything).
    watchers: (route) => (route ? [...watchers.sockets].filter((socket) => isRoutedTo({ route }, watchers.viewerOf.get(socket) ?? { kind: 'local' })).length : watchers.sockets.size),
    reachableElsewhere: (route) => {
      const tellable = deps.tellable?.(route);
      return (tellable !== undefined && tellable.pushDevices + tellable.telegramChats > 0) || deps.othersReachable?.() === true;
    },
    limits: deps.waitingLimits ?? { asks: MAX_PENDING, bytes: WAITING_BYTES },
    onOverload: deps.onOverload,
    sessionContext: deps.sessionContext,
    terminalAnswers: deps.terminalAnswers,
    grants: deps.grants,
    people: deps.people ? () => deps.people!.list() : undefined,
  };
  const away = deps.away ?? createAwaySwitch();
  // A page paired for a person has that person's switch; the CLI and a page paired for nobody, the daemon's own user's (who also sees who else is away).
  const awayState = (viewer: Viewer): AwayReply => {
    const turnEnds = deps.turnEnds?.() ?? { reach: 'everywhere' as const, gaps: [] };
    if (viewer.kind === 'person' && viewer.person !== undefined) return { away: away.isAway(viewer.person), turnEnds };
    const awayPeople = viewer.kind === 'local' ? away.awayPeople() : [];
    return { away: away.isAway(), turnEnds, ...(awayPeople.length > 0 ? { awayPeople: [...awayPeople] } : {}) };
  };
  const decisions = deps.decisions ?? createPersonDecisions(deps.store, deps.grants);
  const context: RouteContext = { store: deps.store, decisions, desk, auth, watchers, deps, away, awayState, port: listeningPort, openApi: () => openApi.document() };
  await app.register(hookRoutes, context);
  await app.register(asksRoutes, context);
  await app.register(attachRoutes, context);
  await app.register(historyRoutes, context);
  await app.register(pairingRoutes, context);
  await app.register(deviceRoutes, context);
  await app.register(pushRoutes, context);
  await app.register(oneTapRoutes, context);
  await app.register(eventRoutes, context);
  await app.register(statusRoutes, context);
  await app.register(sessionRoutes, context);
  await app.register(grantRoutes, context);
  await app.register(peopleRoutes, context);
  await app.register(routeExplainRoutes, context);
  await app.register(pageRoutes, { folder: deps.pageFolder, command: deps.command });

  app.decorate('askbridge', {
    auth,
    setPublicUrl(next: PublicUrl | undefined): void {
      auth.setPublicUrl(next);
      // A page open through the old address would go on seeing every question: it is closed now, as
      // each of its requests is refused from now on.
      for (const socket of watchers.sockets) {
        if (!auth.isAllowedHost(watchers.hostOf.get(socket))) socket.close(ADDRESS_GONE_CLOSE_CODE, 'this address is no longer the public URL');
      }
    },
    watcherCount: () => watchers.sockets.size,
    viewersInView: (): Viewer[] => [...new Map([...watchers.visible].map((socket) => watchers.viewerOf.get(socket) ?? { kind: 'local' as const }).map((viewer) => [JSON.stringify(viewer), viewer])).values()],
    onPageVisibility(listener: () => void): () => void {
      watchers.visibilityListeners.add(listener);
      return () => watchers.visibilityListeners.delete(listener);
    },
    broadcast: (message: ServerMessage) => broadcast(watchers, message),
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    askbridge: {
      auth: ReturnType<typeof createAuth>;
      /** From now on the daemon is reached at this public URL besides loopback (none: loopback only); pages open through the old one are closed. */
      setPublicUrl: (next: PublicUrl | undefined) => void;
      /** Pages and CLI listeners connected now: is anybody watching? */
      watcherCount: () => number;
      /** Who looks at the connected pages that say a person can see them now, each viewer once. */
      viewersInView: () => Viewer[];
      /** Told when a page comes into view or leaves it. */
      onPageVisibility: (listener: () => void) => () => void;
      broadcast: (message: ServerMessage) => void;
    };
  }
}

/** Every route says what it replies, for every status: so its replies are checked, and documented. */
export function requireReplySchemas(route: RouteOptions): void {
  if (!route.schema?.response || Object.keys(route.schema.response).length === 0) throw new Error(`${route.method} ${route.url} has no response schema`);
}

/**
 * Whether a request carried a credential that is valid now: the local token or a paired page, the
 * current hook key, or a command hook's signature (its route marks the request once checked). Checked here, not only read from what the guard found: a route open to the
 * hook key refuses a body before its own key check runs, and the guard does not look for the token there.
 */
function hasCredential(request: FastifyRequest, auth: ReturnType<typeof createAuth>, deps: AppDeps): boolean {
  const kind = request.principal?.kind;
  if (kind === 'local' || kind === 'page' || kind === 'hook' || auth.isLocalToken(request.headers.authorization) === true) return true;
  const key = request.headers[HOOK_KEY_HEADER];
  return typeof key === 'string' && key !== '' && deps.acceptsHookKey?.(key) === true;
}

/** Refused requests without a credential are summed up at most this often. */
export const REFUSAL_SUMMARY_MS = 60_000;
/** Distinct (status, code, method, route) kept apart in one summary; the rest are counted together. */
const REFUSAL_KINDS_KEPT = 50;

/**
 * Counts refusals by kind and logs one line per REFUSAL_SUMMARY_MS while there are any (and one at
 * close), and the first of each kind in that time at once (a hook key left behind by a rotation is
 * seen when it is first refused): the number of lines a flood can write is bounded by time and by
 * REFUSAL_KINDS_KEPT, not by its number of requests. A kind names only the route's pattern and the
 * daemon's own code, never request text.
 */
function createRefusalTally(log: (fields: Record<string, unknown>, message: string) => void) {
  let counts = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (counts.size === 0) return;
    const refused = Object.fromEntries(counts);
    counts = new Map();
    log({ refused, total: Object.values(refused).reduce((sum, count) => sum + count, 0) }, 'requests refused without a valid credential');
  };
  return {
    count(kind: string, first: { url: string; code: string }): void {
      if (!counts.has(kind) && counts.size < REFUSAL_KINDS_KEPT) log(first, 'request refused without a valid credential: the first of its kind, the rest are counted');
      const key = counts.has(kind) || counts.size < REFUSAL_KINDS_KEPT ? kind : 'other';
      counts.set(key, (counts.get(key) ?? 0) + 1);
      timer ??= setTimeout(flush, REFUSAL_SUMMARY_MS).unref();
    },
    close(): void {
      clearTimeout(timer);
      flush();
    },
  };
}

/** A request part that does not match its schema: 400 `invalid_request`, naming the part (its schema's title) and every bad field. */
function invalidRequest(error: FastifyError, request: FastifyRequest): HttpError {
  const part = error.validationContext ?? 'body';
  const schema = (request.routeOptions.schema as Record<string, z.ZodType | undefined> | undefined)?.[part];
  const what = schema?.meta()?.title ?? `request ${part}`;
  const prefix = part === 'body' ? request.routeOptions.config.bodyName : undefined;
  const problems = (error.validation ?? []).map(({ instancePath, message }) => {
    const path = [prefix, ...instancePath.split('/')].filter(Boolean).join('.');
    return path ? `${path}: ${message}` : `${message}`;
  });
  return new HttpError(400, 'invalid_request', `invalid ${what}: ${problems.slice(0, 5).join('; ')}`, problems);
}

/**
 * Replies are checked against the route's schema, then written as they are: zod's own output would
 * copy records, where a key named `__proto__` (a question's text, in answers) would stop being an own key.
 */
const replySerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema, method, url }) => {
  return (data) => {
    const checked = checkShape(schema, data);
    if (!checked.ok) throw new Error(`${method} ${url}: the reply does not match its schema: ${describeZodError(checked.error).slice(0, 5).join('; ')}`);
    return JSON.stringify(data);
  };
};

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** fastify types these factories for ajv's and fast-json-stringify's compilers; it calls zod's the same way (as setValidatorCompiler does). */
const ZOD_COMPILERS = { buildValidator: () => validatorCompiler, buildSerializer: () => replySerializerCompiler } as unknown as CompilersFactory;

export type App = Awaited<ReturnType<typeof buildApp>>;

