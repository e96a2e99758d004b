// The daemon's HTTP and WebSocket surface, in memory through inject()/injectWS().
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/daemon/app.js';
import type { StoredPageSession } from '../../src/daemon/routes/auth.js';
import type { AskView } from '../../src/protocol.js';
import { checkHello, newNonce, signRequest } from '../../src/daemon/hook-identity.js';
import { HOOK_KEY_HEADER, HTTP_HOOK_PATH } from '../../src/http-hook.js';
import { buildTestApp, HOOK_KEY, HOST, LOCAL, ORIGIN, PORT, TOKEN, type PairedPage, type TestApp } from '../stack/app.js';
import { loadFixture } from '../stack/fixtures.js';
import { helloThroughInject, hookBody } from '../stack/hook-client.js';

const singleSelect = loadFixture<Record<string, unknown>>('01-single-select.input.json');
const QUESTION_TEXT = 'Which database should the new orders service use?';

let daemon: TestApp;
let app: App;

beforeEach(async () => {
  daemon = await buildTestApp();
  app = daemon.app;
});
afterEach(async () => {
  await daemon.close();
});

/** Start a hook request, signed as the hook signs it; it stays open until the question settles. */
function askAsHook(payload: unknown = singleSelect) {
  return daemon.askAsHook(hookBody(payload));
}

/** Pairs a page the way the page does; its cookie is HttpOnly, SameSite=Strict, and never holds the key. */
async function pairPage(): Promise<PairedPage> {
  const page = await daemon.pairPage();
  expect(page.setCookie).toMatch(/HttpOnly/);
  expect(page.setCookie).toMatch(/SameSite=Strict/);
  expect(page.setCookie).not.toContain(page.key);
  return page;
}

describe('the hook endpoint', () => {
  it('holds the question until a person answers, then returns the decision', async () => {
    const hook = askAsHook();
    const [question] = await daemon.waitForPending();
    const answer = await app.inject({
      method: 'POST',
      url: `/api/asks/${question!.id}/answer`,
      headers: LOCAL,
      payload: { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] },
    });
    expect(answer.statusCode).toBe(200);
    const { lines } = await hook;
    expect(lines[0]).toMatchObject({ event: 'accepted', id: question!.id });
    expect(lines[1]).toMatchObject({ event: 'settled', status: 'answered' });
    // The decision as the hook prints it: the text itself, one JSON document.
    expect(JSON.parse(String(lines[1]?.decision))).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { answers: { [QUESTION_TEXT]: 'SQLite' } } } });
  });

  it.each([
    ['no questions', { ...singleSelect, tool_input: { questions: [] } }, 'payload.tool_input.questions'],
    ['five options', withOptions(5), 'payload.tool_input.questions.0.options'],
    ['one option', withOptions(1), 'payload.tool_input.questions.0.options'],
    ['duplicate labels', withLabels(['Same', 'Same']), 'payload.tool_input.questions.0.options.1.label'],
    ['an empty label', withLabels(['', 'B']), 'payload.tool_input.questions.0.options.0.label'],
    ['options that are not an array', loadFixture('91-malformed-options-not-array.input.json'), 'payload.tool_input.questions.0.options'],
    ['another tool', loadFixture('92-malformed-wrong-tool-name.input.json'), 'payload.tool_name'],
    ['no session id', { ...singleSelect, session_id: undefined }, 'payload.session_id'],
    ['a huge question', withQuestionText('x'.repeat(5000)), 'payload.tool_input.questions.0.question'],
  ])('refuses a payload with %s with a 400 that names the field', async (_case, payload, field) => {
    const response = await askAsHook(payload);
    expect(response.statusCode).toBe(400);
    const body = response.json<{ error: { code: string; details: string[] } }>();
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details.some((line) => line.startsWith(field))).toBe(true);
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: LOCAL })).json()).toEqual({ asks: [] });
  });

  it('refuses duplicate question texts in one call', async () => {
    const input = singleSelect.tool_input as { questions: unknown[] };
    const response = await askAsHook({ ...singleSelect, tool_input: { questions: [input.questions[0], input.questions[0]] } });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ error: { message: string } }>().error.message).toMatch(/duplicate question text/);
  });

  it('accepts and echoes back keys a newer Claude Code adds', async () => {
    const newer = loadFixture('11-newer-fields.input.json');
    const hook = askAsHook(newer);
    const [question] = await daemon.waitForPending();
    await app.inject({
      method: 'POST',
      url: `/api/asks/${question!.id}/answer`,
      headers: LOCAL,
      payload: { responses: [{ question: 'Should I remember this preference for future sessions?', selected: ['Yes, project memory'] }] },
    });
    const settled = (await hook).lines[1];
    expect(JSON.parse(String(settled?.decision))).toEqual(loadFixture('11-newer-fields.expected-allow.json'));
  });

  it('refuses malformed JSON and oversized bodies with a clear error', async () => {
    const malformed = await app.inject({ method: 'POST', url: '/api/hook/questions', headers: { ...LOCAL, 'content-type': 'application/json' }, payload: '{"payload":' });
    expect(malformed.statusCode).toBe(400);
    const huge = await app.inject({ method: 'POST', url: '/api/hook/questions', headers: { ...LOCAL, 'content-type': 'application/json' }, payload: JSON.stringify({ payload: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json<{ error: { code: string } }>().error.code).toBe('fst_err_ctp_body_too_large');
  });

  it('attaches the same session and tool call to one question, and both hooks get the answer', async () => {
    const first = askAsHook();
    await daemon.waitForPending();
    const second = askAsHook();
    const [question, ...others] = await daemon.waitForPending();
    expect(others).toHaveLength(0);
    await app.inject({ method: 'POST', url: `/api/asks/${question!.id}/answer`, headers: LOCAL, payload: { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] } });
    for (const hook of [await first, await second]) expect(hook.lines[1]).toMatchObject({ status: 'answered' });
  });
});

