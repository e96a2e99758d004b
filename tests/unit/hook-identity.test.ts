// The hello's bounds: what a flood of hellos can and cannot take from the hooks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHookIdentity, HOOK_HANDSHAKE_MS, isFromThisMachine, MAX_CHALLENGES, newNonce, signRequest, type HookCredentials } from '../../src/daemon/hook-identity.js';
import { REPO_ROOT } from '../stack/env.js';

const TOKEN = 'a-token-only-the-hook-and-the-daemon-can-read';
const BODY = JSON.stringify({ payload: {}, environment: {} });

/** A hook's hello, as the daemon answers it: the credentials its question is signed with. */
function helloAsHook(identity: ReturnType<typeof createHookIdentity>): HookCredentials {
  const hookNonce = newNonce();
  const hello = identity.hello(hookNonce);
  if (hello === 'busy') throw new Error('the hello was refused');
  return { daemonNonce: hello.nonce, hookNonce };
}

const questionSigned = (identity: ReturnType<typeof createHookIdentity>, credentials: HookCredentials) => identity.verifyRequest('question', signRequest(TOKEN, credentials, BODY), BODY);

/** Hellos with nobody behind them, until one is refused; how many were taken. */
function flood(identity: ReturnType<typeof createHookIdentity>, most: number): number {
  for (let taken = 0; taken < most; taken++) if (identity.hello(newNonce()) === 'busy') return taken;
  return most;
}

describe('a flood of hellos', () => {
  it('never takes the challenge of a hook between its hello and its question: hellos past the cap are refused while every challenge kept is that young', () => {
    let time = 1_000_000;
    const identity = createHookIdentity(TOKEN, () => time);
    const hook = helloAsHook(identity);
    time += 1;
    expect(flood(identity, 2 * MAX_CHALLENGES)).toBe(MAX_CHALLENGES - 1);
    time += HOOK_HANDSHAKE_MS - 1;
    expect(identity.hello(newNonce())).toBe('busy');
    expect(questionSigned(identity, hook)).toEqual(hook);
  });

  it('makes room, once the cap is reached, by dropping only challenges older than a hook takes to sign its question', () => {
    let time = 1_000_000;
    const identity = createHookIdentity(TOKEN, () => time);
    const stale = helloAsHook(identity);
    time += 1;
    const young = helloAsHook(identity);
    expect(flood(identity, MAX_CHALLENGES)).toBe(MAX_CHALLENGES - 2);

    time += HOOK_HANDSHAKE_MS;
    const next = helloAsHook(identity);
    expect(questionSigned(identity, stale)).toBe('bad-signature');
    expect(questionSigned(identity, young)).toEqual(young);
    expect(questionSigned(identity, next)).toEqual(next);
  });

  it('keeps a challenge at least as long as askbridge-hook.cjs waits for its handshake', () => {
    const hook = readFileSync(join(REPO_ROOT, 'hooks', 'askbridge-hook.cjs'), 'utf8');
    const handshakeMs = Number(/^const HANDSHAKE_TIMEOUT_MS = ([\d_]+);$/m.exec(hook)?.[1]?.replaceAll('_', ''));
    expect(handshakeMs).toBe(HOOK_HANDSHAKE_MS);
  });
});

describe('where a hello may come from', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1:7433', true],
    ['::1', '[::1]:7433', true],
    ['::ffff:127.0.0.1', 'localhost:7433', true],
    // Through the public URL's front: from loopback, but naming the public host.
    ['127.0.0.1', 'desk.tailnet.ts.net', false],
    ['127.0.0.1', 'askbridge.example.com:8443', false],
    // Another machine, straight to a daemon that serves beyond loopback (--listen), whatever Host it names.
    ['192.168.1.20', '127.0.0.1:8443', false],
    ['::ffff:10.0.0.7', 'localhost:8443', false],
    [undefined, '127.0.0.1:7433', false],
    ['127.0.0.1', undefined, false],
  ])('from %s naming %s: %s', (address, host, taken) => {
    expect(isFromThisMachine(address, host)).toBe(taken);
  });
});
