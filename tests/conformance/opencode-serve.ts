// The real opencode server (`opencode serve`, the pinned version from .cache/opencode) for
// conformance tests: its own HOME and XDG folders, its model a fake OpenAI-compatible API
// (fake-chat.ts) given through OPENCODE_CONFIG_CONTENT, bash and edit set to ask. Its events are
// collected from GET /global/event. opencode does not exit on SIGTERM: stop() kills its process
// group, by the pid it was started with.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from '../stack/clock.js';
import { REPO_ROOT } from '../stack/env.js';

export type OpencodeEvent = { directory?: string; payload: { type: string; properties: Record<string, unknown> } };

export type Opencode = {
  url: string;
  /** The project folder it serves (its sessions' directory). */
  project: string;
  events(): OpencodeEvent[];
  waitForEvent(match: (event: OpencodeEvent) => boolean, timeoutMs?: number, what?: string): Promise<OpencodeEvent>;
  api<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** A new session, prompted with `text`: the fake model plays its next step. Returns the session's id. */
  prompt(text: string): Promise<string>;
  stop(): Promise<void>;
};

/** The pinned opencode's binary, installed by `node scripts/conformance-client.mjs opencode`. */
export function opencodeBinary(): string {
  const { config } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { config: { opencodeVersion: string } };
  const binary = join(REPO_ROOT, '.cache', 'opencode', config.opencodeVersion, 'node_modules', '.bin', 'opencode');
  if (!existsSync(binary)) throw new Error(`opencode ${config.opencodeVersion} is not installed: run \`node scripts/conformance-client.mjs opencode\``);
  return binary;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** `extraConfig` is merged into opencode's config (say, `mcp` servers). */
export async function startOpencode(chatBaseUrl: string, extraConfig: Record<string, unknown> = {}): Promise<Opencode> {
  const root = await mkdtemp(join(tmpdir(), 'askbridge-opencode-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  const config = {
    autoupdate: false,
    share: 'disabled',
    model: 'fake/fake-model',
    permission: { bash: 'ask', edit: 'ask' },
    provider: { fake: { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: chatBaseUrl, apiKey: 'fake' }, models: { 'fake-model': { name: 'Fake model', tool_call: true } } } },
    ...extraConfig,
  };
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    // The question tool is offered only to some clients unless this says so.
    OPENCODE_ENABLE_QUESTION_TOOL: '1',
  };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(opencodeBinary(), ['serve', '--port', String(port), '--hostname', '127.0.0.1'], { cwd: project, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const pid = child.pid!;
  const stop = async () => {
    stream.abort();
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-pid, 'SIGKILL');
      await exited;
    }
    await rm(root, { recursive: true, force: true });
  };
  const stream = new AbortController();
  const events: OpencodeEvent[] = [];
  try {
    await waitUntil(() => (output.includes('listening on') ? true : undefined), 30_000, `opencode listening (${output})`);
    const response = await fetch(`${url}/global/event`, { signal: stream.signal });
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      const reader = response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const data = buffer.slice(0, end).replace(/^data: ?/, '');
          buffer = buffer.slice(end + 2);
          events.push(JSON.parse(data) as OpencodeEvent);
        }
      }
    })().catch(() => undefined);
  } catch (error) {
    await stop();
    throw error;
  }

  const api: Opencode['api'] = async (method, path, body) => {
    const response = await fetch(`${url}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as never };
  };
  return {
    url,
    project,
    events: () => [...events],
    waitForEvent: (match, timeoutMs = 60_000, what = 'an opencode event') => waitUntil(() => events.find(match), timeoutMs, what),
    api,
    async prompt(text) {
      const session = await api<{ id: string }>('POST', '/session', {});
      const sent = await api('POST', `/session/${session.body.id}/prompt_async`, { parts: [{ type: 'text', text }] });
      if (sent.status >= 300) throw new Error(`opencode refused the prompt: HTTP ${sent.status}`);
      return session.body.id;
    },
    stop,
  };
}
