// Every shape that crosses a process boundary, as a zod schema; the types are inferred from them.
// Claude Code's payloads are validated strictly where askbridge depends on a field and loosely
// everywhere else: keys a newer Claude Code adds are kept and echoed back, never rejected.
import { z } from 'zod';
import { HOOK_ENV, type HookEnvName } from './http-hook.js';
import { outboundUrlProblem } from './outbound-url.js';
import { shorten } from './shorten.js';
import { markInvisible } from './visible-text.js';

/** Limits on what a question may hold. Claude Code documents 1-4 questions and 2-4 options. */
export const LIMITS = {
  questions: { min: 1, max: 4 },
  /** A script or an MCP client may ask more at once than Claude Code's own tool. */
  askQuestions: { min: 1, max: 10 },
  options: { min: 2, max: 4 },
  questionChars: 4000,
  headerChars: 200,
  labelChars: 500,
  descriptionChars: 8000,
  previewChars: 100_000,
  otherChars: 10_000,
  notesChars: 10_000,
  idChars: 200,
  /** A machine's name, as a remote hook or a relay gives it. */
  machineChars: 64,
  /** Objects and arrays nested in tool_input, tool_input itself included; real payloads use 5. */
  toolInputDepth: 32,
  /** tool_input serialised as JSON, in UTF-8 bytes. */
  toolInputBytes: 512 * 1024,
} as const;

/** Joins the labels of a multi-select answer (protocol.md section 2); a label holding it is ambiguous. */
export const MULTI_SELECT_SEPARATOR = ', ';

/** Model text quoted in an error message: one line, bounded, every invisible character marked. */
export function quoteText(text: string, max = 80): string {
  return `"${shorten(markInvisible(text), max)}"`;
}

/**
 * The path to the first place where `root` nests objects or arrays more than `maxDepth` levels deep
 * (root counts as level 1), or undefined. Iterative on purpose: a payload nested thousands of levels
 * deep must be refused, not overflow the stack that checks it.
 */
