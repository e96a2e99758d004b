// Web Push: a paired device subscribes (its browser's push service endpoint and keys), and gets a
// push when a question waits and no page is in view. The daemon's VAPID key pair is made once and
// kept as a document (documents.ts: the state directory's file, or with a shared store, the first
// daemon's keys, with which every daemon on it signs); subscriptions are a document too, so one made
// through any daemon is pushed by whichever daemon tells. A push service ties a subscription to the
// keys it was made for, so each names them: a daemon that adopts the store's keys (its own differed)
// drops the subscriptions made for its old ones, and their pages make new ones on their next visit
// (notify.js renews a subscription made for other keys). Subscriptions are kept per paired device, and go when the device is
// unpaired or expires, or when its push service says the subscription is gone (404, 410). web-push
// encrypts each payload for its device (RFC 8291, aes128gcm) and signs the VAPID JWT; fetch sends it,
// in the background, so a push never waits in an answer's way. A subscription's endpoint comes from a
// page: it must be https to a push service browsers use (outbound-url.ts), when the page subscribes
// and again before each push, so no endpoint on disk from before the rule is ever sent to either.
// web-push (and its crypto libraries) is loaded with the first push, not at start: the daemon starts
// on the hook's path, and most starts send no push.
import { createECDH } from 'node:crypto';
import { z } from 'zod';
import { pushEndpointProblem } from '../outbound-url.js';
import type { PushSubscriptionJson } from '../protocol.js';
import { fileDocuments, type Documents } from './documents.js';
import { readJsonFile } from './json-file.js';
import type { Notice } from './notice.js';

export type PushLog = {
  info: (fields: Record<string, unknown>, message: string) => void;
  warn: (fields: Record<string, unknown>, message: string) => void;
};

export type PushOptions = {
  /** Where the keys and subscriptions are kept (default: the files alone, no store). */
  documents?: Documents;
  /** vapid-keys.json and push-subscriptions.json in the state directory. */
  paths: { vapidKeys: string; pushSubscriptions: string };
  /** Who sends, for push services that want to know (an https URL or mailto:), in every VAPID JWT: asked at each push, so it follows the public URL. */
  subject: () => string;
  log: PushLog;
  now?: () => number;
  /** How long one push may take, the push service's answer included. */
  timeoutMs?: number;
  /** For tests only (ASKBRIDGE_TEST_PUSH_SERVICE): the one origin taken as a push service besides the real ones. */
  testPushService?: string | undefined;
};

const VapidKeysSchema = z.object({ publicKey: z.string().regex(/^[A-Za-z0-9_-]{87}$/), privateKey: z.string().regex(/^[A-Za-z0-9_-]{43}$/) });
type VapidKeys = z.infer<typeof VapidKeysSchema>;
/** `vapidKey`: the public key it was made for (absent: kept before subscriptions named it, and named at the next start). */
const StoredSchema = z.array(z.object({ deviceId: z.string(), endpoint: z.string(), keys: z.object({ p256dh: z.string(), auth: z.string() }), subscribedAt: z.number(), vapidKey: z.string().optional() }));
type Stored = z.infer<typeof StoredSchema>[number];

const TIMEOUT_MS = 10_000;
/** A push service takes about 4 KB per message once encrypted; the full text gives way first. */
const PAYLOAD_LIMIT_BYTES = 3_000;
/** Browsers show at most two buttons on a notification (Chromium's Notification.maxActions): a question with more gets none. */
export const PUSH_ACTIONS = 2;

/**
 * A new P-256 key pair, as web-push's generateVAPIDKeys() makes it: the public key uncompressed (65
 * bytes), the private key 32 bytes (a shorter one padded with leading zeros), both base64url.
 */
function newVapidKeys(): VapidKeys {
  const curve = createECDH('prime256v1');
  const publicKey = curve.generateKeys();
  const privateKey = curve.getPrivateKey();
  const padded = (key: Buffer, length: number) => Buffer.concat([Buffer.alloc(Math.max(0, length - key.length)), key]);
  return { publicKey: padded(publicKey, 65).toString('base64url'), privateKey: padded(privateKey, 32).toString('base64url') };
}

/**
 * What a push carries, as the service worker (sw.js) reads it: the notice, with a question's options
 * only when they all fit as buttons (they answer it), and without the question text when it would not fit.
 */
