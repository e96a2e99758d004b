// The answer page: a fixed list of static files read once at start and served from memory, under a
// strict Content-Security-Policy (no inline script, no external anything). No path ever comes from
// the request, so there is nothing to traverse.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const WEB_ROOT = new URL('../../web/', import.meta.url);

const FILES = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/visible-text.js': { file: 'visible-text.js', type: 'text/javascript; charset=utf-8' },
  '/api.js': { file: 'api.js', type: 'text/javascript; charset=utf-8' },
  '/dom.js': { file: 'dom.js', type: 'text/javascript; charset=utf-8' },
  '/devices.js': { file: 'devices.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
} as const;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  // The page writes no HTML at all (text nodes only): no string may ever reach an HTML sink, and no policy may be made.
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

export const pageRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const [path, { file, type }] of Object.entries(FILES)) {
    const body = readFileSync(new URL(file, WEB_ROOT), 'utf8');
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    const schema = {
      summary: `The answer page: ${file}`,
      response: { 200: { description: file, content: { [type]: { schema: z.string() } } }, 304: { description: 'Not modified (If-None-Match)', content: { [type]: { schema: z.string() } } } },
    };
    app.get(path, { config: { access: 'public' }, schema }, async (request, reply) => {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('x-frame-options', 'DENY').header('etag', etag).header('cache-control', 'no-cache').type(type);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(body);
    });
  }
};