export function findTooDeep(root: unknown, maxDepth: number): Array<string | number> | undefined {
  type Node = { value: unknown; depth: number; key: string | number; parent: Node | undefined };
  const stack: Node[] = [{ value: root, depth: 1, key: '', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node.value !== 'object' || node.value === null) continue;
    if (node.depth > maxDepth) {
      const path: Array<string | number> = [];
      for (let at: Node | undefined = node; at?.parent; at = at.parent) path.unshift(at.key);
      return path;
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(node.value) ? node.value.map((item, index) => [index, item]) : Object.entries(node.value);
    for (const [key, value] of entries) {
      if (typeof value === 'object' && value !== null) stack.push({ value, depth: node.depth + 1, key, parent: node });
    }
  }
  return undefined;
}

/** Depth first (so that serialising cannot overflow), then the serialised size. */
const boundedToolInput = z.record(z.string(), z.unknown()).superRefine((toolInput, ctx) => {
  const tooDeep = findTooDeep(toolInput, LIMITS.toolInputDepth);
  if (tooDeep) {
    const shown = tooDeep.slice(0, 6).join('.');
    ctx.addIssue({ code: 'custom', message: `nested more than ${LIMITS.toolInputDepth} levels deep (at ${shown}${tooDeep.length > 6 ? '.…' : ''})` });
    return;
  }
  const bytes = Buffer.byteLength(JSON.stringify(toolInput));
  if (bytes > LIMITS.toolInputBytes) ctx.addIssue({ code: 'custom', message: `${bytes} bytes of JSON, more than the ${LIMITS.toolInputBytes} allowed` });
});

const text = (max: number) => z.string().max(max, { message: `must be at most ${max} characters` });
const nonEmptyText = (max: number) => text(max).refine((s) => s.trim().length > 0, { message: 'must not be empty' });

export const OptionSchema = z.looseObject({
  label: nonEmptyText(LIMITS.labelChars),
  description: text(LIMITS.descriptionChars),
  preview: text(LIMITS.previewChars).optional(),
});
export type Option = z.infer<typeof OptionSchema>;

export const QuestionSchema = z
  .looseObject({
    question: nonEmptyText(LIMITS.questionChars),
    header: text(LIMITS.headerChars).optional().default(''),
    options: z.array(OptionSchema).min(LIMITS.options.min).max(LIMITS.options.max),
    multiSelect: z.boolean().optional().default(false),
  })
  .superRefine((question, ctx) => {
    const seen = new Set<string>();
    question.options.forEach((option, index) => {
      if (seen.has(option.label)) {
        ctx.addIssue({ code: 'custom', path: ['options', index, 'label'], message: `duplicate option label ${quoteText(option.label)}` });
      }
      seen.add(option.label);
    });
  });
export type Question = z.infer<typeof QuestionSchema>;

/** Questions asked together: each text once, since answers are keyed by it. */
const questionList = (limits: { min: number; max: number }) =>
  z
    .array(QuestionSchema)
    .min(limits.min)
    .max(limits.max)
    .superRefine((questions, ctx) => {
      const seen = new Set<string>();
      questions.forEach((question, index) => {
        if (seen.has(question.question)) ctx.addIssue({ code: 'custom', path: [index, 'question'], message: 'duplicate question text' });
        seen.add(question.question);
      });
    });

export const ToolInputSchema = z.looseObject({ questions: questionList(LIMITS.questions) });
export type ToolInput = z.infer<typeof ToolInputSchema>;

/** What Claude Code writes to the PreToolUse hook's stdin for AskUserQuestion. */
export const HookPayloadSchema = z.looseObject({
  session_id: nonEmptyText(LIMITS.idChars),
  tool_use_id: nonEmptyText(LIMITS.idChars),
  hook_event_name: z.literal('PreToolUse'),
  tool_name: z.literal('AskUserQuestion'),
  cwd: text(4096).optional().default(''),
  transcript_path: text(4096).optional(),
  tool_input: boundedToolInput,
});
export type HookPayload = z.infer<typeof HookPayloadSchema>;

/**
 * What Claude Code sends its SessionEnd hook (protocol.md 5): the session that ended, and why
 * (`clear`, `logout`, `prompt_input_exit`, `other`...). Other fields are kept and ignored.
 */
export const SessionEndPayloadSchema = z
  .looseObject({
    session_id: nonEmptyText(LIMITS.idChars),
    hook_event_name: z.literal('SessionEnd'),
    reason: text(200).optional(),
  })
  .meta({ title: 'session end' });
export type SessionEndPayload = z.infer<typeof SessionEndPayloadSchema>;

/** How many "always allow" suggestions a PermissionRequest may carry; Claude Code sends one to three. */
const MAX_SUGGESTIONS = 16;

/**
 * What Claude Code sends its PermissionRequest hook (protocol.md 8): the tool it would ask the person
 * about, its exact input, and its "always allow" suggestions (each sent back exactly when chosen).
 * There is no tool_use_id. Other fields are kept and ignored.
 */
export const PermissionPayloadSchema = z
  .looseObject({
    session_id: nonEmptyText(LIMITS.idChars),
    hook_event_name: z.literal('PermissionRequest'),
    tool_name: nonEmptyText(LIMITS.idChars),
    cwd: text(4096).optional().default(''),
    transcript_path: text(4096).optional(),
    permission_mode: text(100).optional(),
    tool_input: boundedToolInput,
    permission_suggestions: z.array(z.looseObject({ type: text(100) })).max(MAX_SUGGESTIONS).optional().default([]),
  })
  .meta({ title: 'permission request' });
export type PermissionPayload = z.infer<typeof PermissionPayloadSchema>;

/** How much of Claude's last message a turn's end keeps: beyond it, the card says it was cut. */
export const LAST_MESSAGE_CHARS = 100_000;

/**
 * What Claude Code sends its Stop hook when a turn ends (protocol.md 8): Claude's last message, and
 * whether this stop follows a block (`stop_hook_active`) of the same prompt (`prompt_id`). SubagentStop
 * has the same shape, and is never held. Other fields are kept and ignored.
 */
export const StopPayloadSchema = z
  .looseObject({
    session_id: nonEmptyText(LIMITS.idChars),
    hook_event_name: z.enum(['Stop', 'SubagentStop']),
    cwd: text(4096).optional().default(''),
    transcript_path: text(4096).optional(),
    prompt_id: text(LIMITS.idChars).optional(),
    stop_hook_active: z.boolean().optional().default(false),
    last_assistant_message: z.string().nullable().optional(),
  })
  .meta({ title: 'stop' });
export type StopPayload = z.infer<typeof StopPayloadSchema>;

/** What Claude Code sends its UserPromptSubmit hook: the person typed a prompt in that session's terminal. The prompt itself is never read. */
export const PromptPayloadSchema = z
  .looseObject({
    session_id: nonEmptyText(LIMITS.idChars),
    hook_event_name: z.literal('UserPromptSubmit'),
  })
  .meta({ title: 'prompt submitted' });

/**
 * What Claude Code sends its Notification hook: the session waits on the person in its terminal
 * (`idle_prompt`, `permission_prompt`, `elicitation_dialog`...), with Claude Code's message.
 */
export const NotificationPayloadSchema = z
  .looseObject({
    session_id: nonEmptyText(LIMITS.idChars),
    hook_event_name: z.literal('Notification'),
    cwd: text(4096).optional().default(''),
    transcript_path: text(4096).optional(),
    message: text(LIMITS.questionChars).optional().default(''),
    notification_type: text(100).optional(),
  })
  .meta({ title: 'notification' });
export type NotificationPayload = z.infer<typeof NotificationPayloadSchema>;

/** The longest message an MCP server's elicitation may carry, and the longest URL it may send a person to. */
export const ELICITATION_LIMITS = { messageChars: 8000, urlChars: 4096, serverChars: 200 } as const;

/**
 * What Claude Code sends its Elicitation hook when an MCP server asks the person for input
 * (protocol.md 9): a form (`requested_schema`, read by elicitation-form.ts, which refuses what MCP
 * does not allow) or a URL to open (`url`, `elicitation_id`). The server's name and words are hostile text.
 */
export const ElicitationPayloadSchema = z
  .looseObject({
    session_id: nonEmptyText(LIMITS.idChars),
    hook_event_name: z.literal('Elicitation'),
    cwd: text(4096).optional().default(''),
    transcript_path: text(4096).optional(),
    mcp_server_name: nonEmptyText(ELICITATION_LIMITS.serverChars),
    message: text(ELICITATION_LIMITS.messageChars).optional().default(''),
    mode: z.enum(['form', 'url']).optional().default('form'),
    requested_schema: z.unknown().optional(),
    url: text(ELICITATION_LIMITS.urlChars).optional(),
    elicitation_id: text(LIMITS.idChars).optional(),
  })
  .meta({ title: 'elicitation' });
export type ElicitationPayload = z.infer<typeof ElicitationPayloadSchema>;


/** The hook's environment: those of the variables that tell whether a person watches the session (HOOK_ENV) that are set. */
export const HookEnvironmentSchema = z
  .object(Object.fromEntries(HOOK_ENV.map((name) => [name, z.string().max(100).optional()])) as Record<HookEnvName, z.ZodOptional<z.ZodString>>)
  .default({});
export type HookEnvironment = z.infer<typeof HookEnvironmentSchema>;

/**
 * A hook's payload whose AskUserQuestion input askbridge can show: `tool_input` as Claude Code sent
 * it (an allowed answer echoes it back), and its `questions` as askbridge reads them.
 */
export const AskPayloadSchema = HookPayloadSchema.transform((payload, ctx) => {
  const toolInput = ToolInputSchema.safeParse(payload.tool_input);
  if (toolInput.success) return { ...payload, questions: toolInput.data.questions };
  for (const issue of toolInput.error.issues) ctx.addIssue({ code: 'custom', path: ['tool_input', ...issue.path], message: issue.message });
  return z.NEVER;
}).meta({ title: 'hook payload' });

/**
 * The coding agent whose hook, server or MCP client asked: Claude Code, Codex CLI, opencode or
 * Gemini CLI. Each has its profile (agents.ts) and answers in its own format (src/daemon/decisions/,
 * or the MCP tool's result); everything else about an ask is the same for all.
 */
export const AGENTS = ['claude-code', 'codex', 'opencode', 'gemini-cli'] as const;
export const AgentSchema = z.enum(AGENTS);
export type Agent = z.infer<typeof AgentSchema>;

/** Who asked, when it was not Claude Code's AskUserQuestion: a script (`askbridge ask`) or an MCP client (`askbridge mcp`). */
export const AskerSchema = z.object({ kind: z.enum(['script', 'mcp']), name: nonEmptyText(100) });
export type Asker = z.infer<typeof AskerSchema>;

/** Body of POST /api/asks: AskUserQuestion's questions, from a script or an agent, and who asks. */
export const AskRequestSchema = z
  .strictObject({
    questions: questionList(LIMITS.askQuestions),
    asker: AskerSchema,
    /** The folder the asker works in: it chooses the project's configuration, as a hook's cwd does. */
    cwd: text(4096).optional().default(''),
    /** Wait at most this long for a person (the configuration's waitSeconds otherwise). */
    waitSeconds: z.number().int().min(1).max(24 * 60 * 60).optional(),
    environment: HookEnvironmentSchema,
  })
  .meta({ title: 'ask' });
export type AskRequest = z.input<typeof AskRequestSchema>;

/**
 * opencode's pending question and permission (its `question.asked` / `permission.asked` events, and
 * GET /question, GET /permission), as `askbridge attach opencode` relays them: the fields askbridge
 * reads, bounded; the rest kept and ignored. The model's text in them is checked once it is mapped.
 */
export const OpencodeQuestionRequestSchema = z.looseObject({
  id: z.string().regex(/^que/).max(LIMITS.idChars),
  sessionID: z.string().regex(/^ses/).max(LIMITS.idChars),
  questions: z
    .array(
      z.looseObject({
        question: z.string(),
        header: z.string().optional().default(''),
        options: z.array(z.looseObject({ label: z.string(), description: z.string().optional().default('') })),
        multiple: z.boolean().optional(),
        /** Whether a typed answer is taken besides the options (opencode's default: yes). */
        custom: z.boolean().optional(),
      }),
    )
    .max(LIMITS.askQuestions.max),
});
export type OpencodeQuestionRequest = z.infer<typeof OpencodeQuestionRequestSchema>;

export const OpencodePermissionRequestSchema = z.looseObject({
  id: z.string().regex(/^per/).max(LIMITS.idChars),
  sessionID: z.string().regex(/^ses/).max(LIMITS.idChars),
  permission: nonEmptyText(LIMITS.idChars),
  patterns: z.array(z.string()).max(100).optional().default([]),
  always: z.array(z.string()).max(100).optional().default([]),
  metadata: boundedToolInput.optional().default({}),
});
export type OpencodePermissionRequest = z.infer<typeof OpencodePermissionRequestSchema>;

/**
 * Body of POST /api/attach/opencode: one pending request of opencode's, and its session's folder
 * and title; `machine`, the host of an opencode on another machine (its folder is a path there, so
 * this machine's project configuration does not apply). The same request relayed again (the
 * relay or the daemon restarted) re-attaches to its ask: it is keyed by opencode's own id.
 */
export const AttachOpencodeRequestSchema = z
  .strictObject({
    request: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('question'), question: OpencodeQuestionRequestSchema }),
      z.strictObject({ kind: z.literal('permission'), permission: OpencodePermissionRequestSchema }),
    ]),
    session: z.strictObject({ directory: text(4096).optional().default(''), title: text(LIMITS.questionChars).optional() }).optional().default({ directory: '' }),
    machine: nonEmptyText(LIMITS.machineChars).optional(),
    environment: HookEnvironmentSchema,
  })
  .meta({ title: 'opencode request' });
