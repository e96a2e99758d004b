// The one place that reads askbridge's configuration: a user file and an optional per-project file,
// one zod schema for both, merged over the defaults. Every value remembers where it came from, so
// `askbridge config` can explain it. A user file that fails to parse never replaces its last good
// version; a project file applies only as the very bytes whose hash was checked against its trust.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, parse as parsePath, resolve } from 'node:path';
import type { RE2JS } from 're2js';
import { z } from 'zod';
import { closestName } from './closest-name.js';
import { contentHash, createTrustStore, type TrustStore, type TrustVerdict } from './trust.js';
import { AGENTS, describeZodError, LIMITS, TimeoutActionSchema } from './protocol.js';
import { parsePublicUrl } from './public-url.js';
import { outboundUrlProblem } from './outbound-url.js';
import { StoreUrlSchema } from './store-url.js';

/** How Claude Code reads an answer: `updatedInput` from Claude Code 2.1.85, a deny reason before that. */
export const ANSWER_MODES = ['updatedInput', 'deny-reason'] as const;
export type AnswerMode = (typeof ANSWER_MODES)[number];

export const DEFAULT_WAIT_SECONDS = 300;

/**
 * What a question does when no page or terminal watches: `wait-if-reachable` waits only when someone
 * could be told (a push subscription, a webhook, a Telegram chat), else the terminal asks at once;
 * `wait` always waits; `act` does the onTimeout action at once.
 */
export const WHEN_NOBODY_WATCHING = ['wait-if-reachable', 'wait', 'act'] as const;
export const PROJECT_CONFIG_PATH = join('.claude', 'askbridge.json');

/**
 * A rule's regular expression, compiled by RE2 (re2js): matching takes time linear in the text,
 * whoever wrote the pattern, so no rule can stall the daemon. Backreferences and lookaround, which
 * need backtracking, are refused when the file is read. Flags: i, m and s as in JavaScript; u is
 * accepted and changes nothing (RE2 always reads Unicode).
 */
export function compileRulePattern(regex: string, flags = ''): RE2JS {
  const re2 = loadRe2js();
  const bits = (flags.includes('i') ? re2.CASE_INSENSITIVE : 0) | (flags.includes('m') ? re2.MULTILINE : 0) | (flags.includes('s') ? re2.DOTALL : 0);
  return re2.compile(regex, bits);
}

let re2js: typeof RE2JS | undefined;
/**
 * re2js, loaded by the first rule with a regular expression: most configurations have none, and
 * it is a sixth of what the daemon would load at start. Synchronously (its CommonJS build), as a
 * config file is read synchronously.
 */
function loadRe2js(): typeof RE2JS {
  re2js ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
  return re2js;
}

const MatchSchema = z.union([
  z.string().min(1).max(500),
  z
    .strictObject({ regex: z.string().min(1).max(500), flags: z.string().regex(/^[imsu]*$/, { message: 'flags may only be i, m, s, u' }).optional() })
    .superRefine((pattern, ctx) => {
      try {
        compileRulePattern(pattern.regex, pattern.flags);
      } catch (error) {
        ctx.addIssue({ code: 'custom', path: ['regex'], message: `not a regular expression askbridge can match in linear time (RE2 syntax; no backreferences or lookaround): ${(error as Error).message}` });
      }
    }),
]);
export type Match = z.infer<typeof MatchSchema>;

/** Compiled patterns, by pattern and flags: a pattern is matched against every text it may apply to. */
const compiledPatterns = new Map<string, RE2JS>();

/** Whether a pattern matches: a string anywhere in the text, ignoring case; a regular expression as RE2 finds it. */
export function matchesText(match: Match, text: string): boolean {
  if (typeof match === 'string') return text.toLowerCase().includes(match.toLowerCase());
  const key = `${match.flags ?? ''}/${match.regex}`;
  let pattern = compiledPatterns.get(key);
  if (pattern === undefined) {
    if (compiledPatterns.size > 1000) compiledPatterns.clear();
    pattern = compileRulePattern(match.regex, match.flags);
    compiledPatterns.set(key, pattern);
  }
  return pattern.matcher(text).find();
}

