// The browser's side of Web Push, for a test that stands in for the push service: the keys a browser
// makes for a subscription, the decryption of what arrives (RFC 8291 with aes128gcm, RFC 8188), and
// the check of the VAPID Authorization header (RFC 8292: an ES256 JWT and the sender's public key).
// Node's crypto does it all; nothing here comes from the daemon's side.
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';

export type SubscriptionKeys = { ecdh: ECDH; auth: Buffer; json: { p256dh: string; auth: string } };

/** A P-256 key pair and a 16-byte auth secret, as a browser makes them when it subscribes. */
export function newSubscriptionKeys(): SubscriptionKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return { ecdh, auth, json: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
}

const hkdf = (salt: Buffer, ikm: Buffer, info: Buffer, length: number) => Buffer.from(hkdfSync('sha256', ikm, salt, info, length));

/** The plaintext of an aes128gcm push body encrypted for `keys`; throws when it was not. */
export function decryptPush(body: Buffer, keys: SubscriptionKeys): string {
  // Header: salt (16) | record size (4) | key id length (1) | key id: the sender's public key.
  const salt = body.subarray(0, 16);
  const keyIdLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + keyIdLength);
  const record = body.subarray(21 + keyIdLength);
  if (record.length > body.readUInt32BE(16)) throw new Error('a push body of more than one record');

  const shared = keys.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.ecdh.getPublicKey(), senderKey]);
  const ikm = hkdf(keys.auth, shared, keyInfo, 32);
  const contentKey = hkdf(salt, ikm, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = hkdf(salt, ikm, Buffer.from('Content-Encoding: nonce\0'), 12);

  const decipher = createDecipheriv('aes-128-gcm', contentKey, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends in 0x02, then any zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('the push body does not end as a last record does');
  return padded.subarray(0, end).toString('utf8');
}

export type VapidClaims = { aud: string; exp: number; sub: string };

/**
 * Checks `Authorization: vapid t=JWT, k=KEY`: the key is `publicKey`, the JWT is ES256 signed by it,
 * and its audience is the push service's origin. Returns the claims.
 */
export function checkVapid(authorization: string | undefined, expected: { publicKey: string; audience: string }): VapidClaims {
  const match = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
  if (!match) throw new Error(`not a VAPID Authorization header: ${authorization}`);
  const [, header, claims, signature, key] = match as unknown as [string, string, string, string, string];
  if (key !== expected.publicKey) throw new Error('the VAPID key is not the daemon’s');
  if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'ES256') throw new Error('the VAPID JWT is not ES256');
  const raw = Buffer.from(key, 'base64url'); // 0x04 | x (32) | y (32)
  const publicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') }, format: 'jwk' });
  const signed = verify('sha256', Buffer.from(`${header}.${claims}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!signed) throw new Error('the VAPID JWT signature does not verify');
  const parsed = JSON.parse(Buffer.from(claims, 'base64url').toString()) as VapidClaims;
  if (parsed.aud !== expected.audience) throw new Error(`the VAPID audience is ${parsed.aud}, not ${expected.audience}`);
  return parsed;
}