export type AttachOpencodeRequest = z.input<typeof AttachOpencodeRequestSchema>;

/** What `askbridge attach opencode` posts to opencode for a settled ask: its own route and body. */
export const OpencodeReplySchema = z.discriminatedUnion('route', [
  z.strictObject({ route: z.literal('question.reply'), body: z.strictObject({ answers: z.array(z.array(z.string())) }) }),
  z.strictObject({ route: z.literal('question.reject') }),
  z.strictObject({ route: z.literal('permission.reply'), body: z.strictObject({ reply: z.enum(['once', 'always', 'reject']), message: z.string().optional() }) }),
]);
export type OpencodeReply = z.infer<typeof OpencodeReplySchema>;

/**
 * Codex's `item/tool/requestUserInput` (its app-server's request for request_user_input), as
 * `askbridge attach codex` relays it: the fields askbridge reads, bounded; the rest kept and ignored.
 * The model's text in it is checked once it is mapped (decisions/codex-questions.ts).
 */
export const CodexUserInputRequestSchema = z.looseObject({
  threadId: nonEmptyText(LIMITS.idChars),
  turnId: text(LIMITS.idChars).optional(),
  itemId: nonEmptyText(LIMITS.idChars),
  questions: z
    .array(
      z.looseObject({
        // Answers are keyed by it; a key that would not stay an own key of the answer cannot be.
        id: nonEmptyText(LIMITS.idChars).refine((id) => id !== '__proto__', { message: 'cannot key an answer' }),
        header: z.string().optional().default(''),
        question: z.string(),
        /** Whether Codex takes a typed answer besides the options (its picker's "None of the above"). */
        isOther: z.boolean().optional().default(false),
        /** Whether Codex masks the answer as it is typed. */
        isSecret: z.boolean().optional().default(false),
        options: z.array(z.looseObject({ label: z.string(), description: z.string().optional().default('') })).nullable().optional(),
      }),
    )
    .max(LIMITS.askQuestions.max),
});
export type CodexUserInputRequest = z.infer<typeof CodexUserInputRequestSchema>;

/**
 * Codex's `mcpServer/elicitation/request` (an MCP server's form or link, as its app-server asks a
 * client), as `askbridge attach codex` relays it: the fields askbridge reads, bounded; the rest kept
 * and ignored. Codex asks its own approval of an MCP tool call with this method too (`_meta`
 * says `codex_approval_kind`): the relay never sends that one. The server's name and words are hostile text.
 */
export const CodexElicitationRequestSchema = z.looseObject({
  threadId: nonEmptyText(LIMITS.idChars),
  turnId: text(LIMITS.idChars).nullable().optional(),
  serverName: nonEmptyText(ELICITATION_LIMITS.serverChars),
  message: text(ELICITATION_LIMITS.messageChars).optional().default(''),
  mode: z.enum(['form', 'url']),
  requestedSchema: z.unknown().optional(),
  url: text(ELICITATION_LIMITS.urlChars).optional(),
  elicitationId: text(LIMITS.idChars).optional(),
});
export type CodexElicitationRequest = z.infer<typeof CodexElicitationRequestSchema>;

/**
 * Body of POST /api/attach/codex: one of Codex's pending requests (`question`: a requestUserInput;
 * `elicitation`: an MCP server's, with Codex's JSON-RPC id of it), and its thread's folder and title.
 */
export const AttachCodexRequestSchema = z
  .strictObject({
    request: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('question'), question: CodexUserInputRequestSchema }),
      z.strictObject({ kind: z.literal('elicitation'), requestId: z.union([z.number().int(), nonEmptyText(LIMITS.idChars)]), elicitation: CodexElicitationRequestSchema }),
    ]),
    thread: z.strictObject({ cwd: text(4096).optional().default(''), title: text(LIMITS.questionChars).optional() }).optional().default({ cwd: '' }),
    environment: HookEnvironmentSchema,
  })
  .meta({ title: 'Codex request' });
export type AttachCodexRequest = z.input<typeof AttachCodexRequestSchema>;

/** What a relay holds of an ask it relays, to withdraw it (the agent settled it itself, or the relay stops): the agent's own ids. */
export const RelayWithdrawSchema = z
  .strictObject({
    agent: z.enum(['opencode', 'codex']),
    sessionId: nonEmptyText(LIMITS.idChars),
    toolUseId: nonEmptyText(LIMITS.idChars),
    machine: nonEmptyText(LIMITS.machineChars).optional(),
  })
  .meta({ title: 'relay withdrawal' });
export type RelayWithdraw = z.infer<typeof RelayWithdrawSchema>;

/**
 * Body of POST /api/asks/:id/delivery: what became of a relayed ask's decision. `delivered`: the
 * agent confirmed it took it. `undeliverable`: it never can (the agent's request is gone), and why.
 */
export const RelayDeliverySchema = z.union([z.strictObject({ delivered: z.literal(true) }), z.strictObject({ undeliverable: nonEmptyText(500) })]).meta({ title: 'relay delivery' });
export type RelayDelivery = z.infer<typeof RelayDeliverySchema>;

/** Codex's own answer to requestUserInput (the JSON-RPC result): each question's id -> what was chosen and noted. */
export const CodexUserInputResponseSchema = z.strictObject({ answers: z.record(z.string(), z.strictObject({ answers: z.array(z.string()) })) });
export type CodexUserInputResponse = z.infer<typeof CodexUserInputResponseSchema>;
/** Codex's answer to an MCP server's elicitation (the JSON-RPC result), which it passes to the server as it is. */
export const CodexElicitationResponseSchema = z.strictObject({ action: z.enum(['accept', 'decline', 'cancel']), content: z.record(z.string(), z.unknown()).optional() });
export type CodexElicitationResponse = z.infer<typeof CodexElicitationResponseSchema>;

