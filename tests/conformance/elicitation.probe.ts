/**
 * Probes of the real Claude Code client's MCP elicitation (not run by CI: neither vitest config
 * includes *.probe.ts). The model calls a tool of elicit-server.ts (server `forms`), which asks
 * the client for input; `Elicitation` and `ElicitationResult` hooks (http through HookRecorder,
 * or the command hook fixtures/elicit-hook.mjs) answer as each probe says. Each probe writes
 * $PROBE_OUT/raw/<name>.{json,log}; what the server received is in its log, `<name>.elicit.jsonl`.
 *
 *   npx tsx tests/conformance/elicitation.probe.ts <probe> [<probe>...]
 *   npx tsx tests/conformance/elicitation.probe.ts --list
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { elicitServerCommand } from './elicit-server.js';
import type { HookAnswer, HookCall } from './hook-recorder.js';
import { RESEARCH_DIR, runProbe } from './probe-runner.js';
import type { ProbeContext, ProbeSpec } from './probe-runner.js';
import { isProcessAlive } from '../../src/state-dir.js';

const HOOK = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'elicit-hook.mjs');
const EVENTS = ['Elicitation', 'ElicitationResult', 'Notification', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure'] as const;
/** Claude Code's own elicitation dialog (form and URL). */
const DIALOG = /requests your input|wants you to|Open URL|Esc to cancel/;
type Tool = 'form_all_kinds' | 'form_one_choice' | 'url_signin';

function elicitLog(name: string): string {
  return join(RESEARCH_DIR, `${name}.elicit.jsonl`);
}

function readLines(file: string): unknown[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as unknown);
}

/** An --mcp-config file that runs elicit-server.ts as server `forms`, logging to the probe's file. */
function mcpConfig(name: string): string {
  const file = join(RESEARCH_DIR, `${name}.mcp.json`);
  mkdirSync(dirname(file), { recursive: true });
  rmSync(elicitLog(name), { force: true });
  writeFileSync(file, JSON.stringify({ mcpServers: { forms: { ...elicitServerCommand(), env: { ELICIT_LOG: elicitLog(name) } } } }));
  return file;
}

function hookOutput(fields: Record<string, unknown>): HookAnswer {
  return { json: { hookSpecificOutput: { hookEventName: 'Elicitation', ...fields } } };
}

/** A command hook entry running elicit-hook.mjs with `config` (per event), recording to <name>.hook.jsonl. */
function commandHook(name: string, config: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const configFile = join(RESEARCH_DIR, `${name}.${String(extra.tag ?? 'hook')}.config.json`);
  const recordTo = join(RESEARCH_DIR, `${name}.${String(extra.tag ?? 'hook')}.jsonl`);
  mkdirSync(RESEARCH_DIR, { recursive: true });
  rmSync(recordTo, { force: true });
  writeFileSync(configFile, JSON.stringify({ recordTo, ...config }));
  const { tag: _tag, ...entry } = extra;
  return { type: 'command', command: `"${process.execPath}" "${HOOK}" "${configFile}"`, ...entry };
}

type After = 'watch' | 'esc';

interface ElicitProbe {
  tool: Tool;
  /** http Elicitation/ElicitationResult answers; default `{}` for everything. */
  http?: (call: HookCall) => HookAnswer | undefined;
  /** Events the recorder registers (default EVENTS); leave Elicitation out to test command hooks alone. */
  events?: readonly string[];
  timeouts?: Record<string, number>;
  /** Command hook entries per event (the settings' `hooks`). */
  hooks?: (name: string) => Record<string, unknown[]>;
  /** `watch`: wait for the tool result, pressing Esc on any dialog after `dialogMs`; `esc`: Esc `escAfterMs` after the hook started. */
  after: After;
  escAfterMs?: number;
  /** How long to wait for the tool result before snapping the screen and pressing Esc (default 12 s). */
  dialogMs?: number;
  /** After Esc, answer the held http Elicitation request with this (the hook answering late). */
  lateAnswer?: HookAnswer;
}