describe('answering', () => {
  it('lets the first answer win and tells a later one who won, with 409', async () => {
    const hook = askAsHook();
    const [question] = await daemon.waitForPending();
    const url = `/api/asks/${question!.id}/answer`;
    const first = await app.inject({ method: 'POST', url, headers: LOCAL, payload: { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] } });
    const second = await app.inject({ method: 'POST', url, headers: LOCAL, payload: { responses: [{ question: QUESTION_TEXT, selected: ['PostgreSQL (Recommended)'] }] } });
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ error: { code: 'already_resolved' }, ask: { status: 'answered', answers: { [QUESTION_TEXT]: 'SQLite' } } });
    expect(JSON.parse(String((await hook).lines[1]?.decision))).toMatchObject({ hookSpecificOutput: { updatedInput: { answers: { [QUESTION_TEXT]: 'SQLite' } } } });
  });

  it('refuses an invalid answer with 400 and keeps the question open', async () => {
    const hook = askAsHook();
    const [question] = await daemon.waitForPending();
    const url = `/api/asks/${question!.id}/answer`;
    const bad = await app.inject({ method: 'POST', url, headers: LOCAL, payload: { responses: [{ question: QUESTION_TEXT, selected: ['MySQL'] }] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'unknown_label' } });
    const empty = await app.inject({ method: 'POST', url, headers: LOCAL, payload: { responses: [] } });
    expect(empty.statusCode).toBe(400);
    const good = await app.inject({ method: 'POST', url, headers: LOCAL, payload: { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] } });
    expect(good.statusCode).toBe(200);
    await hook;
  });

  it('answers 404 for an unknown question and 400 for a malformed id', async () => {
    const unknown = await app.inject({ method: 'POST', url: '/api/asks/00000000-0000-4000-8000-000000000000/answer', headers: LOCAL, payload: { responses: [{ question: 'q', selected: ['a'] }] } });
    expect(unknown.statusCode).toBe(404);
    const malformed = await app.inject({ method: 'POST', url: '/api/asks/not-a-uuid/answer', headers: LOCAL, payload: { responses: [{ question: 'q', selected: ['a'] }] } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({ error: { code: 'invalid_request', message: 'invalid ask id: id: Invalid UUID', details: ['id: Invalid UUID'] } });
    // Refused by the router itself, before any route: still askbridge's error shape.
    const tooLong = await app.inject({ method: 'POST', url: `/api/asks/${'x'.repeat(300)}/answer`, headers: LOCAL, payload: { responses: [] } });
    expect(tooLong.statusCode).toBe(414);
    expect(tooLong.json()).toEqual({ error: { code: 'url_too_long', message: 'a part of the URL is too long' } });
    const badUrl = await app.inject({ method: 'GET', url: '/api/asks/%E0%A4%A', headers: LOCAL });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json()).toEqual({ error: { code: 'bad_url', message: 'the URL is not valid' } });
  });
});