/** The agents that run the command hook (`--agent codex`; Claude Code without it): a copy lives in the hook, pinned to this by a test. */
export const HOOK_AGENTS = ['claude-code', 'codex'] as const;

/**
 * Body of POST /api/hook/questions: the command hook's stdin (a question, a permission, the end of a
 * turn, a prompt typed, a notification, an MCP server's elicitation: every wait the http hook carries too), its environment, the
 * agent that ran it (Claude Code unless it says Codex), and Claude Code's limit on replies in a row
 * (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP, for a Stop).
 */
export const HookRequestSchema = z
  .object({
    payload: z.discriminatedUnion('hook_event_name', [AskPayloadSchema, PermissionPayloadSchema, StopPayloadSchema, PromptPayloadSchema, NotificationPayloadSchema, ElicitationPayloadSchema]),
    environment: HookEnvironmentSchema,
    agent: z.enum(HOOK_AGENTS).optional(),
    stopCap: z.string().max(20).optional(),
  })
  .meta({ title: 'hook payload' });
export type HookRequest = z.infer<typeof HookRequestSchema>;

/** One person's answer to one question: the labels they picked, free text, and a note. */
export const ResponseSchema = z.strictObject({
  question: z.string().max(LIMITS.questionChars),
  selected: z.array(z.string().max(LIMITS.labelChars)).max(LIMITS.options.max).default([]),
  other: text(LIMITS.otherChars).nullable().optional().default(null),
  notes: text(LIMITS.notesChars).nullable().optional().default(null),
});
export type Response = z.infer<typeof ResponseSchema>;

/** Body of POST /api/asks/:id/answer, from the page or the CLI. */
export const AnswerRequestSchema = z
  .strictObject({
    responses: z.array(ResponseSchema).min(1).max(LIMITS.askQuestions.max),
  })
  .meta({ title: 'answer' });
export type AnswerRequest = z.infer<typeof AnswerRequestSchema>;

export const PairRequestSchema = z.object({ code: z.string().min(1).max(200) }).meta({ title: 'pairing request' });
export type PairRequest = z.infer<typeof PairRequestSchema>;

/** Body of POST /api/hook/hello: the hook's fresh nonce, which the daemon's proof must cover. */
export const HookHelloSchema = z.object({ nonce: z.string().regex(/^[A-Za-z0-9_-]{22,64}$/, { message: 'must be 22-64 base64url characters' }) }).meta({ title: 'hello' });

/** What a policy does when nobody answers in time: the three a config can name, or a rule's answer. */
export const TimeoutActionSchema = z.enum(['terminal', 'recommended', 'decline', 'rule']);
export type TimeoutAction = z.infer<typeof TimeoutActionSchema>;

/**
 * Where a person answered: a page, the CLI, a Telegram chat, an ntfy notification's button, or a
 * notification's button in a paired browser (Web Push).
 */
export const PersonClientSchema = z.enum(['page', 'cli', 'telegram', 'ntfy', 'notification']);
export type PersonClient = z.infer<typeof PersonClientSchema>;

/** A person's name, as `askbridge people add` takes it: letters, digits, `.`, `_` and `-`, up to 40. */
export const PersonNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'a name of letters, digits, ".", "_" and "-" (up to 40), starting with a letter or a digit');

/** A person askbridge knows (`askbridge people add NAME --group G`): the groups a route may name them by (`@G`). */
export const PersonSchema = z.object({ name: PersonNameSchema, groups: z.array(PersonNameSchema), addedAt: z.number() });
export type Person = z.infer<typeof PersonSchema>;

/** Body of POST /api/people: a new person, and the groups they are in. */
export const AddPersonRequestSchema = z.strictObject({ name: PersonNameSchema, groups: z.array(PersonNameSchema).max(20).optional() }).meta({ title: 'person' });
export type AddPersonRequest = z.infer<typeof AddPersonRequestSchema>;

/**
 * A paired browser or Telegram chat, as GET /api/devices and GET /api/people list it. `person`: whose
 * device or chat it is (`askbridge pair --person NAME`); absent: paired with no person named.
 */
export const PairedDeviceSchema = z.object({ id: z.string(), kind: z.enum(['browser', 'telegram']), name: z.string(), pairedAt: z.number(), lastSeen: z.number(), person: PersonNameSchema.optional() });
/** Reply of GET /api/people: everyone askbridge knows, with their groups, devices and chats. */
export const PeopleReplySchema = z.object({ people: z.array(PersonSchema.extend({ devices: z.array(PairedDeviceSchema) })) });
export type PeopleReply = z.infer<typeof PeopleReplySchema>;
/** Reply of POST and DELETE /api/people: the person added or removed, and (removed) the devices and chats unpaired with them. */
export const PersonChangeReplySchema = z.object({ person: PersonSchema, unpaired: z.array(PairedDeviceSchema).optional() });
export type PersonChangeReply = z.infer<typeof PersonChangeReplySchema>;

/**
 * Who decides, as the daemon knows it from the credential (never from anything the request says):
 * where (`client`), and once people are defined, which person and which of their devices or chats.
 */
export const DeciderSchema = z.object({
  client: PersonClientSchema,
  /** The person the device or chat was paired for (`askbridge pair --person NAME`); absent with no people defined, and for the local CLI. */
  person: PersonNameSchema.optional(),
  /** The device's or the chat's name, as `askbridge devices` lists it. */
  device: z.string().optional(),
});
export type Decider = z.infer<typeof DeciderSchema>;

/** Who or what settled a question. */
export const SourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('person'), ...DeciderSchema.shape }),
  /**
   * `nobody-reachable`: no page or terminal watched and nobody could be told (no push subscription,
   * webhook or Telegram chat), so the terminal asked at once.
   * `reply-limit`: a turn's end that Claude Code would not let continue again (its limit on replies in a row).
   */
  z.object({ kind: z.literal('policy'), action: TimeoutActionSchema, trigger: z.enum(['timeout', 'immediately', 'nobody-watching', 'nobody-reachable', 'reply-limit']), rule: z.string().optional() }),
  z.object({ kind: z.literal('hook-gone') }),
  z.object({ kind: z.literal('daemon-stopped') }),
  /** Claude Code said the session ended (its SessionEnd hook), or its process is gone. */
  z.object({ kind: z.literal('session-ended') }),
  /**
   * The person acted in the terminal first: answered Claude Code's own dialog (an approval), typed a
   * prompt there (a turn's end), or the session moved on (a wait in the terminal).
   */
  z.object({ kind: z.literal('terminal') }),
  /** The person said they are back (away off): a turn's end that waited for a reply is let go. */
  z.object({ kind: z.literal('back') }),
  /** Allowed at once by a person's live grant (grants.ts): which one, when it was made and from where. */
  z.object({ kind: z.literal('grant'), grant: z.string(), rule: z.string(), madeAt: z.number(), by: z.string() }),
]);
export type Source = z.infer<typeof SourceSchema>;

/**
 * `failed`: an answer was given, but no decision could be built from it; the terminal asks.
 * `allowed` and `denied`: how an approval was decided. `replied` and `done`: a turn's end the person
 * replied to (Claude goes on), or let end.
 */
