// The daemon's OpenAPI document: valid, authenticated like the rest, and complete, because no route
// can be registered without saying what it replies.
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireReplySchemas } from '../../src/daemon/app.js';
import { HTTP_HOOK_PATH, ELICITATION_HOOK_PATH, NOTIFICATION_HOOK_PATH, PERMISSION_HOOK_PATH, PROMPT_HOOK_PATH, SESSION_END_PATH, STOP_HOOK_PATH } from '../../src/http-hook.js';
import { buildTestApp, HOST, LOCAL, type TestApp } from '../stack/app.js';

/** Every route the daemon serves, by method; but the WebSocket (/ws), which is no HTTP operation (@fastify/websocket leaves it out). */
const ROUTES = {
  [HTTP_HOOK_PATH]: ['post'],
  '/api/hook/hello': ['post'],
  '/api/hook/questions': ['post'],
  [SESSION_END_PATH]: ['post'],
  [PERMISSION_HOOK_PATH]: ['post'],
  [STOP_HOOK_PATH]: ['post'],
  [PROMPT_HOOK_PATH]: ['post'],
  [NOTIFICATION_HOOK_PATH]: ['post'],
  [ELICITATION_HOOK_PATH]: ['post'],
  '/api/asks': ['get', 'post'],
  '/api/asks/{id}': ['get'],
  '/api/asks/{id}/answer': ['post'],
  '/api/asks/{id}/decide': ['post'],
  '/api/asks/{id}/elicitation': ['post'],
  '/api/asks/{id}/terminal': ['post'],
  '/api/asks/{id}/decline': ['post'],
  '/api/asks/{id}/extend': ['post'],
  '/api/attach/opencode': ['post'],
  '/api/attach/codex': ['post'],
  '/api/attach/withdraw': ['post'],
  '/api/asks/{id}/delivery': ['post'],
  '/api/history': ['get'],
  '/api/pairings': ['post'],
  '/api/pairings/telegram': ['post'],
  '/api/people': ['get', 'post'],
  '/api/people/{name}': ['delete'],
  '/api/pair': ['post'],
  '/api/session': ['get'],
  '/api/devices': ['get'],
  '/api/devices/{id}/revoke': ['post'],
  '/api/grants': ['get'],
  '/api/grants/{id}/revoke': ['post'],
  '/api/push': ['get'],
  '/api/push/subscription': ['delete', 'post'],
  '/api/one-tap': ['post'],
  '/api/status': ['get'],
  '/api/away': ['get', 'put'],
  '/api/sessions/{sessionId}/reply': ['post'],
  '/api/config': ['get'],
  '/api/route/explain': ['post'],
  '/api/openapi.json': ['get'],
  '/': ['get'],
  '/app.js': ['get'],
  '/sw.js': ['get'],
  '/app.css': ['get'],
  '/favicon.svg': ['get'],
  '/form-checks.js': ['get'],
  '/favicon-waiting.svg': ['get'],
  '/manifest.webmanifest': ['get'],
  '/icon-192.png': ['get'],
  '/icon-512.png': ['get'],
};

type Operation = { summary?: string; responses: Record<string, { content?: Record<string, { schema?: unknown }> }>; requestBody?: unknown; parameters?: unknown[] };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

let daemon: TestApp;
let document: Document;

beforeAll(async () => {
  daemon = await buildTestApp();
  const response = await daemon.app.inject({ method: 'GET', url: '/api/openapi.json', headers: LOCAL });
  expect(response.statusCode).toBe(200);
  document = response.json<Document>();
});
afterAll(async () => {
  await daemon.close();
});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI document', async () => {
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every route, and nothing else', () => {
    const listed = Object.fromEntries(Object.entries(document.paths).map(([path, operations]) => [path, Object.keys(operations).filter((method) => method !== 'head').sort()]));
    expect(listed).toEqual(ROUTES);
  });

  it('gives every operation a summary and a schema for each reply', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(operation.summary, `${method} ${path}`).toBeTruthy();
        const replies = Object.entries(operation.responses);
        expect(replies.length, `${method} ${path}`).toBeGreaterThan(0);
        for (const [status, reply] of replies) expect(Object.values(reply.content ?? {}).every((media) => media.schema !== undefined) && reply.content !== undefined, `${method} ${path} ${status}`).toBe(true);
      }
    }
  });

  it('describes what an answer must hold, as the daemon checks it', () => {
    const answer = document.paths['/api/asks/{id}/answer']!.post!;
    expect(JSON.stringify(answer.requestBody)).toContain('"responses"');
    expect(JSON.stringify(answer.parameters)).toContain('"uuid"');
  });

  it('is refused without the token or a paired page', async () => {
    const response = await daemon.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { host: HOST } });
    expect(response.statusCode).toBe(401);
  });
});

describe('a route without a response schema', () => {
  it('cannot be registered', async () => {
    const bare = Fastify({ logger: false });
    bare.addHook('onRoute', requireReplySchemas);
    expect(() => bare.get('/unchecked', async () => ({ anything: true }))).toThrow('GET /unchecked has no response schema');
    bare.get('/checked', { schema: { response: { 200: { type: 'object' } } } }, async () => ({}));
    await bare.ready();
    await bare.close();
  });
});