export function pushPayload(notice: Notice): string {
  const shown = notice.options && notice.options.length > PUSH_ACTIONS ? { ...notice, options: undefined } : notice;
  const payload = JSON.stringify(shown);
  return Buffer.byteLength(payload) > PAYLOAD_LIMIT_BYTES ? JSON.stringify({ ...shown, questions: undefined }) : payload;
}

type WebPush = typeof import('web-push');
let webPush: Promise<WebPush> | undefined;
/** web-push, loaded once, by the first push. A CommonJS module: its exports are the namespace's default (which its types leave out). */
const loadWebPush = () => (webPush ??= import('web-push').then((module) => (module as unknown as { default: WebPush }).default));

/** Opens Web Push; throws when the keys cannot be made or kept (a full or read-only disk, a shared store that cannot be reached). */
export function createPush(options: PushOptions) {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const documents = options.documents ?? fileDocuments;
  // This state directory's own keys, before a shared store's are read: the subscriptions kept
  // before they named their keys were made for these.
  const ownKey = readJsonFile(options.paths.vapidKeys, VapidKeysSchema)?.publicKey;
  let keysUnreadable: string | undefined;
  const keysDocument = documents.open('vapid-keys', options.paths.vapidKeys, VapidKeysSchema, (reason) => {
    keysUnreadable = reason;
  });
  const subscriptionsDocument = documents.open('push-subscriptions', options.paths.pushSubscriptions, StoredSchema, (reason) =>
    options.log.warn({ path: options.paths.pushSubscriptions, reason }, 'the push subscriptions could not be read: devices must turn push on again'),
  );
  /** Keys that cannot be read are replaced, and with them every subscription, which push services tie to the keys they were made for. */
  const madeKeys = (): VapidKeys => {
    if (keysUnreadable !== undefined) {
      options.log.warn({ path: options.paths.vapidKeys, reason: keysUnreadable }, 'the VAPID keys could not be read: new ones are made, and every device must turn push on again');
      subscriptionsDocument.update(() => []);
    }
    const made = newVapidKeys();
    return keysDocument.update((current) => current ?? made);
  };
  let keys: VapidKeys = keysDocument.read() ?? madeKeys();
  const adopted = (next: VapidKeys) => {
    if (ownKey !== undefined && next.publicKey !== ownKey) options.log.warn({ publicKey: next.publicKey }, "Web Push signs with the shared store's VAPID keys: the devices that turned push on through this daemon before get pushes again once their page is opened (it subscribes anew)");
  };
  adopted(keys);
  keysDocument.onChange((next) => {
    if (next.publicKey === keys.publicKey) return;
    keys = next;
    adopted(next);
  });
  let subscriptions: Stored[] = subscriptionsDocument.read() ?? [];
  subscriptionsDocument.onChange((value) => {
    subscriptions = value;
  });
  const stopping = new AbortController();
  const endpointProblem = (endpoint: string) => pushEndpointProblem(endpoint, options.testPushService);
  /** Whether a subscription was made for the keys the daemon signs with now: a push service refuses any other. */
  const madeForKeys = (stored: Stored) => (stored.vapidKey ?? keys.publicKey) === keys.publicKey;

  /** Makes a change to the subscriptions as kept (with a shared store, on another daemon's made meanwhile too); throws when it cannot be kept. */
  const save = (change: (current: Stored[]) => Stored[]) => {
    subscriptions = subscriptionsDocument.update((current) => change(current ?? []));
  };
  // Those kept before subscriptions named their keys were made for this state directory's own: named
  // now, before a shared store has them (where a daemon with other keys would take them for its own).
  if (ownKey !== undefined && subscriptions.some((stored) => stored.vapidKey === undefined)) {
    try {
      save((current) => current.map((stored) => (stored.vapidKey === undefined ? { ...stored, vapidKey: ownKey } : stored)));
    } catch (error) {
      options.log.warn({ error: (error as Error).message }, 'push subscriptions could not be written');
    }
  }
  /**
   * Drops the subscriptions that match, which the daemon will not push to whatever the disk says (a
   * push service said they are gone, the device is unpaired, the endpoint is not a push service, it
   * was made for other keys): a failed write is only logged, and each push checks the same again.
   */
  function drop(match: (stored: Stored) => boolean, why: string): void {
    const removed = subscriptions.filter(match).length;
    if (removed === 0) return;
    try {
      save((current) => current.filter((stored) => !match(stored)));
    } catch (error) {
      subscriptions = subscriptions.filter((stored) => !match(stored));
      options.log.warn({ error: (error as Error).message }, 'push subscriptions could not be written');
    }
    options.log.info({ removed, why }, 'push subscription removed');
  }

  async function pushTo(stored: Stored, payload: string, ttlSeconds: number, askId: string): Promise<void> {
    const where = { device: stored.deviceId, to: new URL(stored.endpoint).origin, askId };
    try {
      const webpush = await loadWebPush();
      const request = webpush.generateRequestDetails({ endpoint: stored.endpoint, keys: stored.keys }, payload, { vapidDetails: { subject: options.subject(), publicKey: keys.publicKey, privateKey: keys.privateKey }, TTL: ttlSeconds, urgency: 'high' });
      // fetch sets the length itself; every other header as web-push made it.
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== 'content-length').map(([name, value]) => [name, String(value)]));
      const response = await fetch(request.endpoint, {
        method: 'POST',
        headers,
        body: new Uint8Array(request.body),
        redirect: 'error',
        signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]),
      });
      await response.body?.cancel();
      if (response.status === 404 || response.status === 410) drop((other) => other.endpoint === stored.endpoint, `the push service answered ${response.status}: the subscription is gone`);
      else if (!response.ok) options.log.warn({ ...where, status: response.status }, 'push refused by the push service');
      else options.log.info(where, 'push sent');
    } catch (error) {
      if (!stopping.signal.aborted) options.log.warn({ ...where, error: ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message }, 'push not sent');
    }
  }

  return {
    /** The public key a subscription is made for now. */
    publicKey: () => keys.publicKey,

    /** Why the daemon would not push to this endpoint, or undefined when it would (outbound-url.ts). */
    endpointProblem,

    isSubscribed: (deviceId: string) => subscriptions.some((stored) => stored.deviceId === deviceId && madeForKeys(stored)),

    /** How many of these paired devices a push would reach: who could be told. */
    subscribedDevices: (pairedDevices: readonly string[]) => new Set(subscriptions.filter((stored) => pairedDevices.includes(stored.deviceId) && madeForKeys(stored)).map((stored) => stored.deviceId)).size,

    /**
     * Keeps this device's subscription (one per device; a browser that moved to another device keeps
     * only the newest). Throws when it cannot be saved; the caller has checked its endpoint (endpointProblem).
     */
    subscribe(deviceId: string, subscription: PushSubscriptionJson): void {
      const made: Stored = {
        deviceId,
        endpoint: subscription.endpoint,
        // Unpadded, as web-push reads them (some browsers pad).
        keys: { p256dh: subscription.keys.p256dh.replace(/=+$/, ''), auth: subscription.keys.auth.replace(/=+$/, '') },
        subscribedAt: now(),
        vapidKey: keys.publicKey,
      };
      save((current) => [...current.filter((stored) => stored.deviceId !== deviceId && stored.endpoint !== subscription.endpoint), made]);
    },

    /**
     * Forgets a device's subscription once that is on disk: it unsubscribed, or it was unpaired. Throws
     * when it cannot be saved, and the subscription stays, so that a restart never brings back pushes
     * to a device that turned them off.
     */
    unsubscribe(deviceId: string): void {
      if (!subscriptions.some((stored) => stored.deviceId === deviceId)) return;
      save((current) => current.filter((stored) => stored.deviceId !== deviceId));
      options.log.info({ device: deviceId }, 'push subscription removed');
    },

    /**
     * Pushes a notice to every subscribed device that is still paired and that `tells` names (the
     * ask's route), in the background; a device's push service may keep it `ttlSeconds` while the device is offline.
     */
    send(notice: Notice, to: { pairedDevices: readonly string[]; tells: (deviceId: string) => boolean; ttlSeconds: number }): void {
      if (stopping.signal.aborted) return;
      const paired = new Set(to.pairedDevices);
      drop((stored) => !paired.has(stored.deviceId), 'the device is no longer paired');
      drop((stored) => endpointProblem(stored.endpoint) !== undefined, 'its endpoint is not a push service');
      drop((stored) => !madeForKeys(stored), 'it was made for other VAPID keys: its page subscribes anew when it is opened');
      const payload = pushPayload(notice);
      for (const stored of subscriptions) if (to.tells(stored.deviceId)) void pushTo(stored, payload, Math.max(0, Math.round(to.ttlSeconds)), notice.id);
    },

    close(): void {
      stopping.abort();
    },
  };
}

export type Push = ReturnType<typeof createPush>;
