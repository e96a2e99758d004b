// The OpenAPI document of the daemon's API, made from the routes' own schemas, but only when it is
// asked for: the routes are noted as they are registered, and @fastify/swagger (and the JSON
// Schema conversion) is loaded then, into a throwaway fastify that declares the same routes. The
// daemon does not pay for it at start, when the first question may be on its way.
import type { RouteOptions } from 'fastify';
import { HOOK_KEY_HEADER } from '../../http-hook.js';
import { PAGE_KEY_HEADER } from '../../protocol.js';

export type OpenApiBuilder = {
  /** Notes a route as it is registered (an onRoute hook); the WebSocket is no HTTP operation. */
  note(route: RouteOptions): void;
  /** The document, made on the first call. */
  document(): Promise<Record<string, unknown>>;
};

export function createOpenApiBuilder(info: { version: string }): OpenApiBuilder {
  const routes: Array<Pick<RouteOptions, 'method' | 'url' | 'schema'>> = [];
  let made: Promise<Record<string, unknown>> | undefined;
  return {
    note(route) {
      // fastify adds a HEAD route for each GET: the document lists the GET.
      if ((route as { websocket?: boolean }).websocket || route.method === 'HEAD') return;
      routes.push({ method: route.method, url: route.url, schema: route.schema });
    },
    document() {
      made ??= make(routes, info);
      return made;
    },
  };
}

async function make(routes: Array<Pick<RouteOptions, 'method' | 'url' | 'schema'>>, info: { version: string }): Promise<Record<string, unknown>> {
  const [{ default: Fastify }, { default: swagger }, { jsonSchemaTransform }] = await Promise.all([import('fastify'), import('@fastify/swagger'), import('fastify-type-provider-zod')]);
  const describer = Fastify({ logger: false });
  // Only described, never served: no request reaches these routes, so nothing needs compiling.
  describer.setValidatorCompiler(() => () => true);
  describer.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await describer.register(swagger, {
    openapi: {
      info: { title: 'askbridge', version: info.version, description: "The daemon's API: Claude Code's hooks ask, pages and local programs answer." },
      components: {
        securitySchemes: {
          token: { type: 'http', scheme: 'bearer', description: "The token in askbridge's state directory (local programs)" },
          hookKey: { type: 'apiKey', in: 'header', name: HOOK_KEY_HEADER, description: 'The hook key: it may only ask, and say a session ended' },
          pageKey: { type: 'apiKey', in: 'header', name: PAGE_KEY_HEADER, description: "A paired page's key, with its cookie" },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  for (const route of routes) describer.route({ ...route, handler: async () => undefined });
  await describer.ready();
  const document = { ...describer.swagger() };
  await describer.close();
  return document;
}