function probe(name: string, spec: ElicitProbe): ProbeSpec {
  return {
    get args() {
      return ['--permission-mode', 'default', '--mcp-config', mcpConfig(name), '--strict-mcp-config'];
    },
    events: spec.events ?? EVENTS,
    timeouts: spec.timeouts,
    get settings() {
      return { permissions: { allow: ['mcp__forms'] }, hooks: spec.hooks?.(name) ?? {} };
    },
    steps: () => [{ tool: `mcp__forms__${spec.tool}`, input: {} }, { text: 'MODEL-DONE after the MCP tool.' }],
    decide: (call) => (spec.http ? spec.http(call) : { json: {} }),
    async act(ctx) {
      await waitFor(ctx, 'the server initialized', () => readLines(elicitLog(name)).length > 0, 30_000);
      ctx.log('server', JSON.stringify(readLines(elicitLog(name))[0]));
      await ctx.prompt('Go.');
      const started = Date.now();
      await waitFor(ctx, 'an Elicitation hook', () => ctx.hooks.of('Elicitation').length > 0 || hookRecords(name).length > 0, 40_000);
      ctx.log('elicit', `hook started ${Date.now() - started} ms after the prompt`);
      if (spec.after === 'esc') {
        await ctx.sleep(spec.escAfterMs ?? 2_000);
        await ctx.snap('held, before Esc');
        await ctx.claude.pressKey('Escape');
        ctx.log('keys', 'Escape');
        await ctx.sleep(4_000);
        await ctx.snap('after Esc');
        const held = ctx.hooks.of('Elicitation')[0];
        if (spec.lateAnswer && held) {
          ctx.log('late', `answering the held Elicitation after Esc: ${ctx.hooks.answer(held, spec.lateAnswer)}`);
          await ctx.sleep(4_000);
          await ctx.snap('after the late answer');
        }
      } else {
        const result = await ctx.fake.waitForStepResult(0, spec.dialogMs ?? 12_000).catch(() => undefined);
        if (!result) {
          await ctx.snap('no tool result yet');
          const dialogGone = async (): Promise<boolean> => !DIALOG.test(await ctx.claude.screen());
          await ctx.claude.pressKeyUntil('Escape', dialogGone, { timeoutMs: 20_000 }).catch((e: unknown) => ctx.log('ERROR', String(e)));
          await ctx.snap('after Esc on the dialog');
        } else {
          await ctx.snap('tool result arrived');
        }
      }
      await ctx.sleep(2_000);
      const result = ctx.fake.stepResult(0);
      ctx.log('RESULT', result ? `${result.isError ? 'ERROR ' : ''}${result.text}` : '(no tool result)');
      for (const line of readLines(elicitLog(name))) ctx.log('SERVER', JSON.stringify(line));
      for (const line of hookRecords(name) as Array<{ pid: number; signal?: string }>) {
        ctx.log('CMDHOOK', `${line.signal ? '' : `alive=${isProcessAlive(line.pid)} `}${JSON.stringify(line)}`);
      }
      for (const call of ctx.hooks.calls.filter((c) => c.event.startsWith('Elicitation'))) {
        ctx.log('HTTPHOOK', `${call.event} open=${ctx.hooks.isOpen(call)} aborted=${call.abortedAt ?? '-'} answered=${call.answeredAt ?? '-'} ${JSON.stringify(call.body)}`);
      }
    },
  };
}

function hookRecords(name: string): unknown[] {
  return [...readLines(join(RESEARCH_DIR, `${name}.hook.jsonl`)), ...readLines(join(RESEARCH_DIR, `${name}.other.jsonl`))];
}

async function waitFor(ctx: ProbeContext, what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await ctx.sleep(100);
  }
}

const elicitationOnly = (answer: HookAnswer | undefined) => (call: HookCall) => (call.event === 'Elicitation' ? answer : { json: {} });
const ONE_CHOICE_OK = { color: 'green' };