export const AskStatusSchema = z.enum(['pending', 'answered', 'declined', 'allowed', 'denied', 'replied', 'done', 'handed-to-terminal', 'cancelled', 'failed']);
export type AskStatus = z.infer<typeof AskStatusSchema>;

/** What a page shows of the asking session, read as text from the tail of its transcript. Every field may be missing. */
export const SessionContextSchema = z.object({
  /** The session's first prompt: what it was started for. */
  title: z.string().optional(),
  /** The git branch the session works on. */
  branch: z.string().optional(),
  /** What Claude said just before it asked. */
  said: z.string().optional(),
});
export type SessionContext = z.infer<typeof SessionContextSchema>;

/**
 * What a timeout policy will answer one question with, when it answers at all (a rule, or the
 * recommended option): the labels it will choose, or a rule's free text. Planned when the ask
 * arrives, from the configuration that applies then.
 */
export const PlannedAnswerSchema = z.object({
  question: z.string(),
  selected: z.array(z.string()),
  /** A rule's free text (its `text`), as the answer's "Other". */
  other: z.string().optional(),
  /** The rule that answers it, as the log names rules (`"db"`, or `#2` for an unnamed one); absent for the recommended option. */
  rule: z.string().optional(),
});
export type PlannedAnswer = z.infer<typeof PlannedAnswerSchema>;

/** What happens at an ask's deadline, e.g. `{ action: 'recommended', summary: 'the recommended option will be chosen', answers: [...] }`. */
export const AskTimeoutSchema = z.object({
  action: TimeoutActionSchema,
  /** One clause, with no model text in it: what the CLI prints after "then". */
  summary: z.string(),
  /** When the policy will answer (`recommended`, `rule`): each question's planned answer, in the questions' order. */
  answers: z.array(PlannedAnswerSchema).optional(),
});
export type AskTimeout = z.infer<typeof AskTimeoutSchema>;

/**
 * A permission Claude Code asks for (its PermissionRequest hook), as pages and the CLI see it: the
 * tool and its exact input, to be shown whole; Claude Code's "always allow" suggestions in words (in
 * its order: a decision names one by its index); for ExitPlanMode, the plan.
 */
export const ApprovalSchema = z.object({
  toolName: z.string(),
  /** The input exactly as Claude Code sent it: what will run when it is allowed. */
  toolInput: z.record(z.string(), z.unknown()),
  /** Each of Claude Code's suggestions in words, e.g. "Always allow `npm test` in this project". */
  suggestions: z.array(z.object({ label: z.string() })),
  /** ExitPlanMode: the plan, as markdown. */
  plan: z.string().optional(),
  /** The session's permission mode when it asked (`default`, `plan`...). */
  permissionMode: z.string().optional(),
  /** What a grant made from this approval would cover (grant-rules.ts); absent when it cannot be granted. */
  grant: z.object({ rule: z.string(), words: z.string() }).optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

/** The longest a grant lasts: eight hours, also for one that ends with its session. */
export const GRANT_MAX_MINUTES = 480;

/**
 * A person's grant, chosen with an allow: the same requests are allowed at once for `minutes`, or
 * until the session ends (at most GRANT_MAX_MINUTES); in this session only, or in every session of
 * this project (its folder), of the same agent on the same machine.
 */
export const GrantChoiceSchema = z.union([
  z.strictObject({ minutes: z.number().int().min(1).max(GRANT_MAX_MINUTES), scope: z.enum(['session', 'project']) }),
  z.strictObject({ untilSessionEnds: z.literal(true), scope: z.enum(['session', 'project']) }),
]);
export type GrantChoice = z.infer<typeof GrantChoiceSchema>;

/** A live grant, as the page, the CLI and Telegram list it. */
export const GrantSchema = z.object({
  id: z.string(),
  /** In Claude Code's rule grammar: `Bash(npm test:*)`, `Edit(//home/me/app/**)`, `WebFetch(domain:example.com)`. */
  rule: z.string(),
  words: z.string(),
  agent: AgentSchema,
  scope: z.enum(['session', 'project']),
  sessionId: z.string(),
  /** The project: the folder of the session that asked. */
  cwd: z.string(),
  machine: z.string().optional(),
  madeAt: z.number(),
  endsAt: z.number(),
  untilSessionEnds: z.boolean().optional(),
  /** Where the person made it, in words: a paired device's name, the terminal, a Telegram chat. */
  by: z.string(),
  /** The person who made it (from their device or chat's pairing); absent: the CLI, or no person named. It covers only what its maker could decide. */
  person: PersonNameSchema.optional(),
});
export type Grant = z.infer<typeof GrantSchema>;
export const GrantsReplySchema = z.object({ grants: z.array(GrantSchema) }).meta({ title: 'grants' });
export type GrantsReply = z.infer<typeof GrantsReplySchema>;

/**
 * How a person decides an approval (the body of POST /api/asks/:id/decide, and what its view keeps):
 * allow once, or allow with one of Claude Code's suggestions (by index); deny, with a message for
 * Claude, and `interrupt` to stop its turn as well. An allow may carry a grant: the same requests
 * are then allowed at once for a while (GrantChoiceSchema). For a plan, allow approves it and a deny's
 * message is the feedback. There is no other allow: the input is never changed. A risky approval
 * is allowed only with `confirmRisky`, and never with a grant.
 */
export const ApprovalDecisionSchema = z
  .discriminatedUnion('behavior', [
    z.strictObject({
      behavior: z.literal('allow'),
      suggestion: z.number().int().min(0).max(MAX_SUGGESTIONS - 1).optional(),
      grant: GrantChoiceSchema.optional(),
      /** The person confirmed allowing a risky approval (its view's `risk`): required for one, as one tap never allows it. */
      confirmRisky: z.literal(true).optional(),
    }),
    z.strictObject({ behavior: z.literal('deny'), message: text(LIMITS.otherChars).optional(), interrupt: z.boolean().optional() }),
  ])
  .meta({ title: 'decision' });
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/**
 * The end of one of Claude's turns, held while the person is away (the Stop hook): Claude's last
 * message, and how many replies in a row continued this turn already. Claude Code lets a turn go on
 * at most `replyLimit` times in a row: when `repliesInARow + 1 === replyLimit`, the next reply is the last.
 */
export const TurnEndSchema = z.object({
  /** Claude's last message, as markdown (hostile model text). */
  lastMessage: z.string(),
  /** Set when lastMessage was cut at LAST_MESSAGE_CHARS. */
  truncated: z.boolean().optional(),
  repliesInARow: z.number().int().min(0),
  replyLimit: z.number().int().min(1),
});
export type TurnEnd = z.infer<typeof TurnEndSchema>;

/**
 * One field of an MCP form as elicitation-form.ts reads it (its FormField): kept whole, whatever
 * keys its kind has, so that a page or the CLI can show it and check an answer with the same module.
 */
const FormFieldViewSchema = z.looseObject({ name: z.string(), kind: z.enum(['text', 'number', 'boolean', 'choice', 'choices']), required: z.boolean() });

/**
 * An MCP server asks the person for input through Claude Code (its Elicitation hook): a form, as
 * elicitation-form.ts read it, or a URL to open, with the URL's exact host shown so the person sees
 * where it leads. `server` and `message` are the server's words (hostile text); `elicitationId` is
 * Claude Code's id of a URL request.
 */
export const ElicitationSchema = z.discriminatedUnion('mode', [
  z.object({ server: z.string(), message: z.string(), mode: z.literal('form'), form: z.object({ fields: z.array(FormFieldViewSchema) }) }),
  z.object({ server: z.string(), message: z.string(), mode: z.literal('url'), url: z.string(), host: z.string(), elicitationId: z.string() }),
]);
export type Elicitation = z.infer<typeof ElicitationSchema>;

/**
 * A person's response to an MCP server's elicitation (the body of POST /api/asks/:id/elicitation,
 * and what its view keeps): accept with the form's values (checked against the form; a URL's accept
 * has none), decline, or cancel. The server receives exactly this.
 */
export const ElicitationResponseSchema = z
  .discriminatedUnion('action', [
    z.strictObject({ action: z.literal('accept'), content: z.unknown().optional() }),
    z.strictObject({ action: z.literal('decline') }),
    z.strictObject({ action: z.literal('cancel') }),
  ])
  .meta({ title: 'elicitation response' });
export type ElicitationResponse = z.infer<typeof ElicitationResponseSchema>;
/** An elicitation's response as it was given: an accept's values checked (a fresh object, in the form's order). */
export const ElicitationResultSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('accept'), content: z.record(z.string(), z.unknown()).optional() }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);
export type ElicitationResult = z.infer<typeof ElicitationResultSchema>;

