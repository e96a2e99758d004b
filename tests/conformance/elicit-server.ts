/**
 * A stdio MCP server, on the official MCP SDK, whose tools ask the client for input
 * (MCP elicitation), for the elicitation probes and conformance tests. The client runs it
 * as `node --import <tsx> elicit-server.ts` (see `elicitServerCommand`).
 *
 * Tools:
 * - `form_all_kinds`: a form with every field kind MCP allows;
 * - `form_one_choice`: a form with one enum field;
 * - `url_signin`: a URL-mode request (`mode: "url"`, `url`, `elicitationId`).
 *
 * Every elicitation appends one JSON line to the file named by ELICIT_LOG, with what came
 * back on the wire, before the SDK's own checks: `{tool, action, content?}` (content only
 * when the client sent one), or `{tool, error}` for a JSON-RPC error; `sdkError` is added
 * when the SDK then refused it (say, content that breaks the schema). A tool call the client
 * cancels appends `{tool, cancelled: true}`. So a test reads exactly what the server got.
 * Once the client has initialized the connection, `{initialized: true, capabilities}` (the
 * client's capabilities) is appended first: from then on its tools are offered to the model.
 * With ELICIT_UNCHECKED=1 the request is sent even to a client that did not declare the
 * `elicitation` capability (the SDK's elicitInput refuses to), to see what such a client replies.
 */
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ElicitResultSchema, type ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The requested schema of `form_all_kinds`: every MCP field kind, with titles, descriptions, defaults and required fields. */
export const ALL_KINDS_SCHEMA = {
  type: 'object',
  properties: {
    email: { type: 'string', title: 'Email', description: 'Where to send the report', format: 'email' },
    homepage: { type: 'string', title: 'Homepage', format: 'uri' },
    start: { type: 'string', title: 'Start date', format: 'date' },
    deadline: { type: 'string', title: 'Deadline', format: 'date-time' },
    // `pattern` is JSON Schema, not in MCP's StringSchema: a server may still send it.
    code: { type: 'string', title: 'Project code', description: 'Three capitals', minLength: 3, maxLength: 3, pattern: '^[A-Z]{3}$', default: 'ABC' },
    budget: { type: 'number', title: 'Budget', minimum: 0.5, maximum: 1000, default: 10.5 },
    replicas: { type: 'integer', title: 'Replicas', description: 'How many copies', minimum: 1, maximum: 9, default: 2 },
    confirm: { type: 'boolean', title: 'Confirm', description: 'Really deploy?', default: false },
    environment: { type: 'string', title: 'Environment', enum: ['staging', 'production'], default: 'staging' },
    region: {
      type: 'string',
      title: 'Region',
      oneOf: [
        { const: 'eu-west', title: 'Europe (West)' },
        { const: 'us-east', title: 'US (East)' },
      ],
    },
    features: { type: 'array', title: 'Features', description: 'One or two', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['logs', 'metrics', 'traces'] }, default: ['logs'] },
  },
  required: ['email', 'replicas', 'confirm', 'environment'],
} as const;

export const ALL_KINDS_MESSAGE = 'Fill in the deployment form';

/** The requested schema of `form_one_choice`. */
export const ONE_CHOICE_SCHEMA = {
  type: 'object',
  properties: { color: { type: 'string', title: 'Color', enum: ['red', 'green', 'blue'] } },
  required: ['color'],
} as const;

export const ONE_CHOICE_MESSAGE = 'Pick a color';

export const SIGNIN_MESSAGE = 'Sign in to the forms service';
export const SIGNIN_URL = 'https://example.test/signin?state=probe';
export const SIGNIN_ELICITATION_ID = 'signin-0001';

/** The line ELICIT_LOG gets per elicitation or cancelled call (`tool` set), or once initialized. */
export interface ElicitLogLine {
  tool?: string;
  initialized?: true;
  capabilities?: unknown;
  action?: string;
  content?: unknown;
  error?: unknown;
  sdkError?: string;
  cancelled?: true;
}