const probes: Record<string, ElicitProbe> = {
  // a. URL mode
  'url-http-empty': { tool: 'url_signin', http: elicitationOnly({ json: {} }), after: 'watch', dialogMs: 6_000 },
  'url-http-accept': { tool: 'url_signin', http: elicitationOnly(hookOutput({ action: 'accept' })), after: 'watch' },
  'url-http-decline': { tool: 'url_signin', http: elicitationOnly(hookOutput({ action: 'decline' })), after: 'watch' },
  'url-cmd-silent': {
    tool: 'url_signin',
    events: ['ElicitationResult', 'Notification'],
    hooks: (name) => ({ Elicitation: [{ hooks: [commandHook(name, {})] }] }),
    after: 'watch',
    dialogMs: 6_000,
  },
  // b. Esc while a hook holds
  'form-http-esc': { tool: 'form_one_choice', http: elicitationOnly(undefined), after: 'esc' },
  'form-cmd-esc': {
    tool: 'form_one_choice',
    events: ['ElicitationResult', 'Notification'],
    hooks: (name) => ({ Elicitation: [{ hooks: [commandHook(name, { Elicitation: { holdMs: -1 } })] }] }),
    after: 'esc',
  },
  'form-http-esc-late': { tool: 'form_one_choice', http: elicitationOnly(undefined), after: 'esc', lateAnswer: hookOutput({ action: 'accept', content: ONE_CHOICE_OK }) },
  'form-cmd-esc-late': {
    tool: 'form_one_choice',
    events: ['ElicitationResult', 'Notification'],
    hooks: (name) => ({ Elicitation: [{ hooks: [commandHook(name, { Elicitation: { holdMs: 5_000, print: { hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: ONE_CHOICE_OK } } } })] }] }),
    after: 'esc',
  },
  // c. A hook's timeout runs out
  'form-http-timeout': { tool: 'form_one_choice', http: elicitationOnly(undefined), timeouts: { Elicitation: 5 }, after: 'watch', dialogMs: 12_000 },
  'form-cmd-timeout': {
    tool: 'form_one_choice',
    events: ['ElicitationResult', 'Notification'],
    hooks: (name) => ({ Elicitation: [{ hooks: [commandHook(name, { Elicitation: { holdMs: -1 } }, { timeout: 5 })] }] }),
    after: 'watch',
    dialogMs: 12_000,
  },
  // d. http replies that are no decision
  'form-http-destroy': { tool: 'form_one_choice', http: elicitationOnly({ destroy: true, delayMs: 1_000 }), after: 'watch', dialogMs: 6_000 },
  'form-http-empty-object': { tool: 'form_one_choice', http: elicitationOnly({ json: {} }), after: 'watch', dialogMs: 6_000 },
  'form-http-empty-200': { tool: 'form_one_choice', http: elicitationOnly({ status: 200 }), after: 'watch', dialogMs: 6_000 },
  'form-http-500': { tool: 'form_one_choice', http: elicitationOnly({ status: 500 }), after: 'watch', dialogMs: 6_000 },
  // e. Decisions
  'form-http-cancel': { tool: 'form_one_choice', http: elicitationOnly(hookOutput({ action: 'cancel' })), after: 'watch' },
  'form-http-accept': { tool: 'form_one_choice', http: elicitationOnly(hookOutput({ action: 'accept', content: ONE_CHOICE_OK })), after: 'watch' },
  'form-http-invalid': { tool: 'form_one_choice', http: elicitationOnly(hookOutput({ action: 'accept', content: { color: 'purple' } })), after: 'watch' },
  'form-http-missing': { tool: 'form_one_choice', http: elicitationOnly(hookOutput({ action: 'accept', content: {} })), after: 'watch' },
  'form-http-wrong-type': { tool: 'form_all_kinds', http: elicitationOnly(hookOutput({ action: 'accept', content: { email: 'not-an-email', replicas: 'three', confirm: 'yes', environment: 'moon' } })), after: 'watch' },
  'all-kinds-accept': {
    tool: 'form_all_kinds',
    http: elicitationOnly(
      hookOutput({
        action: 'accept',
        content: { email: 'ops@example.test', homepage: 'https://example.test', start: '2026-12-01', deadline: '2026-12-24T10:00:00Z', code: 'XYZ', budget: 12.75, replicas: 3, confirm: true, environment: 'production', region: 'us-east', features: ['logs', 'traces'] },
      }),
    ),
    after: 'watch',
  },
  'all-kinds-cmd-accept': {
    tool: 'form_all_kinds',
    events: ['ElicitationResult', 'Notification'],
    hooks: (name) => ({
      Elicitation: [{ hooks: [commandHook(name, { Elicitation: { print: { hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { email: 'a@b.test', replicas: 4, confirm: false, environment: 'staging' } } } } })] }],
    }),
    after: 'watch',
  },
  'form-cmd-exit2': {
    tool: 'form_one_choice',
    events: ['ElicitationResult', 'Notification'],
    hooks: (name) => ({ Elicitation: [{ hooks: [commandHook(name, { Elicitation: { exitCode: 2, stderr: 'no forms here' } })] }] }),
    after: 'watch',
    dialogMs: 6_000,
  },
  // The TUI's own dialog after an empty reply: what ElicitationResult gets when the person accepts there.
  'form-dialog-accept': { tool: 'form_one_choice', http: elicitationOnly({ json: {} }), after: 'watch', dialogMs: 4_000 },
  // f. matcher on mcp_server_name
  'matcher': {
    tool: 'form_one_choice',
    events: ['ElicitationResult', 'Notification'],
    hooks: (name) => ({
      Elicitation: [
        { matcher: 'forms', hooks: [commandHook(name, { Elicitation: { print: { hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { color: 'red' } } } } })] },
        { matcher: 'elsewhere', hooks: [commandHook(name, { Elicitation: { print: { hookSpecificOutput: { hookEventName: 'Elicitation', action: 'decline' } } } }, { tag: 'other' })] },
      ],
    }),
    after: 'watch',
  },
};

const args = process.argv.slice(2);
if (args.length === 0 || args[0] === '--list') {
  process.stdout.write(`${Object.keys(probes).join('\n')}\n`);
} else {
  for (const name of args) {
    const spec = probes[name];
    if (!spec) {
      process.stderr.write(`unknown probe ${name}\n`);
      process.exitCode = 2;
      continue;
    }
    process.stdout.write(`\n===== ${name}\n`);
    await runProbe(name, probe(name, spec));
  }
}