/**
 * A session waits on the person in its terminal for something askbridge cannot answer (Claude Code's
 * Notification hook): `kind` is Claude Code's notification_type (`idle_prompt`, `permission_prompt`,
 * `elicitation_dialog`...), `message` its words. It leaves once the session moves on.
 */
export const TerminalWaitSchema = z.object({ kind: z.string(), message: z.string() });
export type TerminalWait = z.infer<typeof TerminalWaitSchema>;

/** The most a reply to a turn's end may hold. */
export const REPLY_CHARS = 20_000;

/**
 * Body of POST /api/sessions/:sessionId/reply: the person's reply to the end of Claude's turn (Claude
 * goes on with exactly that text), or `done` (Claude stops). `ask` names the turn's end replied to: a
 * reply meant for one that ended meanwhile is refused, never given to the next.
 */
export const TurnReplySchema = z
  .union([
    z.strictObject({ text: text(REPLY_CHARS).refine((s) => s.trim().length > 0, { message: 'must not be empty: say something, or send {"done": true}' }), ask: z.uuid().optional() }),
    z.strictObject({ done: z.literal(true), ask: z.uuid().optional() }),
  ])
  .meta({ title: 'reply' });
export type TurnReply = z.infer<typeof TurnReplySchema>;

/** Whether the person said they are away: only then does the end of a turn wait for a reply (PUT /api/away). */
export const AwaySchema = z.strictObject({ away: z.boolean() }).meta({ title: 'away' });

/**
 * Where the end of a turn reaches askbridge on this machine (wiring.ts): `everywhere` (the user's
 * settings or the plugin hand it over for every session), `partly` (some places that wire askbridge
 * leave it out: each gap names its settings file, what is missing and the command that adds it), or
 * `nowhere` (then `fix` is the one command to run). Away holds a turn's end only where it reaches.
 */
export const TurnEndReachSchema = z.object({
  reach: z.enum(['everywhere', 'partly', 'nowhere']),
  gaps: z.array(z.object({ path: z.string(), missing: z.array(z.string()), fix: z.string() })),
  fix: z.string().optional(),
});
export type TurnEndReach = z.infer<typeof TurnEndReachSchema>;

/**
 * Whether the person is away (a page's own person's switch; the CLI's and an unpersoned page's is the
 * daemon's own user's), and where the end of a turn reaches askbridge (so nothing promises what the
 * wiring cannot deliver). `awayPeople`, to the CLI only: the people who said they are away (absent: nobody).
 */
export const AwayReplySchema = z.object({ away: z.boolean(), turnEnds: TurnEndReachSchema, awayPeople: z.array(PersonNameSchema).optional() }).meta({ title: 'away state' });
export type AwayReply = z.infer<typeof AwayReplySchema>;

/**
 * What a person may decide on an ask where it is shown whole (the page, the CLI), from its asker's
 * profile (agents.ts) and what it asks; a channel that shows it cut (Telegram, a notification) may
 * decide less. The one contract every channel obeys and the store checks (choices.ts).
 */
export const ChoicesSchema = z.object({
  /** Questions: whether each, in order, takes typed text ("Other") besides its options. */
  typedAnswers: z.array(z.boolean()),
  /** Questions: whether a note may go with an answer. */
  notes: z.boolean(),
  /** Where handing it back leaves it, in words ("the terminal", "opencode's prompt"); absent when nothing is behind it. */
  handBack: z.string().optional(),
  /** An approval: whether it may be allowed at all (not where what would run is shown cut). */
  allow: z.boolean(),
  /** An approval: whether one of its "always allow" suggestions may be chosen. */
  remember: z.boolean(),
  /** An approval: whether "deny and stop" is offered (always without words). */
  stop: z.boolean(),
  /** An approval: whether an allow may carry a grant (approval.grant says what it would cover). */
  grant: z.boolean(),
});
export type Choices = z.infer<typeof ChoicesSchema>;

/**
 * Where an ask goes: the people its route names (groups already expanded), how many distinct people
 * must allow a permission, and which rule of the user config's `route` said so (absent: the session's own person).
 */
export const RouteViewSchema = z.object({
  people: z.array(PersonNameSchema),
  approvals: z.union([z.literal(1), z.literal(2)]),
  rule: z.string().optional(),
});
export type RouteView = z.infer<typeof RouteViewSchema>;

/** One person's allow of an ask that two distinct people must allow. */
export const AllowSchema = z.object({ person: PersonNameSchema, device: z.string(), client: PersonClientSchema, at: z.number() });
export type Allow = z.infer<typeof AllowSchema>;