/** The built-in risky actions (risk.ts), by the names `risk.remove` takes. */
export const BUILT_IN_RISKS = [
  'rm -r',
  'git push --force',
  'git reset --hard',
  'git clean',
  'DROP/TRUNCATE',
  'curl | sh',
  'sudo',
  'chmod 777',
  'dd',
  'mkfs',
  'terraform destroy',
  'kubectl delete',
  'publish',
  'secret files',
  'unclear command',
] as const;
export type BuiltInRisk = (typeof BUILT_IN_RISKS)[number];

/**
 * The user's changes to the built-in list of risky actions (risk.ts): `add` marks more as risky, each
 * with the reason shown; `remove` takes built-in ones off the list by name. User config only: a
 * project's file cannot make its own commands look safe.
 */
export const RiskSchema = z.strictObject({
  add: z
    .array(z.strictObject({ match: MatchSchema, reason: z.string().trim().min(1).max(200) }))
    .max(200)
    .default([]),
  remove: z.array(z.enum(BUILT_IN_RISKS)).max(BUILT_IN_RISKS.length).default([]),
});

export const RuleSchema = z
  .strictObject({
    name: z.string().min(1).max(100).optional(),
    header: MatchSchema.optional(),
    question: MatchSchema.optional(),
    choose: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(4)]).optional(),
    text: z.string().min(1).max(10_000).optional(),
    when: z.enum(['timeout', 'immediately']).default('timeout'),
  })
  .superRefine((rule, ctx) => {
    if (rule.header === undefined && rule.question === undefined) ctx.addIssue({ code: 'custom', message: 'a rule needs "header" or "question" to match on' });
    if ((rule.choose === undefined) === (rule.text === undefined)) ctx.addIssue({ code: 'custom', message: 'a rule gives exactly one of "choose" (a label or labels) or "text" (free text)' });
  });
export type Rule = z.infer<typeof RuleSchema>;

/** What a route rule's `machine` (and `doctor --route --machine`) says for this machine's own sessions, which name no machine. */
export const LOCAL_MACHINE = 'local';

/** The kinds of wait a route rule may name. */
export const ROUTE_KINDS = ['question', 'permission', 'plan', 'turn-end', 'form'] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

/**
 * One rule of `route` (user config only): which asks it takes (every field given must match: a
 * project folder, the machine a remote hook names, the agent, the kinds, whether a permission is
 * risky), the people or groups (`@oncall`) who see and decide them, and whether two distinct people
 * must allow a permission. The first rule that matches decides.
 */
export const RouteRuleSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  /** A folder: asks from it or from inside it. `~/` is the home folder. */
  project: z
    .string()
    .max(4096)
    .refine((folder) => folder === '~' || folder.startsWith('~/') || isAbsolute(folder), { message: 'a folder: an absolute path, or one starting with ~/' })
    .optional(),
  /** The machine a remote hook names (`install --url`); LOCAL_MACHINE for this machine's own sessions. */
  machine: z.string().min(1).max(200).optional(),
  /** Agents, as `kind` lists kinds: `script` and `mcp` for asks through POST /api/asks and `askbridge mcp`. */
  agent: z.array(z.enum([...AGENTS, 'script', 'mcp'])).min(1).max(AGENTS.length + 2).optional(),
  kind: z.array(z.enum(ROUTE_KINDS)).min(1).max(ROUTE_KINDS.length).optional(),
  /** true: only permissions on the risk list (risk.ts); false: only those not on it. */
  risky: z.boolean().optional(),
  to: z.array(z.string().regex(/^@?[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'a person\'s name, or a group as @name')).min(1).max(100),
  /** 2: a permission (or a plan) is allowed only once two distinct people have allowed it; any deny wins at once. */
  approvals: z.union([z.literal(1), z.literal(2)]).default(1),
});
export type RouteRule = z.infer<typeof RouteRuleSchema>;

/** The kinds of webhook a `notify` entry names, each with the URL it posts to. */
export const NOTIFY_KINDS = ['ntfy', 'slack', 'discord', 'url'] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

