// `askbridge doctor --route`: where an ask would go, as the daemon would route it (routing.ts, with
// its live config and people), so the CLI and the daemon never disagree. The request names what a
// rule matches on; the reply names the rule that matched, the people it names (groups expanded), how
// many must allow, and which of them could be reached now.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { ROUTE_KINDS } from './config.js';
import { AGENTS, LIMITS, PersonNameSchema, RouteViewSchema } from './protocol.js';

/** The body of POST /api/route/explain: an ask's facts, as `doctor --route` takes them. */
export const RouteExplainRequestSchema = z
  .strictObject({
    cwd: z.string().min(1).max(4096).refine(isAbsolute, { message: 'an absolute path' }),
    agent: z.enum([...AGENTS, 'script', 'mcp']).optional(),
    kind: z.enum(ROUTE_KINDS).optional(),
    /**
     * `local` (LOCAL_MACHINE): this machine's own sessions, as a rule names them. Any other: the name
     * a remote hook sends, which the daemon takes trimmed and at most LIMITS.machineChars long: a
     * name no hook can send is refused, as no rule could match an ask from it.
     */
    machine: z
      .string()
      .min(1)
      .max(LIMITS.machineChars, { message: `a remote hook's machine name is at most ${LIMITS.machineChars} characters (longer ones are cut): no ask could come from this one` })
      .refine((name) => name === name.trim(), { message: 'a remote hook\'s machine name has no spaces around it (they are trimmed): no ask could come from this one' })
      .optional(),
    person: PersonNameSchema.optional(),
    risky: z.boolean().default(false),
  })
  .meta({ title: 'route question' });
export type RouteExplainRequest = z.infer<typeof RouteExplainRequestSchema>;

/** One person an ask would go to, and how they could see it now: paired devices, paired Telegram chats, pages open. */
export const RouteReachSchema = z.object({ person: PersonNameSchema, groups: z.array(z.string()), devices: z.number(), chats: z.number(), pagesOpen: z.number() });

export const RouteExplainReplySchema = z.object({
  /** The rules of the user config's `route`, and the people askbridge knows. */
  rules: z.number(),
  people: z.number(),
  /** The route: absent, everyone sees and decides it (no people, or no rule and no session's person). */
  route: RouteViewSchema.optional(),
  /** The rule's `to`, as written (groups as `@name`); absent when no rule matched. */
  to: z.array(z.string()).optional(),
  reach: z.array(RouteReachSchema),
});
export type RouteExplainReply = z.infer<typeof RouteExplainReplySchema>;
