// The asks of every daemon sharing the store, on every one of them. A daemon writes each ask it
// holds (its hook or relay is connected there) to `asks` as it changes, and says so on the channel
// `askbridge` (NOTIFY); every other daemon reads it and shows it (store.mirror()). Only the holder
// can hand an answer to the ask's hook, so it alone settles it: a decision another daemon gets is
// written to `requests` and sent to the holder, which decides it as if it had been sent there (in
// one event loop, so the first decision wins across daemons), and that daemon replies with the
// holder's result. Notifications can be missed (a connection that broke), so whatever listens reads
// everything again each time it connects, and every little while: a notification only says what to
// read. The same connection hears of the documents another daemon changed (documents.ts). It knows
// nothing of HTTP; pg is loaded only with a store (postgres.ts).
import type { Pool, PoolClient, Notification } from 'pg';
import { z } from 'zod';
import { AskViewSchema, type AskView, type Decider } from '../protocol.js';
import type { AskStore } from './asks/store.js';
import type { Viewer } from '../route-access.js';
import { STORE_CHANNEL as CHANNEL, type StoreLog } from '../store/postgres.js';
import type { SharedDocuments } from './documents.js';
import { DecisionRequestSchema, resultFromJson, resultToJson, type DecisionResult, type PersonDecision, type PersonDecisions, type Unavailable } from './asks/person-decisions.js';

/** How long a daemon waits for the holder's result before it says the holder could not be reached. */
export const FORWARD_TIMEOUT_MS = 5_000;
/**
 * A daemon not seen for this many of its intervals, and at least GONE_AFTER_MS, is gone: its asks
 * leave the others. The floor keeps a daemon held up a moment (a busy machine) from losing its asks elsewhere.
 */
const GONE_AFTER_INTERVALS = 3;
const GONE_AFTER_MS = 5_000;

/** What a notification says: an ask changed (written by its holder), a request for a holder, a result for a sender, a document changed. */
const MessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ask'), id: z.string(), daemon: z.string() }),
  z.object({ kind: z.literal('request'), id: z.string(), holder: z.string() }),
  z.object({ kind: z.literal('result'), id: z.string(), sender: z.string() }),
  z.object({ kind: z.literal('document'), name: z.string(), daemon: z.string() }),
  z.object({ kind: z.literal('pages'), daemon: z.string(), viewers: z.array(z.union([z.object({ kind: z.literal('local') }), z.object({ kind: z.literal('person'), person: z.string().optional() })])) }),
]);
type Message = z.infer<typeof MessageSchema>;

export type SharedAsksOptions = {
  pool: Pool;
  /** This daemon's id in `daemons`. */
  daemon: string;
  store: AskStore;
  decisions: PersonDecisions;
  log: StoreLog;
  /** The documents shared through the store (documents.ts): a change another daemon tells is read here. */
  documents?: SharedDocuments;
  /** How often everything is read again, and the listening connection checked; also how often daemons are seen (postgres.ts). */
  checkEveryMs: number;
  forwardTimeoutMs?: number;
  /** The pages in view here (who looks at each, once): told to the others, so that none notifies a person who is looking at a page of another daemon. */
  pagesInView: () => Viewer[];
  /** The pages in view at another daemon changed. */
  onPagesElsewhere: () => void;
};

export type SharedAsks = {
  /** Whether another daemon sharing the store is alive, and the store answers: someone may answer there. */
  othersReachable: () => boolean;
  /** Who looks at a page of another daemon now, as those daemons last said (within the time a daemon is taken for gone). */
  pagesElsewhere: () => Viewer[];
  /** The pages in view here changed: the others are told. */
  pagesChanged: () => void;
  /** Writes what is still to be written, and stops listening. */
  close: () => Promise<void>;
};

const unavailable = (code: Unavailable['code'], message: string): Unavailable => ({ kind: 'unavailable', code, message });
const STORE_UNREACHABLE = 'the shared store cannot be reached, and another daemon holds this ask: decide it there, or once the store is back';

