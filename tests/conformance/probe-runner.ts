/**
 * Runs one probe of the real Claude Code client: a fake model that plays
 * scripted tool calls, an http hook on every event recorded by HookRecorder,
 * a timeline of hook requests (arrival, answer, socket close), model requests,
 * transcript lines (polled every 50 ms) and screens, written to
 * /tmp/research/raw/<name>.{json,log}. Not a test: permissions.probe.ts runs it.
 */
import { chmod, copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startClaude } from './claude-tmux.js';
import type { ClaudeSession } from './claude-tmux.js';
import { contentText, startFakeAnthropic } from './fake-anthropic.js';
import type { FakeAnthropic, Step } from './fake-anthropic.js';
import { ALL_HOOK_EVENTS, HookRecorder } from './hook-recorder.js';
import type { HookAnswer, HookCall } from './hook-recorder.js';

export const RESEARCH_DIR = process.env.PROBE_OUT ?? '/tmp/research';

export interface TimelineEntry {
  t: number;
  kind: string;
  text: string;
}

export interface ProbeContext {
  claude: ClaudeSession;
  fake: FakeAnthropic;
  hooks: HookRecorder;
  projectDir: string;
  log(kind: string, text: string): void;
  /** Logs the current screen under a label and returns it. */
  snap(label: string): Promise<string>;
  sleep(ms: number): Promise<void>;
  /** Submits a prompt; accepted once the fake got a new main request. */
  prompt(text: string): Promise<void>;
  /** Waits for the screen to match, then waits `settleMs` (dialogs drop early keys), and logs it. */
  waitScreen(expected: RegExp | string, label: string, timeoutMs?: number, settleMs?: number): Promise<string>;
  /** Types literal keys (e.g. "2" to pick option 2). */
  keys(text: string): Promise<void>;
  /** The transcript path from the first hook payload that had one. */
  transcriptPath(): string | undefined;
  /** Transcript lines seen so far (parsed). */
  transcript: unknown[];
}