/** An ask (one AskUserQuestion call, or one from a script or an agent) and its questions, as pages and the CLI see it. */
export const AskViewSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  toolUseId: z.string(),
  cwd: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  /** What happens at expiresAt. */
  timeout: AskTimeoutSchema,
  status: AskStatusSchema,
  questions: z.array(
    z.object({
      question: z.string(),
      header: z.string(),
      multiSelect: z.boolean(),
      options: z.array(z.object({ label: z.string(), description: z.string(), preview: z.string().optional() })),
    }),
  ),
  answers: z.record(z.string(), z.string()).optional(),
  notes: z.record(z.string(), z.string()).optional(),
  source: SourceSchema.optional(),
  /** The coding agent that asked (its hook, or its server through `askbridge attach`); absent when a script or an MCP client did. */
  agent: AgentSchema.optional(),
  /** Set when a script or an MCP client asked. */
  asker: AskerSchema.optional(),
  /** What a person may decide on it where it is shown whole. */
  choices: ChoicesSchema,
  /** The machine a remote hook named (askbridge install --url), or a relayed agent's server is on; absent for this machine. */
  machine: z.string().optional(),
  /**
   * A relayed ask's decision on its way to the agent (askbridge attach): `waiting` until the agent
   * confirms it took it ("answered, not yet delivered"), then `delivered`; `undeliverable` when it
   * never can be (the agent's request is gone: `error` says why).
   */
  delivery: z.enum(['waiting', 'delivered', 'undeliverable']).optional(),
  /** Why a `failed` question failed. */
  error: z.string().optional(),
  resolvedAt: z.number().optional(),
  /** The latest expiresAt a page may ask for while a person is answering (POST .../extend); absent: no more time. */
  extendableUntil: z.number().optional(),
  /** What the session was doing, read from its transcript after the question arrived (an `updated` message brings it). */
  context: SessionContextSchema.optional(),
  /** Set when Claude Code asks for a permission (or a plan's approval) instead of asking questions; `questions` is then empty. */
  approval: ApprovalSchema.optional(),
  /** How an approval was decided, once it was. */
  decision: ApprovalDecisionSchema.optional(),
  /** Why this approval is dangerous (risk.ts), computed by the daemon when it opened; absent when nothing on the list matched. */
  risk: z.object({ reasons: z.array(z.string()).min(1) }).optional(),
  /** Set when Claude finished a turn while the person is away; `questions` is then empty. */
  turnEnd: TurnEndSchema.optional(),
  /** The person's reply to a turn's end (status `replied`), exactly as Claude received it. */
  reply: z.string().optional(),
  /** Set when the session waits on the person in its terminal; `questions` is then empty, and nothing here answers it. */
  terminalWait: TerminalWaitSchema.optional(),
  /** Set when an MCP server asks for input (a form or a URL); `questions` is then empty. */
  elicitation: ElicitationSchema.optional(),
  /** How a person responded to an elicitation, once they did (what the server received). */
  elicitationResult: z.object({ action: z.enum(['accept', 'decline', 'cancel']), content: z.record(z.string(), z.unknown()).optional() }).optional(),
  /** Whose session asked, as its hook said (`askbridge remote-hook --person NAME`); absent when it did not say. */
  person: PersonNameSchema.optional(),
  /** Who may see and decide it (the user config's `route`), fixed when it opened; absent: everyone. */
  route: RouteViewSchema.optional(),
  /** The allows given so far, where two distinct people must allow (route.approvals 2): one entry each. */
  allows: z.array(AllowSchema).optional(),
});
export type AskView = z.infer<typeof AskViewSchema>;

/** Every refusal: a stable code, a sentence, and for invalid input one line per problem. */
export const ErrorReplySchema = z.object({ error: z.object({ code: z.string(), message: z.string(), details: z.array(z.string()).optional() }) });
export type ErrorReply = z.infer<typeof ErrorReplySchema>;

