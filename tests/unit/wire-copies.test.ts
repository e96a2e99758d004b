// The copies of wire names kept where the code cannot import their one definition: the answer page
// (a browser loads only its own modules) and the command hook (dependency-free CommonJS). Each copy
// must equal its source, or the page and the daemon, or the hook and the daemon, stop understanding
// each other without any type error to say so.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { openStateDir } from '../../src/state-dir.js';
import { describe, expect, it } from 'vitest';
import { AGENT_PROFILES } from '../../src/agents.js';
import { SERVICE_WORKER_POLICY } from '../../src/daemon/routes/page.js';
import { envHeader, HOOK_ENV, HOOK_KEY_HEADER, HTTP_HOOK_ENV, MACHINE_HEADER, STOP_CAP_HEADER } from '../../src/http-hook.js';
import { WIRED_EVENTS } from '../../src/wiring.js';
import { ANSWER_CLIENT_HEADER, HOOK_AGENTS, HookEnvironmentSchema, PAGE_KEY_HEADER, PAGE_KEY_PROTOCOL_PREFIX, PAGE_PROTOCOL, PAIRING_CODE_TTL_MS, REVOKED_CLOSE_CODE } from '../../src/protocol.js';

const page = (await import(new URL('../../src/web/api.js', import.meta.url).href)) as Record<string, unknown>;
const readText = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** A `const NAME = <JSON literal, single quotes allowed>;` in a file's text. */
function constantIn(text: string, name: string): unknown {
  const literal = new RegExp(`^const ${name} = (.+);$`, 'm').exec(text)?.[1];
  if (literal === undefined) throw new Error(`no const ${name} in the file`);
  return JSON.parse(literal.replaceAll("'", '"'));
}

describe("the page's copies of the daemon's wire names", () => {
  it.each([
    ['PAGE_KEY_HEADER', PAGE_KEY_HEADER],
    ['PAGE_PROTOCOL', PAGE_PROTOCOL],
    ['PAGE_KEY_PROTOCOL_PREFIX', PAGE_KEY_PROTOCOL_PREFIX],
    ['REVOKED_CLOSE_CODE', REVOKED_CLOSE_CODE],
    ['PAIRING_CODE_TTL_MS', PAIRING_CODE_TTL_MS],
  ])('%s in src/web/api.js is the one in protocol.ts', (name, shared) => {
    expect(page[name]).toBe(shared);
  });

  it('names every agent as its profile does (agents.ts); what each may decide comes with each ask', () => {
    expect(page.AGENT_NAMES).toEqual(Object.fromEntries(Object.entries(AGENT_PROFILES).map(([agent, profile]) => [agent, profile.name])));
    expect(page.AGENTS_THAT_STOP_TURN).toBeUndefined();
  });

  it('counts down a pairing link as long as the daemon keeps its code', () => {
    // routes/auth.ts keeps the codes, as long as protocol.ts says.
    const auth = readText('../../src/daemon/routes/auth.ts');
    expect(auth).toMatch(/\bPAIRING_CODE_TTL_MS\b[^;]*from '..\/..\/protocol.js'/);
    expect(auth).not.toMatch(/const PAIRING_CODE_TTL_MS\b/);
  });

  it("names the service worker's Trusted Types policy as the daemon's Content-Security-Policy allows it", () => {
    expect(constantIn(readText('../../src/web/notify.js'), 'SERVICE_WORKER_POLICY')).toBe(SERVICE_WORKER_POLICY);
  });
});

describe("the service worker's copies", () => {
  const worker = readText('../../src/web/sw.js');
  it.each([
    ['PAGE_KEY_HEADER', PAGE_KEY_HEADER],
    ['ANSWER_CLIENT_HEADER', ANSWER_CLIENT_HEADER],
    ['PAGE_KEY_CACHE', page.PAGE_KEY_CACHE],
    ['PAGE_KEY_CACHE_URL', page.PAGE_KEY_CACHE_URL],
  ])('%s in src/web/sw.js is the one the page and the daemon use', (name, shared) => {
    expect(constantIn(worker, name)).toBe(shared);
  });
});

describe("the command hook's copy of the forwarded environment", () => {
  it('forwards exactly the variables of HOOK_ENV, which the daemon accepts', () => {
    expect(constantIn(readText('../../hooks/askbridge-hook.cjs'), 'FORWARDED_ENV')).toEqual(HOOK_ENV);
    expect(Object.keys(HookEnvironmentSchema.parse(Object.fromEntries(HOOK_ENV.map((name) => [name, '1']))))).toEqual(HOOK_ENV);
  });

  it('reads whether the person is away where the daemon keeps it', () => {
    expect(constantIn(readText('../../hooks/askbridge-hook.cjs'), 'AWAY_FILE')).toBe(basename(openStateDir('/state').paths.away));
    expect(constantIn(readText('../../hooks/askbridge-hook.cjs'), 'HELD_ELICITATIONS_FILE')).toBe(basename(openStateDir('/state').paths.heldElicitations));
  });

  it('names exactly the agents of HOOK_AGENTS, Claude Code first (its default)', () => {
    expect(constantIn(readText('../../hooks/askbridge-hook.cjs'), 'AGENTS')).toEqual(HOOK_AGENTS);
    expect(HOOK_AGENTS[0]).toBe('claude-code');
  });
});

describe("the command hook's copies of the http hook's wire names, for the front", () => {
  const hook = readText('../../hooks/askbridge-hook.cjs');

  it("posts each event where Claude Code's http hook posts it, and hands over no other", () => {
    // Every event the wiring hands askbridge but SessionEnd, which the hook tells the daemon itself and never asks.
    const { SessionEnd: _told, ...asked } = WIRED_EVENTS;
    expect(constantIn(hook, 'HTTP_HOOK_PATHS')).toEqual(asked);
  });

  it('sends the hook key, the machine, the stop cap and the forwarded variables in the headers the daemon reads', () => {
    expect(constantIn(hook, 'HOOK_KEY_HEADER')).toBe(HOOK_KEY_HEADER);
    expect(constantIn(hook, 'MACHINE_HEADER')).toBe(MACHINE_HEADER);
    expect(constantIn(hook, 'STOP_CAP_HEADER')).toBe(STOP_CAP_HEADER);
    expect(constantIn(hook, 'ENV_HEADERS')).toEqual(Object.fromEntries(HTTP_HOOK_ENV.map((name) => [name, envHeader(name)])));
  });

  it('reads the hook key where the daemon keeps it', () => {
    expect(constantIn(hook, 'HOOK_KEY_FILE')).toBe(basename(openStateDir('/state').paths.hookKey));
  });
});