const notifyUrl = z
  .string()
  .max(2048)
  .superRefine((raw, ctx) => {
    const problem = outboundUrlProblem(raw);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** One webhook told when a question starts waiting: `{ "ntfy": "https://ntfy.sh/my-topic" }`, or slack, discord, url. */
export const NotifyTargetSchema = z
  .strictObject({
    ntfy: notifyUrl.optional(),
    slack: notifyUrl.optional(),
    discord: notifyUrl.optional(),
    url: notifyUrl.optional(),
    /** ntfy only: buttons that answer a simple question from the notification (one-tap, through the public URL). */
    actions: z.boolean().optional(),
  })
  .superRefine((target, ctx) => {
    if (target.actions !== undefined && target.ntfy === undefined) ctx.addIssue({ code: 'custom', path: ['actions'], message: '"actions" is for an ntfy entry only' });
    const kinds = NOTIFY_KINDS.filter((kind) => target[kind] !== undefined);
    if (kinds.length !== 1) ctx.addIssue({ code: 'custom', message: `a notify entry names exactly one of ${NOTIFY_KINDS.join(', ')} (here: ${kinds.join(', ') || 'none'})` });
    // ntfy takes JSON at its root, naming the topic: the URL's last part.
    if (target.ntfy !== undefined && outboundUrlProblem(target.ntfy) === undefined && !/\/[\w-]{1,64}$/.test(new URL(target.ntfy).pathname)) ctx.addIssue({ code: 'custom', path: ['ntfy'], message: 'an ntfy URL ends with its topic, for example https://ntfy.sh/my-topic' });
  });
export type NotifyTarget = z.infer<typeof NotifyTargetSchema>;

/** Who sends Web Push, as push services read it: a mailto: address, or an https URL that is not this machine (Apple refuses localhost). */
const PushSubjectSchema = z
  .string()
  .max(500)
  .refine((raw) => {
    if (/^mailto:[^\s@]+@[^\s@]+$/.test(raw)) return true;
    try {
      const url = new URL(raw);
      return url.protocol === 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    } catch {
      return false;
    }
  }, { message: 'a push subject is a mailto: address or an https URL that is not localhost (for example mailto:you@example.com)' });

/**
 * The Telegram bot: its token (from @BotFather; kept here only), `apiRoot` for a self-hosted Bot API
 * server, and `headersOnly`, with which only the project and the headers reach Telegram and every
 * button opens the page.
 */
export const TelegramSchema = z.strictObject({
  token: z.string().regex(/^\d{1,20}:[A-Za-z0-9_-]{30,100}$/, { message: 'a bot token looks like 123456789:AA... (from @BotFather)' }),
  apiRoot: notifyUrl.optional(),
  headersOnly: z.boolean().optional(),
});
export type TelegramConfig = z.infer<typeof TelegramSchema>;

/** What a config file may hold; every key optional, unknown keys refused (they are typos). */
export const ConfigFileSchema = z.strictObject({
  $schema: z.string().optional(),
  waitSeconds: z.number().int().min(0).max(24 * 60 * 60).optional(),
  onTimeout: TimeoutActionSchema.exclude(['rule']).optional(),
  whenNobodyWatching: z.enum(WHEN_NOBODY_WATCHING).optional(),
  answerMode: z.enum(ANSWER_MODES).optional(),
  rules: z.array(RuleSchema).max(200).optional(),
  /**
   * How long a permission or a plan waits before anyone is told (webhooks, push): a person at the
   * terminal usually answers its dialog at once. Questions are told at once.
   */
  approvalNoticeSeconds: z.number().int().min(0).max(60 * 60).optional(),
  /**
   * While the person is away, how long the end of a turn waits for their reply before Claude stops;
   * held below the Stop hook entry's timeout (hook-timeout.ts) whatever this says.
   */
  awaySeconds: z.number().int().min(1).max(24 * 60 * 60).optional(),
  /** How many questions a script (`askbridge ask`) or an MCP client may ask at once; Claude Code's own tool asks at most 4. */
  askMaxQuestions: z.number().int().min(LIMITS.askQuestions.min).max(LIMITS.askQuestions.max).optional(),
  /** Read from the user config only, when the daemon starts (public-url.ts). */
  publicUrl: z
    .string()
    .max(2048)
    .superRefine((raw, ctx) => {
      const parsed = parsePublicUrl(raw);
      if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
    })
    .optional(),
  /** Webhooks told when a question starts waiting; read from the user config only. */
  notify: z.array(NotifyTargetSchema).max(20).optional(),
  /**
   * Web Push to paired devices: `fullText` lets the question text ride along; `subject` is who sends
   * (a mailto: or https: address push services may contact) in every VAPID JWT (user config only).
   */
  push: z.strictObject({ fullText: z.boolean().optional(), subject: PushSubjectSchema.optional() }).optional(),
  /** A Telegram bot the user made, which asks in the chats paired with it (user config only). */
  telegram: TelegramSchema.optional(),
  /**
   * When Telegram, the webhooks (ntfy too) and Web Push are told that something waits: `always`, or
   * `away`: only while the person is away or no paired page is in view (user config only).
   */
  tell: z.enum(['always', 'away']).optional(),
  /** Changes to the list of risky actions (risk.ts; user config only). */
  risk: RiskSchema.optional(),
  /** Who sees and decides which asks, once people are defined (routing.ts; user config only). */
  route: z.array(RouteRuleSchema).max(200).optional(),
  /**
   * The shared store several daemons keep their state in (docs/shared-store.md): a PostgreSQL URL
   * with no password (PGPASSWORD or a password file gives it). User config only; ASKBRIDGE_STORE wins.
   */
  store: StoreUrlSchema.optional(),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;
/** A config file as written, before defaults (a rule's `when`) are filled in. */
export type ConfigFileInput = z.input<typeof ConfigFileSchema>;

/** What applies to each question (publicUrl, telegram and store are the daemon's, not a question's). */
export type Config = Required<Omit<ConfigFile, '$schema' | 'publicUrl' | 'telegram' | 'store'>>;

export const DEFAULT_CONFIG: Config = {
  waitSeconds: DEFAULT_WAIT_SECONDS,
  onTimeout: 'terminal',
  whenNobodyWatching: 'wait-if-reachable',
  answerMode: 'updatedInput',
  rules: [],
  askMaxQuestions: LIMITS.questions.max,
  approvalNoticeSeconds: 10,
  awaySeconds: 1800,
  notify: [],
  push: { fullText: false },
  tell: 'always',
  risk: { add: [], remove: [] },
  route: [],
};

/** The settings that hold one value, which a project file replaces (rules add up instead). */
export const SCALAR_KEYS = ['waitSeconds', 'onTimeout', 'whenNobodyWatching', 'answerMode', 'askMaxQuestions', 'approvalNoticeSeconds', 'awaySeconds'] as const;

/** Keys only the user's own file may set: a project must not open the daemon, send question text, or keep askbridge's state where it chooses. */
export const USER_ONLY_KEYS = ['publicUrl', 'notify', 'push', 'telegram', 'tell', 'risk', 'route', 'store'] as const;

const ConfigOriginSchema = z.enum(['default', 'user', 'project']);
export type ConfigOrigin = z.infer<typeof ConfigOriginSchema>;

/** The configuration that applies in a directory, and where each value comes from (`askbridge config`). */
export const EffectiveConfigSchema = z.object({
  config: ConfigFileSchema.omit({ $schema: true, publicUrl: true, telegram: true, store: true }).required(),
  /** Where each key's value came from; rules list project rules first, then user rules. */
  origins: z.record(z.enum([...SCALAR_KEYS, 'rules', 'notify', 'push', 'tell', 'risk', 'route']), z.union([ConfigOriginSchema, z.literal('user+project')])),
  files: z.object({ user: z.string(), project: z.string().optional() }),
  /** Files that are broken now: the user file's last good version (if any) is in use; a project file applies nothing, as trust names only its current bytes. */
  errors: z.array(z.object({ path: z.string(), message: z.string() })),
  /** A trusted project file that sets keys only the user file may: those keys are ignored, the rest of the file applies. Optional: a daemon started by an earlier askbridge does not send it. */
  warnings: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  /** A project file that does not apply, because the user has not trusted its content (trust.ts). */
  ignored: z.array(z.object({ path: z.string(), projectDir: z.string(), reason: z.enum(['untrusted', 'changed']) satisfies z.ZodType<Exclude<TrustVerdict, 'trusted'>> })),
});
export type EffectiveConfig = z.infer<typeof EffectiveConfigSchema>;

/** The project directory a `.claude/askbridge.json` belongs to. */
export function projectDirOf(projectConfigPath: string): string {
  return dirname(dirname(projectConfigPath));
}

export function userConfigPath(env: NodeJS.ProcessEnv): string {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(configHome, 'askbridge', 'config.json');
}

/** The nearest `.claude/askbridge.json` at or above cwd. */
export function findProjectConfig(cwd: string): string | undefined {
  if (!cwd) return undefined;
  let dir = resolve(cwd);
  const { root } = parsePath(dir);
  for (;;) {
    const candidate = join(dir, PROJECT_CONFIG_PATH);
    if (isFile(candidate)) return candidate;
    if (dir === root) return undefined;
    dir = dirname(dir);
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export class ConfigFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

/** Read and validate one config file; a missing file is an empty config. */
export function readConfigFile(path: string): ConfigFile {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigFileError(path, (error as Error).message);
  }
  return parseConfigFile(path, raw);
}

/** Validate a config file's content, read by the caller: whoever hashes the bytes must parse those same bytes. */
export function parseConfigFile(path: string, raw: string | Buffer): ConfigFile {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const { line, column, message } = describeJsonError(text, (error as Error).message);
    throw new ConfigFileError(path, `not valid JSON at line ${line}, column ${column}: ${message}`);
  }
  const result = ConfigFileSchema.safeParse(json);
  if (!result.success) {
    // An unknown key is most often a typo: name the key that was meant with it (waitSecond: waitSeconds).
    const details = describeZodError(result.error).map((detail, index) => {
      const issue = result.error.issues[index];
      const meant = issue?.code === 'unrecognized_keys' && issue.keys.length === 1 ? closestName(issue.keys[0]!, keysAt(ConfigFileSchema, issue.path)) : undefined;
      return meant ? `${detail}: did you mean ${meant}?` : detail;
    });
    throw new ConfigFileError(path, details.join('; '));
  }
  return result.data;
}

/** The keys the object at `path` in `schema` may hold; none when the path leads elsewhere. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let here: z.ZodType = schema;
  for (const step of ['', ...path]) {
    while (here instanceof z.ZodOptional) here = here.unwrap() as z.ZodType;
    if (step === '') continue;
    if (here instanceof z.ZodArray && typeof step === 'number') here = here.element as z.ZodType;
    else if (here instanceof z.ZodObject && typeof step === 'string' && step in here.shape) here = here.shape[step] as z.ZodType;
    else return [];
  }
  while (here instanceof z.ZodOptional) here = here.unwrap() as z.ZodType;
  return here instanceof z.ZodObject ? Object.keys(here.shape) : [];
}

/**
 * Where JSON.parse gave up on `text` (line and column, from 1), and why, as a person finds it in an
 * editor: V8 says "at position 37" (an offset in characters), or names no place at all ("Unexpected
 * token 'x', "...the text..." is not valid JSON", "Unexpected end of JSON input"). Its reason is
 * kept; the offset and any quoted text go.
 */
export function describeJsonError(text: string, v8Message: string): { line: number; column: number; message: string } {
  const at = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(v8Message);
  const offset = at ? Number(at[1]) : firstBadCharacter(text);
  // The token as an escape when it is invisible (a line break where a value was going on).
  const message = at ? v8Message.slice(0, at.index) : v8Message.replace(/^Unexpected token '(.*?)', .* is not valid JSON$/s, (_, token: string) => `Unexpected token '${JSON.stringify(token).slice(1, -1)}'`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: [...before.at(-1)!].length + 1, message };
}

/** The offset of the first character of `text` that cannot continue JSON (RFC 8259), or its end when it ends too soon. */
function firstBadCharacter(text: string): number {
  let at = 0;
  const fail = (): never => {
    throw at;
  };
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const expect = (char: string) => {
    if (text[at] !== char) fail();
    at++;
  };
  const digits = () => {
    if (!/[0-9]/.test(text[at] ?? '')) fail();
    while (/[0-9]/.test(text[at] ?? '')) at++;
  };
  const string = () => {
    expect('"');
    for (;;) {
      const char = text[at];
      if (char === undefined || char < ' ') fail();
      at++;
      if (char === '"') return;
      if (char !== '\\') continue;
      if (text[at] === 'u') {
        at++;
        for (let digit = 0; digit < 4; digit++) {
          if (!/[0-9a-fA-F]/.test(text[at] ?? '')) fail();
          at++;
        }
      } else if ('"\\/bfnrt'.includes(text[at] ?? 'x')) at++;
      else fail();
    }
  };
  const value = (): void => {
    skipSpace();
    const char = text[at];
    if (char === '{' || char === '[') {
      const close = char === '{' ? '}' : ']';
      at++;
      skipSpace();
      if (text[at] === close) return void at++;
      for (;;) {
        if (close === '}') {
          skipSpace();
          string();
          skipSpace();
          expect(':');
        }
        value();
        skipSpace();
        if (text[at] === close) return void at++;
        expect(',');
      }
    }
    if (char === '"') {
      string();
      return;
    }
    if (char === '-' || /[0-9]/.test(char ?? '')) {
      if (char === '-') at++;
      if (text[at] === '0') at++;
      else digits();
      if (text[at] === '.') {
        at++;
        digits();
      }
      if (text[at] === 'e' || text[at] === 'E') {
        at++;
        if (text[at] === '+' || text[at] === '-') at++;
        digits();
      }
      return;
    }
    const word = ['true', 'false', 'null'].find((literal) => literal[0] === char) ?? fail();
    for (const letter of word) expect(letter);
  };
  try {
    value();
    skipSpace();
    return at < text.length ? at : text.length;
  } catch (offset) {
    return offset as number;
  }
}

/**
 * Re-reads a config file only when it changed on disk, so every question sees the newest config
 * without restarting anything. The user file keeps its last good version while an edit is invalid;
 * a project file applies exactly as the read that was checked against its trust found it.
 */
export function createConfigReader(env: NodeJS.ProcessEnv, trust: TrustStore = createTrustStore(env)) {
  type Cached = { stamp: string; good: ConfigFile | undefined; error: string | undefined };
  const cache = new Map<string, Cached>();
  /** A project file as one read found it (none when it could not be read), and what those bytes say once they were found trusted. */
  type ProjectRead = { stamp: string; read: { bytes: Buffer; hash: string } | undefined; parsed?: { file?: ConfigFile; error?: string } };
  const projects = new Map<string, ProjectRead>();

  /**
   * Trust names bytes, so the bytes hashed are the bytes applied: one read is hashed and, when
   * trusted, parsed. A second read could find other bytes (an edit, a `git pull` in between).
   */
  function readProject(path: string): { verdict: TrustVerdict; file?: ConfigFile; error?: string } {
    const stamp = stampOf(path);
    let known = projects.get(path);
    if (known?.stamp !== stamp) {
      let read: ProjectRead['read'];
      try {
        const bytes = readFileSync(path);
        read = { bytes, hash: contentHash(bytes) };
      } catch {
        read = undefined;
      }
      known = { stamp, read };
      projects.set(path, known);
    }
    if (!known.read) return { verdict: 'untrusted' };
    const verdict = trust.verdict(path, known.read.hash);
    if (verdict !== 'trusted') return { verdict };
    if (!known.parsed) {
      try {
        known.parsed = { file: parseConfigFile(path, known.read.bytes) };
      } catch (error) {
        known.parsed = { error: error instanceof ConfigFileError ? error.message : String(error) };
      }
    }
    return { verdict, ...known.parsed };
  }

  function stampOf(path: string): string {
    try {
      const stat = statSync(path);
      return `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      return 'missing';
    }
  }

  /** The user file's newest good content, re-read if it changed. Reports whether anything changed. */
  function refresh(path: string): { file: ConfigFile | undefined; error: string | undefined; changed: boolean } {
    const stamp = stampOf(path);
    const cached = cache.get(path);
    if (cached && cached.stamp === stamp) return { file: cached.good, error: cached.error, changed: false };
    let next: Cached;
    try {
      next = { stamp, good: readConfigFile(path), error: undefined };
    } catch (error) {
      next = { stamp, good: cached?.good, error: error instanceof ConfigFileError ? error.message : String(error) };
    }
    cache.set(path, next);
    return { file: next.good, error: next.error, changed: cached === undefined || cached.error !== next.error || next.error === undefined };
  }

  return {
    refresh,
    /**
     * The configuration that applies to a question asked in `cwd`; `null`: the user configuration
     * alone, for a question whose `cwd` names a path on another machine.
     */
    effective(cwd: string | null): EffectiveConfig {
      const userPath = userConfigPath(env);
      const projectPath = cwd === null ? undefined : findProjectConfig(cwd);
      const user = refresh(userPath);
      const project = projectPath ? readProject(projectPath) : undefined;
      const ignored: EffectiveConfig['ignored'] = projectPath && project && project.verdict !== 'trusted' ? [{ path: projectPath, projectDir: projectDirOf(projectPath), reason: project.verdict }] : [];
      const errors = [
        ...(user.error ? [{ path: userPath, message: user.error }] : []),
        ...(projectPath && project?.error ? [{ path: projectPath, message: project.error }] : []),
      ];
      // mergeConfig never takes these keys from a project file: the rest of it applies, and this says what did not.
      const userOnly = USER_ONLY_KEYS.filter((key) => project?.file?.[key] !== undefined);
      const warnings = projectPath && userOnly.length > 0 ? [{ path: projectPath, message: userOnlyWarning(projectPath, userOnly, userPath) }] : [];
      return { ...mergeConfig(user.file ?? {}, project?.file ?? {}), files: { user: userPath, project: projectPath }, errors, warnings, ignored };
    },
  };
}

export type ConfigReader = ReturnType<typeof createConfigReader>;

function userOnlyWarning(projectPath: string, keys: readonly string[], userPath: string): string {
  const one = keys.length === 1;
  return `${projectPath}: ${keys.join(', ')} ${one ? 'is' : 'are'} read from the user config only (${userPath}); here ${one ? 'it is' : 'they are'} ignored, and the rest of the file applies`;
}

export function mergeConfig(user: ConfigFile, project: ConfigFile): Pick<EffectiveConfig, 'config' | 'origins'> {
  const config = { ...DEFAULT_CONFIG };
  const origins = Object.fromEntries(Object.keys(DEFAULT_CONFIG).map((key) => [key, 'default'])) as EffectiveConfig['origins'];
  for (const [origin, file] of [['user', user], ['project', project]] as const) {
    for (const key of SCALAR_KEYS) {
      if (file[key] === undefined) continue;
      (config as Record<string, unknown>)[key] = file[key];
      origins[key] = origin;
    }
  }
  for (const key of ['notify', 'push', 'tell', 'route'] as const) {
    if (user[key] === undefined) continue;
    (config as Record<string, unknown>)[key] = user[key];
    origins[key] = 'user';
  }
  if (user.risk !== undefined) {
    config.risk = user.risk;
    origins.risk = 'user';
  }
  // Project rules are more specific, so they are tried first.
  config.rules = [...(project.rules ?? []), ...(user.rules ?? [])];
  origins.rules = project.rules?.length && user.rules?.length ? 'user+project' : project.rules?.length ? 'project' : user.rules?.length ? 'user' : 'default';
  return { config, origins };
}