export interface ProbeSpec {
  /** Claude arguments; default `--permission-mode default`. */
  args?: string[];
  /** Files to create in the project (relative paths); `*.sh` are made executable. */
  files?: Record<string, string>;
  /** The model's steps; gets the project dir. */
  steps: (projectDir: string) => Step[];
  /** What each hook request gets. Default: PermissionRequest held open, everything else `{}` at once. */
  decide?: (call: HookCall, hooks: HookRecorder) => HookAnswer | undefined;
  /** Hook entry timeouts (s) per event. */
  timeouts?: Record<string, number>;
  /** Events to register; default all. */
  events?: readonly string[];
  /** Extra top-level settings merged into the project settings (e.g. permissions); its `hooks` entries are added to the recorder's. */
  settings?: Record<string, unknown>;
  act: (ctx: ProbeContext) => Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function holdPermissionRequests(call: HookCall): HookAnswer | undefined {
  return call.event === 'PermissionRequest' ? undefined : { json: {} };
}

function brief(value: unknown, max = 400): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…(${text.length})` : text;
}

/** Hook body without the fields every event repeats. */
export function trimCommon(body: Record<string, unknown>): Record<string, unknown> {
  const { session_id: _s, transcript_path: _t, cwd: _c, ...rest } = body;
  return rest;
}

async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    if (full.includes('/projects/') || full.includes('/shell-snapshots/') || full.includes('/statsig/')) continue;
    const text = await readFile(full, 'utf8').catch(() => '(unreadable)');
    out[full.slice(dir.length + 1)] = text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
  }
  return out;
}

/** Transcript lines worth a timeline entry: messages, system notes, hook attachments. */
function isInteresting(line: { type?: string; attachment?: { type?: string } }): boolean {
  if (line.type === 'user' || line.type === 'assistant' || line.type === 'system') return true;
  if (line.type === 'attachment') return /hook|permission|plan|mode/i.test(line.attachment?.type ?? '');
  return line.type === 'permission-mode';
}

export async function runProbe(name: string, spec: ProbeSpec): Promise<void> {
  const t0 = Date.now();
  const timeline: TimelineEntry[] = [];
  const log = (kind: string, text: string): void => {
    const entry = { t: Date.now() - t0, kind, text };
    timeline.push(entry);
    process.stdout.write(`${(entry.t / 1000).toFixed(2).padStart(7)} ${kind.padEnd(10)} ${text}\n`);
  };
  const outDir = join(RESEARCH_DIR, 'raw');
  await mkdir(outDir, { recursive: true });
  const projectDir = join(RESEARCH_DIR, 'proj', name);
  await rm(projectDir, { recursive: true, force: true });
  await mkdir(projectDir, { recursive: true });
  for (const [rel, text] of Object.entries(spec.files ?? {})) {
    const full = join(projectDir, rel);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, text);
    if (rel.endsWith('.sh')) await chmod(full, 0o755);
  }

  const hooks = new HookRecorder(undefined, t0);
  const decide = spec.decide ?? holdPermissionRequests;
  hooks.decider = (call) => decide(call, hooks);
  hooks.onChange = (what, call) => {
    const body = call.body;
    const tool = typeof body.tool_name === 'string' ? ` tool=${body.tool_name}` : '';
    if (what === 'arrive') log('hook', `#${call.seq} ${call.event}${tool} ${brief(trimCommon(body), 1500)}`);
    else if (what === 'answer') log('hook-ans', `#${call.seq} ${call.event} answered ${brief(call.answer)}`);
    else log('hook-CLOSE', `#${call.seq} ${call.event} socket closed by client (no answer), open ${((call.abortedAt ?? 0) - call.at) / 1000}s`);
  };
  await hooks.start();
  const fake = await startFakeAnthropic({ steps: spec.steps(projectDir), finalText: 'FINAL-TEXT: done.' });
  // Hook entries of the spec's own settings (command hooks, matchers) run beside the recorder's.
  const recorded = hooks.settings(spec.events ?? ALL_HOOK_EVENTS, spec.timeouts ?? {}).hooks as Record<string, unknown[]>;
  const own = (spec.settings?.hooks ?? {}) as Record<string, unknown[]>;
  const merged: Record<string, unknown[]> = { ...recorded };
  for (const [event, entries] of Object.entries(own)) merged[event] = [...(merged[event] ?? []), ...entries];
  const settings = { ...(spec.settings ?? {}), hooks: merged };

  let claude: ClaudeSession | undefined;
  const transcript: unknown[] = [];
  let polling = true;
  let seenRequests = 0;
  let transcriptSize = 0;
  const transcriptPath = (): string | undefined => {
    const hit = hooks.calls.find((c) => typeof c.body.transcript_path === 'string');
    return hit ? String(hit.body.transcript_path) : undefined;
  };
  const poll = async (): Promise<void> => {
    while (polling) {
      while (seenRequests < fake.requests.length) {
        const r = fake.requests[seenRequests]!;
        if (r.kind === 'main') {
          const messages = (r.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
          const last = messages[messages.length - 1];
          log('model', `main #${seenRequests} step=${r.step ?? '-'} reply=${r.reply} msgs=${messages.length} last(${last?.role}): ${brief(last?.content, 1500)}`);
        } else if (r.kind === 'background') {
          log('model-bg', `#${seenRequests} ${brief(contentText((r.body as { system?: unknown }).system), 80)}`);
        }
        seenRequests++;
      }
      const path = transcriptPath();
      if (path && existsSync(path)) {
        const text = await readFile(path, 'utf8').catch(() => '');
        if (text.length > transcriptSize) {
          const fresh = text.slice(transcriptSize);
          const complete = fresh.lastIndexOf('\n');
          if (complete >= 0) {
            transcriptSize += complete + 1;
            for (const line of fresh.slice(0, complete).split('\n')) {
              if (!line.trim()) continue;
              try {
                const parsed = JSON.parse(line) as { type?: string; message?: { role?: string; content?: unknown }; subtype?: string; attachment?: { type?: string } };
                transcript.push(parsed);
                const content = parsed.message?.content;
                if (!isInteresting(parsed)) {
                  // Still note that a line came (and when): progress lines and the like matter for timing.
                  log('transcr', `(${parsed.type ?? '?'}) ${brief(parsed, 300)}`);
                  continue;
                }
                log('transcr', `${parsed.type}${parsed.subtype ? `/${parsed.subtype}` : ''} ${parsed.message?.role ?? ''} ${brief(content ?? parsed, 700)}`);
              } catch {
                log('transcr', `(unparsed) ${brief(line)}`);
              }
            }
          }
        }
      }
      await sleep(50);
    }
  };
  let pollDone: Promise<void> = Promise.resolve();
  let failure: unknown;
  const screens: Array<{ t: number; label: string; screen: string }> = [];
  let finalFiles: Record<string, unknown> = {};
  try {
    claude = await startClaude({ baseUrl: fake.url, projectDir, settings, args: spec.args ?? ['--permission-mode', 'default'] });
    log('start', `claude up, project ${projectDir}`);
    pollDone = poll();
    const session = claude;
    const ctx: ProbeContext = {
      claude: session,
      fake,
      hooks,
      projectDir,
      log,
      transcript,
      transcriptPath,
      sleep,
      async snap(label) {
        const screen = await session.screen();
        screens.push({ t: Date.now() - t0, label, screen });
        log('screen', `${label}\n${screen.replace(/\n{3,}/g, '\n\n')}`);
        return screen;
      },
      async prompt(text) {
        const before = fake.mainRequests.length;
        await session.submit(text, { accepted: () => fake.mainRequests.length > before });
        log('prompt', text);
      },
      async waitScreen(expected, label, timeoutMs = 30_000, settleMs = 800) {
        await session.waitForScreen(expected, timeoutMs);
        log('seen', `${label} (${String(expected)})`);
        await sleep(settleMs);
        return ctx.snap(label);
      },
      async keys(text) {
        await session.type(text);
        log('keys', JSON.stringify(text));
      },
    };
    await spec.act(ctx);
  } catch (error) {
    failure = error;
    log('ERROR', String(error instanceof Error ? error.stack : error));
    if (claude) {
      const screen = await claude.screen().catch(() => '');
      screens.push({ t: Date.now() - t0, label: 'on error', screen });
      log('screen', `on error\n${screen}`);
    }
  } finally {
    if (claude) {
      finalFiles = {
        project: await readTree(projectDir),
        homeClaude: await readTree(join(claude.homeDir, '.claude')),
        homeClaudeJsonProjects: await readFile(join(claude.homeDir, '.claude.json'), 'utf8')
          .then((t) => (JSON.parse(t) as { projects?: unknown }).projects)
          .catch(() => undefined),
      };
      const path = transcriptPath();
      if (path && existsSync(path)) await copyFile(path, join(outDir, `${name}.transcript.jsonl`));
      await sleep(300);
      polling = false;
      await pollDone;
      await claude.stop();
      log('stop', 'claude stopped');
    }
    polling = false;
    await fake.close();
    await hooks.close();
  }
  const mainRequests = fake.requests
    .map((r, index) => ({ index, r }))
    .filter(({ r }) => r.kind === 'main')
    .map(({ index, r }) => ({ index, step: r.step, reply: r.reply, at: r.receivedAt - t0, messages: (r.body as { messages?: unknown }).messages }));
  const firstMain = fake.requests.find((r) => r.kind === 'main');
  await writeFile(
    join(outDir, `${name}.json`),
    JSON.stringify(
      {
        name,
        failure: failure ? String(failure) : undefined,
        hooks: hooks.calls,
        toolResults: fake.toolResults,
        mainRequests,
        system: firstMain ? contentText((firstMain.body as { system?: unknown }).system) : undefined,
        tools: firstMain ? ((firstMain.body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name) : undefined,
        screens,
        files: finalFiles,
        timeline,
      },
      null,
      2,
    ),
  );
  await writeFile(join(outDir, `${name}.log`), timeline.map((e) => `${(e.t / 1000).toFixed(2).padStart(7)} ${e.kind.padEnd(10)} ${e.text}`).join('\n'));
  if (failure) process.exitCode = 1;
}
