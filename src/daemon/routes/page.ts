// The answer page: a fixed list of static files read once at start and served from memory, under a
// strict Content-Security-Policy (no inline script, no external anything). No path ever comes from
// the request, so there is nothing to traverse. The web app manifest and the service worker sit at
// the root, so that the page can be installed and the worker's scope is the whole page. The page's
// script is one file, app.js: the build bundles its modules and marked into it (scripts/build-web.mjs);
// form-checks.js, which checks an MCP form's values, comes only when a form does.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ownFolders } from '../../package-root.js';
import { isFromThisMachine } from '../hook-identity.js';

/** The page's files by default: dist/web/ beside the compiled daemon, found from the package root (the daemon may be bundled). */
const WEB_ROOT = new URL('web/', ownFolders(import.meta.url).codeRoot);

const SCRIPT = 'text/javascript; charset=utf-8';

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: SCRIPT },
  '/form-checks.js': { file: 'form-checks.js', type: SCRIPT },
  '/sw.js': { file: 'sw.js', type: SCRIPT },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  '/favicon-waiting.svg': { file: 'favicon-waiting.svg', type: 'image/svg+xml' },
  '/manifest.webmanifest': { file: 'manifest.webmanifest', type: 'application/manifest+json' },
  '/icon-192.png': { file: 'icon-192.png', type: 'image/png' },
  '/icon-512.png': { file: 'icon-512.png', type: 'image/png' },
};

/** The one Trusted Types policy the page may make: it turns exactly '/sw.js' into a script URL, to register the service worker. */
export const SERVICE_WORKER_POLICY = 'askbridge-sw';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  // The page writes no HTML at all (text nodes only): no string may ever reach an HTML sink. The one
  // policy allowed can only name the service worker's own script (registering one is a script sink).
  "require-trusted-types-for 'script'",
  `trusted-types ${SERVICE_WORKER_POLICY}`,
].join('; ');

/** A file's bytes, as they are on disk (text or an image). */
const FILE_BODY = z.instanceof(Buffer).meta({ type: 'string', format: 'binary' });

/** Text compresses to about a third; images are compressed already. */
const COMPRESSIBLE = /^(?:text\/|application\/manifest)/;

/**
 * The page's commands (`<code>askbridge …</code>`) as they run on this machine: `command`
 * (askbridgeCommand) for a page opened here; through the public URL, the plain name, which shows
 * no folder of this machine to a visitor not paired.
 */
function withCommand(page: Buffer, command: string): Buffer {
  const html = command.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
  return Buffer.from(page.toString('utf8').replaceAll('<code>askbridge ', `<code>${html} `));
}

/** One body of a file, its ETag, and its gzip, made on the first request that accepts it (not at start: the daemon starts on the hook's path). */
function served(body: Buffer) {
  let gzipped: Buffer | undefined;
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`, gzipped: () => (gzipped ??= gzipSync(body, { level: 9 })) };
}

export const pageRoutes: FastifyPluginAsyncZod<{ folder?: URL | undefined; command: string }> = async (app, options) => {
  const folder = options.folder ?? WEB_ROOT;
  for (const [path, { file, type }] of Object.entries(FILES)) {
    const body = readFileSync(new URL(file, folder));
    const everywhere = served(body);
    const here = file === 'index.html' ? served(withCommand(body, options.command)) : everywhere;
    const schema = {
      summary: `The answer page: ${file}`,
      response: { 200: { description: file, content: { [type]: { schema: FILE_BODY } } }, 304: { description: 'Not modified (If-None-Match)', content: { [type]: { schema: FILE_BODY } } } },
    };
    app.get(path, { config: { access: 'public' }, schema }, async (request, reply) => {
      const page = isFromThisMachine(request.ip, request.headers.host) ? here : everywhere;
      const { etag } = page;
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('x-frame-options', 'DENY').header('etag', etag).header('cache-control', 'no-cache').type(type);
      if (!COMPRESSIBLE.test(type)) return request.headers['if-none-match'] === etag ? reply.code(304).send() : reply.send(page.body);
      reply.header('vary', 'accept-encoding');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(page.body);
      return reply.header('content-encoding', 'gzip').send(page.gzipped());
    });
  }
};

/** Whether the client takes gzip (`gzip;q=0` says it does not). */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    return q === undefined || Number(q) > 0;
  });
}