describe('who may call', () => {
  it('refuses a Host that is not the daemon (DNS rebinding)', async () => {
    for (const host of ['evil.example:7433', `127.0.0.1:${PORT + 1}`, '127.0.0.1']) {
      const response = await app.inject({ method: 'GET', url: '/api/status', headers: { ...LOCAL, host } });
      expect(response.statusCode, host).toBe(403);
      expect(response.json()).toMatchObject({ error: { code: 'forbidden_host' } });
    }
  });

  it('refuses a foreign Origin on every route, the page included', async () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${PORT + 1}`, `https://${HOST}`, 'null', `${ORIGIN}/`]) {
      const response = await app.inject({ method: 'GET', url: '/', headers: { host: HOST, origin } });
      expect(response.statusCode, origin).toBe(403);
    }
  });

  it('refuses a missing or wrong token', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/status', headers: { host: HOST } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/status', headers: { host: HOST, authorization: 'Bearer wrong' } })).statusCode).toBe(401);
  });

  it('takes a hook question only signed with the token, over a nonce of its own hello, once', async () => {
    const body = hookBody(singleSelect);
    const signedWith = async (token: string) => {
      const hello = await helloThroughInject(app, HOST);
      const credentials = { daemonNonce: hello.nonce, hookNonce: hello.hookNonce };
      return { authorization: signRequest(token, credentials, body), credentials };
    };
    const post = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/api/hook/questions', headers: { host: HOST, 'content-type': 'application/json', ...headers }, payload: body });

    expect((await post({})).json()).toMatchObject({ error: { code: 'unsigned' } });
    expect((await post(LOCAL)).json()).toMatchObject({ error: { code: 'unsigned' } });
    const wrong = await post({ authorization: (await signedWith(`${TOKEN}x`)).authorization });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ error: { code: 'bad_signature' } });
    // A nonce the daemon never gave out, or one already spent.
    expect((await post({ authorization: signRequest(TOKEN, { daemonNonce: newNonce(), hookNonce: newNonce() }, body) })).statusCode).toBe(401);
    const { authorization } = await signedWith(TOKEN);
    const first = post({ authorization });
    await daemon.waitForPending();
    const replay = await post({ authorization });
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ error: { code: 'bad_signature' } });
    const [question, ...others] = await daemon.waitForPending();
    expect(others).toHaveLength(0);
    await app.inject({ method: 'POST', url: `/api/asks/${question!.id}/answer`, headers: LOCAL, payload: { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] } });
    expect((await first).statusCode).toBe(200);
  });

  it('proves its identity in the hello: only the token holder can compute the proof for the hook\'s nonce', async () => {
    const hello = await helloThroughInject(app, HOST);
    expect(checkHello(TOKEN, hello.hookNonce, hello)).toBe(true);
    expect(checkHello(`${TOKEN}x`, hello.hookNonce, hello)).toBe(false);
    expect(checkHello(TOKEN, newNonce(), hello)).toBe(false);
    expect(hello.proof).not.toContain(TOKEN);
  });

  it('never lets a request with an Origin act as the hook', async () => {
    for (const url of ['/api/hook/hello', '/api/hook/questions']) {
      const response = await app.inject({ method: 'POST', url, headers: { host: HOST, origin: ORIGIN }, payload: { nonce: newNonce() } });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ error: { code: 'hook_from_browser' } });
    }
  });

  it('does not let a paired page act as the hook', async () => {
    const { cookie } = await pairPage();
    const response = await app.inject({ method: 'POST', url: '/api/hook/questions', headers: { host: HOST, cookie, 'content-type': 'application/json' }, payload: hookBody(singleSelect) });
    expect(response.statusCode).toBe(401);
  });

  it('lets a paired page answer only with its exact Origin', async () => {
    const page = await pairPage();
    const hook = askAsHook();
    const [question] = await daemon.waitForPending();
    const url = `/api/asks/${question!.id}/answer`;
    const payload = { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] };
    const { origin: _origin, ...withoutOrigin } = page.headers;
    expect((await app.inject({ method: 'POST', url, headers: withoutOrigin, payload })).statusCode).toBe(403);
    expect((await app.inject({ method: 'POST', url, headers: { host: HOST }, payload })).statusCode).toBe(401);
    const answered = await app.inject({ method: 'POST', url, headers: page.headers, payload });
    expect(answered.statusCode).toBe(200);
    expect(answered.json()).toMatchObject({ ask: { source: { kind: 'person', client: 'page' } } });
    await hook;
  });

  it('spends a pairing code once', async () => {
    const code = app.askbridge.auth.createPairingCode();
    const pair = () => app.inject({ method: 'POST', url: '/api/pair', headers: { host: HOST, origin: ORIGIN }, payload: { code } });
    expect((await pair()).statusCode).toBe(200);
    const again = await pair();
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ error: { code: 'bad_pairing_code' } });
  });

  it('a cookie alone is worth nothing: every page request needs the key too, and the exact origin, GET included', async () => {
    const page = await pairPage();
    const hook = askAsHook();
    const [question] = await daemon.waitForPending();
    const url = `/api/asks/${question!.id}/answer`;
    const payload = { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] };
    // What a sibling server on another port gets from the browser, replayed with curl: the cookie.
    for (const headers of [
      { host: HOST, cookie: page.cookie },
      { host: HOST, cookie: page.cookie, origin: ORIGIN },
      { host: HOST, cookie: page.cookie, 'sec-fetch-site': 'same-origin' },
      { host: HOST, cookie: page.cookie, origin: ORIGIN, 'x-askbridge-key': 'guessed' },
    ]) {
      expect((await app.inject({ method: 'GET', url: '/api/asks', headers })).statusCode, JSON.stringify(headers)).toBeGreaterThanOrEqual(401);
      expect((await app.inject({ method: 'GET', url: `/api/asks/${question!.id}`, headers })).statusCode).toBeGreaterThanOrEqual(401);
      expect((await app.inject({ method: 'POST', url, headers, payload })).statusCode).toBeGreaterThanOrEqual(401);
      await expect(app.injectWS('/ws', { headers })).rejects.toThrow(/40[13]/);
    }
    // With the key but without the exact origin (no Origin, no Sec-Fetch-Site: same-origin): refused.
    const { origin: _origin, ...keyWithoutOrigin } = page.headers;
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: keyWithoutOrigin })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: { ...keyWithoutOrigin, origin: 'http://127.0.0.1:7434' } })).statusCode).toBe(403);
    // The page itself: a same-origin GET (no Origin, Sec-Fetch-Site: same-origin) and a POST with its Origin.
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: { ...keyWithoutOrigin, 'sec-fetch-site': 'same-origin' } })).statusCode).toBe(200);
    expect(app.askbridge.watcherCount()).toBe(0);
    expect((await app.inject({ method: 'POST', url, headers: page.headers, payload })).statusCode).toBe(200);
    await hook;
  });

  it('spends a pairing code only when the pairing is kept: a failed save leaves the code usable', async () => {
    let failing = true;
    let saved: StoredPageSession[] = [];
    const pageSessionStore = {
      load: () => saved,
      update: (change: (entries: StoredPageSession[]) => StoredPageSession[]) => {
        if (failing) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        saved = change(saved);
        return saved;
      },
    };
    const full = (await buildTestApp({ pageSessionStore })).app;
    const code = full.askbridge.auth.createPairingCode();
    const pair = () => full.inject({ method: 'POST', url: '/api/pair', headers: { host: HOST, origin: ORIGIN }, payload: { code } });
    const refused = await pair();
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ error: { code: 'pairing_not_saved', message: expect.stringContaining('ENOSPC') } });
    expect(refused.headers['set-cookie']).toBeUndefined();
    failing = false;
    expect((await pair()).statusCode).toBe(200);
    expect(saved).toHaveLength(1);
    await full.close();
  });

  it('limits guesses at pairing codes: a 429 after ten a minute, while a live code still pairs', async () => {
    const guess = (attempt: number) => app.inject({ method: 'POST', url: '/api/pair', headers: { host: HOST, origin: ORIGIN }, payload: { code: `guess-${attempt}` } });
    for (let page = 0; page < 12; page++) await pairPage(); // many pages paired at once are not guesses
    const attempts = [];
    for (let attempt = 0; attempt < 11; attempt++) attempts.push((await guess(attempt)).statusCode);
    expect(attempts.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(attempts[10]).toBe(429);
    await pairPage();
  });

  it('keeps a paired page paired across a daemon restart, through the page session store', async () => {
    let saved: StoredPageSession[] = [];
    const pageSessionStore = { load: () => saved, update: (change: (entries: StoredPageSession[]) => StoredPageSession[]) => (saved = change(saved)) };
    const build = async () => (await buildTestApp({ pageSessionStore })).app;
    const first = await build();
    const code = first.askbridge.auth.createPairingCode();
    const paired = await first.inject({ method: 'POST', url: '/api/pair', headers: { host: HOST, origin: ORIGIN }, payload: { code } });
    const cookie = String(paired.headers['set-cookie']).split(';')[0]!;
    const { key } = paired.json<{ key: string }>();
    await first.close();
    expect(saved).toHaveLength(1);
    expect(JSON.stringify(saved)).not.toContain(cookie.split('=')[1]);
    expect(JSON.stringify(saved)).not.toContain(key);

    const second = await build();
    expect((await second.inject({ method: 'GET', url: '/api/session', headers: { host: HOST, cookie, 'x-askbridge-key': key, 'sec-fetch-site': 'same-origin' } })).statusCode).toBe(200);
    expect((await second.inject({ method: 'GET', url: '/api/session', headers: { host: HOST, cookie, 'sec-fetch-site': 'same-origin' } })).statusCode).toBe(401);
    await second.close();
  });

  it('gives an unpaired page nothing but the static files', async () => {
    expect((await app.inject({ method: 'GET', url: '/', headers: { host: HOST } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/session', headers: { host: HOST } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/asks', headers: { host: HOST, cookie: `askbridge_${PORT}=forged` } })).statusCode).toBe(401);
  });

  it('serves the page under a strict Content-Security-Policy', async () => {
    const response = await app.inject({ method: 'GET', url: '/', headers: { host: HOST } });
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("require-trusted-types-for 'script'");
    // One Trusted Types policy, for the service worker's own URL; no HTML sink at all.
    expect(csp).toMatch(/; trusted-types askbridge-sw(;|$)/);
    expect(csp).toContain("manifest-src 'self'");
    expect(csp).toContain("worker-src 'self'");
    expect(csp.split('; ').filter((directive) => !/^(default-src 'none'|[a-z-]+ 'self'|base-uri 'none'|form-action 'none'|frame-ancestors 'none'|require-trusted-types-for 'script'|trusted-types askbridge-sw)$/.test(directive))).toEqual([]);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(response.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('refuses the [::1] name when the daemon does not hold [::1]', async () => {
    const v4only = (await buildTestApp({ holdsIpv6: () => false })).app;
    expect((await v4only.inject({ method: 'GET', url: '/', headers: { host: `[::1]:${PORT}` } })).statusCode).toBe(403);
    expect((await v4only.inject({ method: 'GET', url: '/', headers: { host: `localhost:${PORT}` } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/', headers: { host: `[::1]:${PORT}` } })).statusCode).toBe(200);
    await v4only.close();
  });
});

describe('the event stream', () => {
  it('refuses the WebSocket upgrade without a paired cookie and key, or with a foreign Origin', async () => {
    const page = await pairPage();
    const protocol = { 'sec-websocket-protocol': `askbridge, key.${page.key}` };
    await expect(app.injectWS('/ws', { headers: { host: HOST, origin: ORIGIN } })).rejects.toThrow(/401/);
    await expect(app.injectWS('/ws', { headers: { host: HOST, origin: ORIGIN, cookie: page.cookie } })).rejects.toThrow(/401/);
    await expect(app.injectWS('/ws', { headers: { host: HOST, origin: 'http://evil.example', cookie: page.cookie, ...protocol } })).rejects.toThrow(/403/);
    await expect(app.injectWS('/ws', { headers: { host: HOST, cookie: page.cookie, ...protocol } })).rejects.toThrow(/403/);
  });

  it('sends a snapshot, then every new and settled question', async () => {
    const { socket, messages, waitFor } = await daemon.openPageSocket(await pairPage());
    const next = (count: number) => waitFor(() => messages.length >= count);
    await next(3);
    expect(messages[0]).toEqual({ type: 'snapshot', asks: [] });
    expect(messages[1]).toEqual({ type: 'banner', message: null });
    expect(messages[2]).toEqual({ type: 'away', away: false, turnEnds: { reach: 'everywhere', gaps: [] } });
    expect(app.askbridge.watcherCount()).toBe(1);

    const hook = askAsHook();
    await next(4);
    expect(messages[3]).toMatchObject({ type: 'added', ask: { status: 'pending', cwd: '/home/alice/projects/acme-shop' } });
    const id = (messages[3] as { ask: AskView }).ask.id;
    await app.inject({ method: 'POST', url: `/api/asks/${id}/answer`, headers: LOCAL, payload: { responses: [{ question: QUESTION_TEXT, selected: ['SQLite'] }] } });
    await next(5);
    expect(messages[4]).toMatchObject({ type: 'resolved', ask: { id, status: 'answered', source: { kind: 'person', client: 'cli' } } });
    await hook;
    socket.terminate();
  });

  it('hears a page say whether it is in view, refuses any other message with its reason, and stays open', async () => {
    const { socket, messages, waitFor } = await daemon.openPageSocket(await pairPage());
    await waitFor(() => messages.length >= 3);
    const visiblePages = async () => (await app.inject({ method: 'GET', url: '/api/status', headers: LOCAL })).json<{ visiblePages: number }>().visiblePages;
    expect(app.askbridge.viewersInView()).toEqual([]);

    socket.send(JSON.stringify({ type: 'visibility', visible: true }));
    await vi.waitUntil(() => app.askbridge.viewersInView().length > 0);
    expect(app.askbridge.viewersInView()).toEqual([{ kind: 'person' }]);
    expect(await visiblePages()).toBe(1);

    const refusals: Array<[string | Buffer, RegExp]> = [
      [JSON.stringify({ type: 'visibility', visible: 'yes' }), /^invalid page message: visible: .*boolean/],
      [JSON.stringify({ type: 'visibility', visible: true, extra: 1 }), /^invalid page message: .*Unrecognized key: "extra"/],
      [JSON.stringify({ type: 'scroll' }), /^invalid page message: type: /],
      ['not json', /^a page message is JSON text$/],
      [Buffer.from([1, 2, 3]), /^a page message is JSON text$/],
      [JSON.stringify({ type: 'visibility', visible: false, pad: 'x'.repeat(2000) }), /^a page message is at most 1024 bytes$/],
    ];
    for (const [data, reason] of refusals) {
      const before = messages.length;
      socket.send(data);
      await waitFor(() => messages.length > before);
      expect(messages.at(-1)).toMatchObject({ type: 'error', error: { message: expect.stringMatching(reason) } });
    }
    // Nothing refused changed what the daemon knows, and the socket still works.
    expect(app.askbridge.viewersInView()).toEqual([{ kind: 'person' }]);
    socket.send(JSON.stringify({ type: 'visibility', visible: false }));
    await vi.waitUntil(() => app.askbridge.viewersInView().length === 0);
    socket.send(JSON.stringify({ type: 'visibility', visible: true }));
    await vi.waitUntil(() => app.askbridge.viewersInView().length > 0);
    socket.terminate();
    await vi.waitUntil(async () => (await visiblePages()) === 0);
  });
});

function firstQuestion(): Record<string, unknown> {
  return (singleSelect.tool_input as { questions: Array<Record<string, unknown>> }).questions[0]!;
}
function withOptions(count: number) {
  const options = Array.from({ length: count }, (_, index) => ({ label: `Option ${index}`, description: '' }));
  return { ...singleSelect, tool_input: { questions: [{ ...firstQuestion(), options }] } };
}
function withLabels(labels: string[]) {
  return { ...singleSelect, tool_input: { questions: [{ ...firstQuestion(), options: labels.map((label) => ({ label, description: '' })) }] } };
}
function withQuestionText(question: string) {
  return { ...singleSelect, tool_input: { questions: [{ ...firstQuestion(), question }] } };
}

describe('refused requests in the log', () => {
  it('logs a line per refusal only for a caller with a valid credential; the rest are counted and summed up at close', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logged = await buildTestApp({ logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) });
    const hookKey = { host: HOST, [HOOK_KEY_HEADER]: HOOK_KEY };
    const sends = [
      // Without a valid credential: counted.
      { method: 'GET', url: '/api/asks', headers: { host: HOST } },
      { method: 'GET', url: '/api/asks', headers: { host: HOST, authorization: 'Bearer wrong' } },
      { method: 'GET', url: '/api/asks', headers: { host: HOST } },
      { method: 'POST', url: HTTP_HOOK_PATH, headers: { host: HOST, [HOOK_KEY_HEADER]: 'wrong', 'content-type': 'application/json' }, payload: '{}' },
      { method: 'POST', url: HTTP_HOOK_PATH, headers: { host: HOST, 'content-type': 'application/json' }, payload: '{"' },
      { method: 'POST', url: HTTP_HOOK_PATH, headers: { host: HOST, 'content-type': 'text/plain' }, payload: 'x' },
      // With one: a line each.
      { method: 'POST', url: HTTP_HOOK_PATH, headers: { ...hookKey, 'content-type': 'application/json' }, payload: '{}' },
      { method: 'GET', url: '/api/asks/00000000-0000-4000-8000-000000000000', headers: LOCAL },
      { method: 'POST', url: '/api/asks', headers: { ...LOCAL, 'content-type': 'text/plain' }, payload: '{}' },
    ] as const;
    const statuses = [];
    for (const send of sends) statuses.push((await logged.app.inject(send)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 400, 415, 400, 404, 415]);
    expect(lines.filter((line) => line.msg === 'request refused').map((line) => [line.url, line.code])).toEqual([
      [HTTP_HOOK_PATH, 'invalid_request'],
      ['/api/asks/:id', 'not_found'],
      ['/api/asks', 'unsupported_media_type'],
    ]);
    expect(lines.filter((line) => line.msg === 'requests refused without a valid credential')).toEqual([]);
    // The first of each kind is told at once (a key left behind by a rotation is seen when it is first refused); the second is only counted.
    expect(lines.filter((line) => line.msg === 'request refused without a valid credential: the first of its kind, the rest are counted').map((line) => [line.url, line.code])).toEqual([
      ['/api/asks', 'unauthorized'],
      ['/api/asks', 'bad_token'],
      [HTTP_HOOK_PATH, 'bad_hook_key'],
      [HTTP_HOOK_PATH, 'fst_err_ctp_invalid_json_body'],
      [HTTP_HOOK_PATH, 'unsupported_media_type'],
    ]);
    await logged.close();
    const summaries = lines.filter((line) => line.msg === 'requests refused without a valid credential');
    expect(summaries.map((line) => [line.refused, line.total])).toEqual([
      [
        {
          '401 unauthorized GET /api/asks': 2,
          '401 bad_token GET /api/asks': 1,
          '401 bad_hook_key POST /api/hook/ask': 1,
          '400 fst_err_ctp_invalid_json_body POST /api/hook/ask': 1,
          '415 unsupported_media_type POST /api/hook/ask': 1,
        },
        6,
      ],
    ]);
  });
});