/** The command and arguments that run this server with Node and tsx, from any working directory. */
export function elicitServerCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.url)] };
}

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number; method: string } {
  return 'method' in message && 'id' in message;
}

async function main(): Promise<void> {
  const logFile = process.env.ELICIT_LOG;
  if (!logFile) throw new Error('elicit-server: set ELICIT_LOG to the file that records what the server received');
  const record = (line: ElicitLogLine): void => appendFileSync(logFile, `${JSON.stringify(line)}\n`);
  const unchecked = process.env.ELICIT_UNCHECKED === '1';

  const server = new McpServer({ name: 'forms', version: '1.0.0' });
  const transport = new StdioServerTransport();

  // The wire, tapped: the SDK validates accepted content and may throw, and the test needs what came before that.
  let lastElicitationId: string | number | undefined;
  const responses = new Map<string | number, JSONRPCMessage>();

  const elicit = async (tool: string, params: ElicitRequestFormParams | Parameters<typeof server.server.elicitInput>[0]): Promise<string> => {
    lastElicitationId = undefined;
    const pending = unchecked ? server.server.request({ method: 'elicitation/create', params }, ElicitResultSchema) : server.server.elicitInput(params);
    // elicitInput sends before its first await, so the request id is known here.
    const id = lastElicitationId;
    let sdkError: string | undefined;
    try {
      await pending;
    } catch (error) {
      sdkError = error instanceof Error ? error.message : String(error);
    }
    const raw = id === undefined ? undefined : (responses.get(id) as { result?: { action?: string; content?: unknown }; error?: unknown } | undefined);
    const line: ElicitLogLine = { tool };
    if (raw?.result) {
      line.action = raw.result.action;
      if ('content' in raw.result) line.content = raw.result.content;
    }
    if (raw?.error) line.error = raw.error;
    if (sdkError !== undefined) line.sdkError = sdkError;
    record(line);
    return JSON.stringify(line);
  };

  const watchCancel = (tool: string, signal: AbortSignal): void => {
    signal.addEventListener('abort', () => record({ tool, cancelled: true }), { once: true });
  };

  server.registerTool('form_all_kinds', { description: 'Ask for a deployment form with every field kind' }, async (extra) => {
    watchCancel('form_all_kinds', extra.signal);
    // The SDK's types leave out `pattern`; the wire carries whatever the server sends.
    const requestedSchema = ALL_KINDS_SCHEMA as unknown as ElicitRequestFormParams['requestedSchema'];
    return { content: [{ type: 'text', text: await elicit('form_all_kinds', { mode: 'form', message: ALL_KINDS_MESSAGE, requestedSchema }) }] };
  });
  server.registerTool('form_one_choice', { description: 'Ask for one color' }, async (extra) => {
    watchCancel('form_one_choice', extra.signal);
    const requestedSchema = ONE_CHOICE_SCHEMA as unknown as ElicitRequestFormParams['requestedSchema'];
    return { content: [{ type: 'text', text: await elicit('form_one_choice', { mode: 'form', message: ONE_CHOICE_MESSAGE, requestedSchema }) }] };
  });
  server.registerTool('url_signin', { description: 'Ask the user to sign in on a web page' }, async (extra) => {
    watchCancel('url_signin', extra.signal);
    return {
      content: [{ type: 'text', text: await elicit('url_signin', { mode: 'url', message: SIGNIN_MESSAGE, url: SIGNIN_URL, elicitationId: SIGNIN_ELICITATION_ID }) }],
    };
  });

  server.server.oninitialized = () => record({ initialized: true, capabilities: server.server.getClientCapabilities() });
  await server.connect(transport);
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    if (isRequest(message) && message.method === 'elicitation/create') lastElicitationId = message.id;
    return send(message);
  };
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if (!('method' in message) && 'id' in message && message.id !== undefined) responses.set(message.id as string | number, message);
    receive?.(message);
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`elicit-server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
