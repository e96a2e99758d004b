// POST /api/route/explain (local only): where an ask with these facts would go now, computed with
// the same routeFor as every ask that opens, from the live config and people, for `askbridge doctor --route`.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorReplySchema } from '../../protocol.js';
import { LOCAL_MACHINE } from '../../config.js';
import { RouteExplainReplySchema, RouteExplainRequestSchema } from '../../route-explain.js';
import { routeFor } from '../../routing.js';
import { HttpError } from '../errors.js';
import type { RouteContext } from './context.js';

export const routeExplainRoutes: FastifyPluginAsyncZod<RouteContext> = async (app, { deps, auth, watchers }) => {
  app.post(
    '/api/route/explain',
    {
      config: { access: 'local' },
      bodyLimit: 16 * 1024,
      schema: { summary: 'Where an ask would go: the route rule that matches it, the people it names, and how each could see it now', body: RouteExplainRequestSchema, response: { 200: RouteExplainReplySchema, '4xx': ErrorReplySchema } },
    },
    async (request) => {
      if (!deps.configFor) throw new HttpError(404, 'not_found', 'this daemon does not report its configuration');
      const { cwd, agent, kind, machine, person, risky } = request.body;
      const rules = deps.configFor(cwd).config.route;
      const people = deps.people?.list() ?? [];
      // A script or an MCP client is an asker, as a rule's `agent` names it; the rest are agents.
      const who = agent === 'script' || agent === 'mcp' ? { asker: { kind: agent } } : { agent };
      // This machine's own sessions name no machine: `local` is how a rule, and the question, say them.
      const route = routeFor({ cwd, machine: machine === LOCAL_MACHINE ? undefined : machine, ...who, kind, risky, person }, rules, people);
      const rule = route?.rule === undefined ? undefined : rules.find((each, index) => (each.name ?? `route[${index}]`) === route.rule);
      const devices = auth.devices();
      const chats = deps.telegram?.devices() ?? [];
      const pagesOpen = [...watchers.sockets].map((socket) => watchers.viewerOf.get(socket));
      const reach = (route?.people ?? []).map((name) => ({
        person: name,
        groups: people.find((known) => known.name === name)?.groups ?? [],
        devices: devices.filter((device) => device.person === name).length,
        chats: chats.filter((chat) => chat.person === name).length,
        pagesOpen: pagesOpen.filter((viewer) => viewer?.kind === 'person' && viewer.person === name).length,
      }));
      return { rules: rules.length, people: people.length, ...(route ? { route } : {}), ...(rule ? { to: rule.to } : {}), reach };
    },
  );
};