/** Messages the daemon pushes to every page over the WebSocket; `error` answers a page message it refused. */
export const ServerMessageSchema = z.discriminatedUnion('type', [
  /** The pending asks; `undelivered`: relayed decisions not delivered to their agent yet (absent when none). */
  z.object({ type: z.literal('snapshot'), asks: z.array(AskViewSchema), undelivered: z.array(AskViewSchema).optional() }),
  z.object({ type: z.literal('added'), ask: AskViewSchema }),
  z.object({ type: z.literal('resolved'), ask: AskViewSchema }),
  /** A waiting ask changed: more time (expiresAt), or its session's context arrived. */
  z.object({ type: z.literal('updated'), ask: AskViewSchema }),
  z.object({ type: z.literal('banner'), message: z.string().nullable() }),
  /** The live grants: sent after the snapshot, and whenever one is made or ends. */
  z.object({ type: z.literal('grants'), grants: z.array(GrantSchema) }),
  /** Whether the person is away, and where a turn's end reaches askbridge: sent after the snapshot, and whenever it changes. */
  z.object({ type: z.literal('away'), away: z.boolean(), turnEnds: TurnEndReachSchema }),
  z.object({ type: z.literal('error'), error: ErrorReplySchema.shape.error }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

/** What a page tells the daemon over its WebSocket: whether a person can see it (nobody is pushed to while a page is in view). */
export const PageMessageSchema = z.discriminatedUnion('type', [z.strictObject({ type: z.literal('visibility'), visible: z.boolean() })]).meta({ title: 'page message' });
export type PageMessage = z.infer<typeof PageMessageSchema>;

/** The header a paired page sends its key in, with its cookie. */
export const PAGE_KEY_HEADER = 'x-askbridge-key';
/**
 * A paired page's service worker answers from a notification's button with this header set to
 * `notification` (sw.js), so history says so; from anyone else it means nothing.
 */
export const ANSWER_CLIENT_HEADER = 'x-askbridge-client';
/** The WebSocket subprotocol a page asks for and the daemon selects. */
export const PAGE_PROTOCOL = 'askbridge';
/** Browsers cannot set headers on a WebSocket: a page's key travels as a second subprotocol, this prefix and the key. */
export const PAGE_KEY_PROTOCOL_PREFIX = 'key.';
/** The close code of a watcher's WebSocket when the daemon stops (the standard "going away"). */
export const STOPPING_CLOSE_CODE = 1001;
/** The close code of a page's WebSocket when its device was unpaired: the page then knows it is no longer paired. */
export const REVOKED_CLOSE_CODE = 4001;
/** How long a one-time pairing code pairs, from when it is made: ten minutes. */
export const PAIRING_CODE_TTL_MS = 10 * 60_000;

/** The daemon's replies about asks, to the page and the CLI. */
/** Reply of GET /api/asks: the asks waiting, and the relayed ones answered whose decision has not reached their agent yet. */
export const AsksReplySchema = z.object({ asks: z.array(AskViewSchema), undelivered: z.array(AskViewSchema).optional() });
export const AskReplySchema = z.object({ ask: AskViewSchema });
export type AsksReply = z.infer<typeof AsksReplySchema>;
export type AskReply = z.infer<typeof AskReplySchema>;
/** An answer that came too late: the refusal, and how the ask was settled. */
export const TooLateReplySchema = ErrorReplySchema.extend({ ask: AskViewSchema });
export type TooLateReply = z.infer<typeof TooLateReplySchema>;

/** Reply of POST /api/attach/opencode: the settled ask, and what opencode gets (null: nothing, its own prompt decides). */
export const AttachOpencodeReplySchema = z.object({ ask: AskViewSchema, reply: OpencodeReplySchema.nullable() }).meta({ title: 'opencode decision' });
export type AttachOpencodeReply = z.infer<typeof AttachOpencodeReplySchema>;

/** Reply of POST /api/attach/codex: the settled ask, and Codex's answer to its request (null: none, its own picker or dialog stays). */
export const AttachCodexReplySchema = z.object({ ask: AskViewSchema, reply: z.union([CodexUserInputResponseSchema, CodexElicitationResponseSchema]).nullable() }).meta({ title: 'Codex answer' });
export type AttachCodexReply = z.infer<typeof AttachCodexReplySchema>;

/** Why history.jsonl cannot be written now (the answers are still delivered). */
export const HistoryProblemSchema = z.object({ error: z.string(), since: z.number(), waiting: z.number(), lost: z.number() });
export type HistoryProblem = z.infer<typeof HistoryProblemSchema>;
/** Why the audit trail cannot be written now (a person's decisions wait until it can), and since when. */
export const AuditProblemSchema = z.object({ error: z.string(), since: z.number() });
export type AuditProblem = z.infer<typeof AuditProblemSchema>;
/** Who polls the Telegram bot among the daemons sharing a store (docs/shared-store.md). */
export const TelegramPollingSchema = z.enum(['polling_here', 'polled_elsewhere', 'waiting_for_store']);
export type TelegramPolling = z.infer<typeof TelegramPollingSchema>;
/** The shared store as the daemon sees it (docs/shared-store.md): where it is (no password), whether it can be used now, why not, since when. */
export const StoreHealthSchema = z.object({
  where: z.string(),
  reachable: z.boolean(),
  reason: z.string().optional(),
  since: z.number(),
  /** Which daemon sharing the store polls the Telegram bot (only one may): this one, another, or none while the store cannot be reached. Absent: no bot is set. */
  telegram: TelegramPollingSchema.optional(),
});
export type StoreHealth = z.infer<typeof StoreHealthSchema>;
/** `askbridge status`. */
export const StatusReplySchema = z.object({
  pid: z.number(),
  port: z.number(),
  url: z.string(),
  version: z.string(),
  pending: z.number(),
  watchers: z.number(),
  /** Pages that say a person can see them now. */
  visiblePages: z.number(),
  history: HistoryProblemSchema.nullable(),
  /** Absent from a daemon older than the audit trail. */
  audit: AuditProblemSchema.nullable().optional(),
  /** The daemon's own user said they are away: the end of every turn waits for a reply. */
  away: z.boolean(),
  /** The people who said they are away: the end of a turn routed to them waits (absent: nobody, or a daemon older than their own switches). */
  awayPeople: z.array(PersonNameSchema).optional(),
  /** Where the end of a turn reaches askbridge on this machine's wiring. */
  turnEnds: TurnEndReachSchema,
  /** Who could be told of a question nobody watches, besides the config's webhooks: paired devices with a push subscription, paired Telegram chats. */
  tellable: z.object({ pushDevices: z.number(), telegramChats: z.number() }),
  /** The user config's route rules and the people askbridge knows (absent from a daemon older than routes). */
  routes: z.object({ rules: z.number(), people: z.number() }).optional(),
  /** The shared store, when one is set (absent: the state directory's files, as always). */
  store: StoreHealthSchema.optional(),
});
export type StatusReply = z.infer<typeof StatusReplySchema>;
export type Tellable = StatusReply['tellable'];
/**
 * A one-time pairing code and the links that carry it: on this machine, and at the public URL when
 * there is one; `qr` is the QR code of the link another device should open (the public one when set),
 * one string of 0 and 1 per row, so a page can draw it without a library.
 */
export const PairingReplySchema = z.object({
  code: z.string(),
  links: z.object({ local: z.string(), public: z.string().optional() }),
  qr: z.array(z.string().regex(/^[01]+$/)),
});
export type PairingReply = z.infer<typeof PairingReplySchema>;
/** The paired browsers and Telegram chats; `current` is the browser asking. */
export const DevicesReplySchema = z.object({ devices: z.array(PairedDeviceSchema.extend({ current: z.boolean() })) });
export type DevicesReply = z.infer<typeof DevicesReplySchema>;
/**
 * Whose device (or chat) a new pairing makes: a person askbridge knows. The local CLI may name anyone;
 * a paired page pairs another device for its own person only (absent: its own person, or nobody).
 */
export const PairingRequestSchema = z.strictObject({ person: PersonNameSchema.optional() }).nullable().meta({ title: 'pairing request', description: 'Send no body, {}, or {"person": NAME}' });
export type PairingRequest = z.infer<typeof PairingRequestSchema>;

/** A one-time code that pairs one Telegram chat with the user's bot: the chat sends `/start CODE` to @bot. */
export const TelegramPairingReplySchema = z.object({ code: z.string(), bot: z.string(), expiresAt: z.number() });
export type TelegramPairingReply = z.infer<typeof TelegramPairingReplySchema>;
/** A device unpaired. */
export const RevokedReplySchema = z.object({ revoked: z.literal(true) });
export type RevokedReply = z.infer<typeof RevokedReplySchema>;

/** Base64url for exactly `bytes` bytes (padding allowed, as some browsers send it). */
const base64urlBytes = (bytes: number, what: string, check: (decoded: Buffer) => boolean = () => true) =>
  z
    .string()
    .max(200)
    .refine((text) => {
      if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) return false;
      const decoded = Buffer.from(text, 'base64url');
      return decoded.length === bytes && check(decoded);
    }, { message: `must be ${what}, base64url-encoded` });

/** A browser's PushSubscription, as its toJSON() gives it: where its push service takes pushes, and the keys to encrypt them for it. */
export const PushSubscriptionSchema = z
  .strictObject({
    endpoint: z
      .string()
      .max(2048)
      .superRefine((raw, ctx) => {
        const problem = outboundUrlProblem(raw);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    expirationTime: z.number().nullable().optional(),
    keys: z.strictObject({
      p256dh: base64urlBytes(65, "the browser's P-256 public key (65 bytes, uncompressed)", (key) => key[0] === 4),
      auth: base64urlBytes(16, 'the 16-byte auth secret'),
    }),
  })
  .meta({ title: 'push subscription' });
export type PushSubscriptionJson = z.infer<typeof PushSubscriptionSchema>;
/** What a page needs to subscribe (the daemon's VAPID public key), and whether its device is subscribed. */
export const PushStatusReplySchema = z.object({ publicKey: z.string(), subscribed: z.boolean() });
export type PushStatusReply = z.infer<typeof PushStatusReplySchema>;
/** This device's subscription was kept (POST), or forgotten (DELETE). */
export const PushSubscribedReplySchema = z.object({ subscribed: z.literal(true) });
export type PushSubscribedReply = z.infer<typeof PushSubscribedReplySchema>;
export const PushUnsubscribedReplySchema = z.object({ subscribed: z.literal(false) });
export type PushUnsubscribedReply = z.infer<typeof PushUnsubscribedReplySchema>;

/** A paired page's key (its cookie is in Set-Cookie). */
export const PairedReplySchema = z.object({ paired: z.literal(true), key: z.string() });
export type PairedReply = z.infer<typeof PairedReplySchema>;
/**
 * A page that asks whether it is paired, and is: its device's name, and the person it was paired for
 * (absent: paired with no person named), so that the page can say whose it is.
 */
export const SessionReplySchema = z.object({ paired: z.literal(true), device: z.string().optional(), person: PersonNameSchema.optional() });
export type SessionReply = z.infer<typeof SessionReplySchema>;
/** The daemon's proof for the command hook (hook-identity.ts). */
export const HookHelloReplySchema = z.object({ nonce: z.string(), proof: z.string() });

/**
 * Check parsed JSON against a schema and keep it as JSON.parse made it. For data that is only read
 * (history, the daemon's replies): zod's own result copies records into new objects, where a key
 * called `__proto__` (a question's text, in answers) would stop being an own key.
 */
export function checkShape<Schema extends z.ZodType>(schema: Schema, value: unknown): { ok: true; value: z.infer<Schema> } | { ok: false; error: z.ZodError } {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: value as z.infer<Schema> } : { ok: false, error: parsed.error };
}

/** Turn a zod error into one readable line per issue: `tool_input.questions.0.options: too small`. */
export function describeZodError(error: z.ZodError, prefix = ''): string[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}