export function shareAsks(options: SharedAsksOptions): SharedAsks {
  const { pool, daemon: me, store, log } = options;
  const forwardTimeoutMs = options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS;
  let listener: PoolClient | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let othersAlive = false;
  // Everything is read and written again at the next check: after a (re)connect, or a write that failed.
  let readAll = true;
  // Serialised: what is read is applied in the order it was read, so an ask's views come in order.
  let reading: Promise<void> = Promise.resolve();
  // The asks held here that changed and are not written yet, written one at a time, each as it is then.
  const toWrite = new Set<string>();
  let writing: Promise<void> | undefined;
  // Decisions sent to a holder, by request id: told its result.
  const waiting = new Map<string, (result: DecisionResult) => void>();

  const read = (work: () => Promise<void>) => {
    reading = reading.then(work).catch((error: unknown) => log.warn({ error: (error as Error).message }, 'the shared store could not be read: read again at the next check'));
  };
  const notify = (message: Message) => JSON.stringify(message);

  // ---- The asks held here: written as they change.

  store.subscribe((event) => {
    if (event.elsewhere) return;
    toWrite.add(event.ask.id);
    drain();
  });

  function drain(): void {
    if (writing || !listener) return;
    writing = (async () => {
      while (toWrite.size > 0 && listener) {
        const id = toWrite.values().next().value!;
        toWrite.delete(id);
        try {
          await write(id);
        } catch (error) {
          // Written again once the store is back (resync).
          readAll = true;
          log.warn({ askId: id, error: (error as Error).message }, 'an ask could not be written to the shared store');
        }
      }
    })().finally(() => {
      writing = undefined;
      if (toWrite.size > 0 && listener) drain();
    });
  }

  /** Writes an ask held here as it is now, and tells the others, when it changed there. */
  async function write(id: string): Promise<void> {
    const view = store.get(id);
    if (!view || store.holderOf(id) !== undefined) return;
    const told = notify({ kind: 'ask', id, daemon: me });
    if (view.status === 'pending') {
      await pool.query(
        `WITH written AS (
           INSERT INTO askbridge.asks (id, daemon, created_at, expires_at, record, view)
           VALUES ($1, $2, to_timestamp($3 / 1000.0), to_timestamp($4 / 1000.0), $5, $6)
           ON CONFLICT (id) DO UPDATE SET daemon = EXCLUDED.daemon, expires_at = EXCLUDED.expires_at, record = EXCLUDED.record, view = EXCLUDED.view
           WHERE askbridge.asks.outcome IS NULL AND (askbridge.asks.view IS DISTINCT FROM EXCLUDED.view OR askbridge.asks.daemon <> EXCLUDED.daemon)
           RETURNING id)
         SELECT pg_notify('${CHANNEL}', $7) FROM written`,
        [id, me, view.createdAt, view.expiresAt, JSON.stringify(store.recordOf(id) ?? {}), JSON.stringify(view), told],
      );
      return;
    }
    // Settled: once, for an ask that was written waiting (one settled as it was asked never was).
    await pool.query(
      `WITH written AS (
         UPDATE askbridge.asks SET view = $2, outcome = $3, settled_at = to_timestamp($4 / 1000.0)
         WHERE id = $1 AND outcome IS NULL
         RETURNING id)
       SELECT pg_notify('${CHANNEL}', $5) FROM written`,
      [id, JSON.stringify(view), JSON.stringify({ status: view.status, source: view.source }), view.resolvedAt ?? Date.now(), told],
    );
  }

  // ---- The others' asks: read and shown.

  /** Shows another daemon's ask as it is written now. */
  async function readAsk(id: string): Promise<void> {
    const { rows } = await pool.query<{ daemon: string; view: unknown }>('SELECT daemon, view FROM askbridge.asks WHERE id = $1', [id]);
    const row = rows[0];
    if (!row) return store.forget(id);
    if (row.daemon === me) return;
    const view = AskViewSchema.safeParse(row.view);
    if (view.success) store.mirror(view.data as AskView, row.daemon);
  }

  /**
   * What a notification that could have been missed would have said. After a (re)connect, or a
   * write that failed (`readAll`): this daemon's asks written again as they are here (one the store
   * still says waits, which this daemon no longer has, ended when it stopped), and every live
   * daemon's waiting asks read whole. At every check: the ids of the live daemons' waiting asks, so
   * that one not shown here is read, and one shown here that no longer waits there is settled or
   * taken off (its daemon gone, and its hook with it); the requests for this daemon answered, and
   * this daemon's own requests' results read. A change nobody missed is neither written nor told again.
   */
  async function resync(): Promise<void> {
    const all = readAll;
    readAll = false;
    const goneAfterSeconds = Math.max(GONE_AFTER_INTERVALS * options.checkEveryMs, GONE_AFTER_MS) / 1000;
    const live = `SELECT id FROM askbridge.daemons WHERE seen_at > now() - make_interval(secs => $2)`;
    if (all) {
      await options.documents?.resync();
      const ours = await pool.query<{ id: string }>('SELECT id FROM askbridge.asks WHERE daemon = $1 AND outcome IS NULL', [me]);
      for (const { id } of ours.rows) {
        if (store.get(id) && store.holderOf(id) === undefined) toWrite.add(id);
        else await endLost(id);
      }
      for (const view of store.pending()) if (store.holderOf(view.id) === undefined) toWrite.add(view.id);
      drain();
      const theirs = await pool.query<{ daemon: string; view: unknown }>(`SELECT daemon, view FROM askbridge.asks WHERE outcome IS NULL AND daemon <> $1 AND daemon IN (${live})`, [me, goneAfterSeconds]);
      for (const row of theirs.rows) {
        const view = AskViewSchema.safeParse(row.view);
        if (view.success) store.mirror(view.data as AskView, row.daemon);
      }
    }
    const waitingThere = await pool.query<{ id: string }>(`SELECT id::text AS id FROM askbridge.asks WHERE outcome IS NULL AND daemon <> $1 AND daemon IN (${live})`, [me, goneAfterSeconds]);
    const shown = new Set<string>();
    for (const { id } of waitingThere.rows) {
      shown.add(id);
      if (!store.get(id)) await readAsk(id);
    }
    for (const id of store.mirroredWaiting()) {
      if (shown.has(id)) continue;
      // Settled there meanwhile, or its daemon is gone (it is taken off: its hook went with it).
      const { rows } = await pool.query<{ view: unknown; outcome: unknown }>('SELECT view, outcome FROM askbridge.asks WHERE id = $1', [id]);
      const view = rows[0]?.outcome ? AskViewSchema.safeParse(rows[0].view) : undefined;
      if (view?.success) store.mirror(view.data as AskView, store.holderOf(id)!);
      else store.forget(id);
    }
    const others = await pool.query<{ count: string }>('SELECT count(*) FROM askbridge.daemons WHERE seen_at > now() - make_interval(secs => $1) AND id <> $2', [goneAfterSeconds, me]);
    othersAlive = Number(others.rows[0]?.count ?? 0) > 0;

    const requests = await pool.query<{ id: string }>('SELECT id::text AS id FROM askbridge.requests WHERE holder = $1 AND result IS NULL', [me]);
    for (const { id } of requests.rows) await answerRequest(id);
    for (const id of waiting.keys()) await readResult(id);
    await pool.query(`DELETE FROM askbridge.requests WHERE created_at < now() - interval '1 day'`);
  }

  /** An ask the store says this daemon holds, which it does not have (it stopped, or was killed, meanwhile): ended, as its hook is gone. */
  async function endLost(id: string): Promise<void> {
    const view = store.get(id);
    const source = { kind: 'daemon-stopped' };
    await pool.query(
      `WITH written AS (
         UPDATE askbridge.asks SET outcome = $2, settled_at = now(),
           view = view || jsonb_build_object('status', 'handed-to-terminal', 'source', $3::jsonb, 'resolvedAt', (extract(epoch FROM now()) * 1000)::bigint)
         WHERE id = $1 AND outcome IS NULL
         RETURNING id)
       SELECT pg_notify('${CHANNEL}', $4) FROM written`,
      [id, JSON.stringify({ status: view?.status ?? 'handed-to-terminal', source }), JSON.stringify(source), notify({ kind: 'ask', id, daemon: me })],
    );
  }

  // ---- Decisions for the others' asks: sent to their holder.

  async function forward(holder: string, id: string, decision: PersonDecision, by: Decider): Promise<DecisionResult> {
    if (!listener) return unavailable('store_unreachable', STORE_UNREACHABLE);
    let requestId: string;
    try {
      const { rows } = await pool.query<{ id: string }>(
        `WITH made AS (INSERT INTO askbridge.requests (ask, holder, sender, body) VALUES ($1, $2, $3, $4) RETURNING id)
         SELECT id::text AS id, pg_notify('${CHANNEL}', json_build_object('kind', 'request', 'id', id::text, 'holder', $2::text)::text) FROM made`,
        [id, holder, me, JSON.stringify({ decision, by })],
      );
      requestId = rows[0]!.id;
    } catch {
      return unavailable('store_unreachable', STORE_UNREACHABLE);
    }
    const result = new Promise<DecisionResult>((resolve) => waiting.set(requestId, resolve));
    // It may have been answered before this daemon listened for it.
    read(() => readResult(requestId));
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), forwardTimeoutMs).unref());
    const first = await Promise.race([result, timeout]);
    if (first !== 'timeout') return first;
    waiting.delete(requestId);
    return await givenUp(requestId);
  }

  /** The holder did not answer in time: taken back when it never took it, else what it answered by now, if anything. */
  async function givenUp(requestId: string): Promise<DecisionResult> {
    try {
      const taken = await pool.query('DELETE FROM askbridge.requests WHERE id = $1 AND result IS NULL', [requestId]);
      if (taken.rowCount === 1) return unavailable('holder_unreachable', 'the daemon holding this ask did not take the decision: nothing was decided, and it still waits');
      const { rows } = await pool.query<{ result: unknown }>('DELETE FROM askbridge.requests WHERE id = $1 RETURNING result', [requestId]);
      const result = rows[0]?.result as { kind?: unknown } | undefined;
      if (result && result.kind !== 'taken') return resultFromJson(result);
    } catch {
      // Said below.
    }
    return unavailable('holder_unreachable', 'the daemon holding this ask took the decision but did not say what became of it: the ask shows it');
  }

  /** A result for this daemon: its request is removed, and its sender told. */
  async function readResult(requestId: string): Promise<void> {
    const resolve = waiting.get(requestId);
    if (!resolve) return;
    const { rows } = await pool.query<{ result: unknown }>(
      `DELETE FROM askbridge.requests WHERE id = $1 AND result IS NOT NULL AND result->>'kind' <> 'taken' RETURNING result`,
      [requestId],
    );
    if (rows.length === 0) return;
    waiting.delete(requestId);
    resolve(resultFromJson(rows[0]!.result));
  }

  /** A decision sent to this daemon: taken (once), decided here, and its result written for its sender. */
  async function answerRequest(requestId: string): Promise<void> {
    const { rows } = await pool.query<{ ask: string; sender: string; body: unknown }>(
      `UPDATE askbridge.requests SET result = '{"kind": "taken"}' WHERE id = $1 AND holder = $2 AND result IS NULL RETURNING ask::text AS ask, sender, body`,
      [requestId, me],
    );
    const request = rows[0];
    if (!request) return;
    const body = DecisionRequestSchema.safeParse(request.body);
    const result: DecisionResult = body.success
      ? await options.decisions.decideHere(request.ask, body.data.decision, body.data.by)
      : unavailable('holder_unreachable', `the daemon holding this ask could not read the decision: ${body.error.issues[0]?.message ?? 'not valid'}`);
    await pool.query(
      `WITH answered AS (UPDATE askbridge.requests SET result = $2 WHERE id = $1 RETURNING sender)
       SELECT pg_notify('${CHANNEL}', $3) FROM answered`,
      [requestId, JSON.stringify(resultToJson(result)), notify({ kind: 'result', id: requestId, sender: request.sender })],
    );
  }

  // ---- Listening.

  function onNotification(notification: Notification): void {
    if (notification.channel !== CHANNEL || notification.payload === undefined) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(notification.payload);
    } catch {
      return;
    }
    const message = MessageSchema.safeParse(parsed);
    if (!message.success) return;
    const { data } = message;
    if (data.kind === 'ask' && data.daemon !== me) read(() => readAsk(data.id));
    else if (data.kind === 'request' && data.holder === me) read(() => answerRequest(data.id));
    else if (data.kind === 'result' && data.sender === me) read(() => readResult(data.id));
    else if (data.kind === 'document' && data.daemon !== me && options.documents) read(() => options.documents!.changed(data.name));
    else if (data.kind === 'pages' && data.daemon !== me) takePages(data.daemon, data.viewers);
  }

  // ---- Pages in view: each daemon says who looks at its pages when that changes, and again at each
  // check while any does (a notification missed, or a daemon killed, is right again within one).

  const pagesAt = new Map<string, { viewers: Viewer[]; at: number }>();
  const pagesTrustedMs = Math.max(GONE_AFTER_INTERVALS * options.checkEveryMs, GONE_AFTER_MS);
  /** What this daemon last told, as JSON: an empty list is told once, a list of viewers at every check. */
  let pagesTold = '[]';

  function takePages(daemon: string, viewers: Viewer[]): void {
    const before = JSON.stringify(pagesElsewhere());
    if (viewers.length === 0) pagesAt.delete(daemon);
    else pagesAt.set(daemon, { viewers, at: Date.now() });
    const now = pagesElsewhere();
    if (JSON.stringify(now) === before) return;
    log.info({ viewers: now.length }, 'the pages in view at the other daemons changed');
    options.onPagesElsewhere();
  }

  function pagesElsewhere(): Viewer[] {
    const since = Date.now() - pagesTrustedMs;
    return [...pagesAt.values()].filter((told) => told.at > since).flatMap((told) => told.viewers);
  }

  /** Tells the others who looks at this daemon's pages: when it changed, or (`again`) while anyone does. */
  function tellPages(again: boolean): void {
    const viewers = options.pagesInView();
    const json = JSON.stringify(viewers);
    if (json === pagesTold && !(again && viewers.length > 0)) return;
    const client = listener;
    if (!client) return;
    pagesTold = json;
    client.query('SELECT pg_notify($1, $2)', [CHANNEL, notify({ kind: 'pages', daemon: me, viewers })]).catch((error: unknown) => {
      pagesTold = '';
      log.warn({ error: (error as Error).message }, 'the pages in view here could not be told to the other daemons: told again at the next check');
    });
  }

  function lose(client: PoolClient, error?: unknown): void {
    if (listener !== client) return;
    listener = undefined;
    othersAlive = false;
    client.release(true);
    if (error !== undefined) log.warn({ error: (error as Error).message }, 'the shared store stopped answering: the other daemons\' asks are read again once it is back');
    schedule(0);
  }

  async function connect(): Promise<void> {
    const client = await pool.connect();
    client.on('notification', onNotification);
    client.on('error', (error) => lose(client, error));
    client.on('end', () => lose(client));
    try {
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      client.release(true);
      throw error;
    }
    listener = client;
    readAll = true;
  }

  /** Connects when it is not, checks the connection when it is (a query on it), and reads everything again. */
  async function check(): Promise<void> {
    if (listener) {
      const client = listener;
      await client.query('SELECT 1').catch((error: unknown) => lose(client, error));
    }
    if (!listener) await connect();
    tellPages(true);
    await new Promise<void>((resolve) => read(() => resync().finally(resolve)));
  }

  function schedule(ms: number): void {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      check().then(
        () => schedule(options.checkEveryMs),
        () => schedule(Math.min(options.checkEveryMs, 2_000)),
      );
    }, ms);
    timer.unref();
  }

  options.decisions.forwardWith(forward);
  schedule(0);

  return {
    othersReachable: () => listener !== undefined && othersAlive,
    pagesElsewhere: () => (listener ? pagesElsewhere() : []),
    pagesChanged: () => tellPages(false),
    close: async () => {
      closed = true;
      clearTimeout(timer);
      drain();
      await writing;
      await reading;
      await options.documents?.flushed();
      for (const resolve of waiting.values()) resolve(unavailable('holder_unreachable', 'this daemon is stopping'));
      waiting.clear();
      if (listener) {
        const client = listener;
        listener = undefined;
        // Its pages close with it: the others know at once, not when what it said last grows old.
        if (pagesTold !== '[]') await client.query('SELECT pg_notify($1, $2)', [CHANNEL, notify({ kind: 'pages', daemon: me, viewers: [] })]).catch(() => undefined);
        client.release(true);
      }
    },
  };
}
