/**
 * Probes of the real Claude Code client's permission hooks (not run by CI:
 * neither vitest config includes *.probe.ts). Each probe writes
 * /tmp/research/raw/<name>.{json,log}.
 *
 *   npx tsx tests/conformance/permissions.probe.ts <probe> [<probe>...]
 *   npx tsx tests/conformance/permissions.probe.ts --list
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Step } from './fake-anthropic.js';
import { DATABASE } from './questions.js';
import type { HookAnswer, HookCall } from './hook-recorder.js';
import { runProbe } from './probe-runner.js';
import type { ProbeContext, ProbeSpec } from './probe-runner.js';

const DIALOG = /Do you want to (proceed|make this edit|create)|Would you like to proceed|Ready to code/;
const PKG = JSON.stringify({ name: 'probe', version: '1.0.0', scripts: { test: 'echo tests-ok' } }, null, 2);
const SCRIPT = '#!/bin/sh\necho "script ran with $1"\n';

function bash(command: string, description = 'Run a probe command'): Step[] {
  return [{ tool: 'Bash', input: { command, description } }, { text: 'MODEL-DONE after Bash.' }];
}

function allow(extra: Record<string, unknown> = {}): HookAnswer {
  return { json: { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', ...extra } } } };
}

function deny(message: string, extra: Record<string, unknown> = {}): HookAnswer {
  return { json: { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message, ...extra } } } };
}

/** Waits for the first PermissionRequest and the dialog, then `watchMs` for whatever follows an action. */
async function atDialog(ctx: ProbeContext, prompt = 'Please do it.'): Promise<HookCall> {
  await ctx.prompt(prompt);
  const request = await ctx.hooks.waitFor('PermissionRequest', 40_000);
  await ctx.waitScreen(DIALOG, 'dialog on screen', 30_000, 1_000);
  return request;
}

async function watch(ctx: ProbeContext, ms: number, held?: HookCall): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await ctx.sleep(250);
  }
  if (held) ctx.log('held', `#${held.seq} ${held.event} still open after watch: ${ctx.hooks.isOpen(held)}`);
  await ctx.snap('after watch');
}

/** Presses a key until the dialog is gone from the screen. */
async function answerDialog(ctx: ProbeContext, keys: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await ctx.keys(keys);
    await ctx.sleep(700);
    if (!DIALOG.test(await ctx.claude.screen())) return;
    if (Date.now() > deadline) throw new Error('dialog did not go away');
  }
}

const PLAN_TEXT = '# Plan\n\n1. Add a greeting to hello.txt\n2. Run the tests\n';

/** The plan file Claude Code names in plan mode (searched anywhere in the request: system prompt or reminders). */
function planPathOf(body: unknown): string {
  const match = /(\/[^\s"'`]*\/plans\/[^\s"'`]+\.md)/.exec(JSON.stringify(body));
  if (!match?.[1]) {
    process.stdout.write('!! no plan path found in the request\n');
    return '/tmp/research/no-plan-path.md';
  }
  return match[1];
}

/** Plan mode: the model writes its plan file, then calls ExitPlanMode with no plan field. */
function planSteps(): Step[] {
  return [
    { tool: 'Write', inputFrom: ({ body }) => ({ file_path: planPathOf(body), content: PLAN_TEXT }) },
    { tool: 'ExitPlanMode', input: {} },
    { text: 'MODEL-DONE after ExitPlanMode.' },
  ];
}

/** A plan probe whose PermissionRequest for ExitPlanMode gets `answer(call)` after 4 s (the dialog is snapped meanwhile). */
function planProbe(answer: (call: HookCall) => HookAnswer | undefined, person?: string): ProbeSpec {
  return {
    args: ['--permission-mode', 'plan'],
    steps: planSteps,
    decide: (call) => {
      if (call.event !== 'PermissionRequest') return { json: {} };
      if (call.body.tool_name !== 'ExitPlanMode') return undefined;
      const a = answer(call);
      return a ? { ...a, delayMs: 4_000 } : undefined;
    },
    async act(ctx) {
      await ctx.snap('plan mode start');
      await ctx.prompt('Plan it.');
      const request = await ctx.hooks.waitFor('PermissionRequest', 40_000, (c) => c.body.tool_name === 'ExitPlanMode');
      await ctx.waitScreen(DIALOG, 'plan dialog', 30_000, 1_000);
      if (person) await answerDialog(ctx, person);
      await watch(ctx, 8_000, request);
      const before = ctx.fake.mainRequests.length;
      ctx.fake.addSteps([{ text: 'MODEL-DONE second prompt.' }]);
      await ctx.prompt('What mode now?');
      await ctx.sleep(2_000);
      ctx.log('mode', `main requests after second prompt: ${ctx.fake.mainRequests.length - before}`);
      await ctx.snap('after second prompt');
    },
  };
}

function answered(call: HookCall): Record<string, unknown> {
  return { ...(call.body.tool_input as Record<string, unknown>), answers: { 'Which database should we use?': 'SQLite' } };
}

const ASK_STEPS = (): Step[] => [{ tool: 'AskUserQuestion', input: DATABASE }, { text: 'MODEL-DONE after AskUserQuestion.' }];

const toolInputBack = (call: HookCall): Record<string, unknown> => call.body.tool_input as Record<string, unknown>;

/** An --mcp-config file that registers fixtures/echo-mcp.mjs as server `probe` (tool `mcp__probe__echo`). */
function echoMcpConfig(): string {
  const server = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'echo-mcp.mjs');
  const file = join('/tmp/research', 'echo-mcp.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: [server] } } }));
  return file;
}

const probes: Record<string, ProbeSpec> = {
  /** Q2 for an MCP tool: payload and suggestions; the person answers option 2. */
  'mcp-tool': {
    get args() {
      return ['--permission-mode', 'default', '--mcp-config', echoMcpConfig(), '--strict-mcp-config'];
    },
    steps: () => [{ tool: 'mcp__probe__echo', input: { text: 'hi there' } }, { text: 'MODEL-DONE after MCP.' }],
    async act(ctx) {
      const held = await atDialog(ctx);
      await answerDialog(ctx, '2');
      await watch(ctx, 5_000, held);
    },
  },

  /** Yes with Tab + a typed message: what the model gets. */
  'bash-yes-tab': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    async act(ctx) {
      const held = await atDialog(ctx);
      await ctx.claude.pressKey('Tab');
      await ctx.sleep(500);
      await ctx.keys('and then run lint');
      await ctx.sleep(500);
      await ctx.snap('amend typed');
      await ctx.claude.pressKey('Enter');
      await watch(ctx, 6_000, held);
    },
  },

  /** Hook allow + setMode auto for Bash in default mode. */
  'bash-hook-auto': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    decide: (call) =>
      call.event === 'PermissionRequest'
        ? { ...allow({ updatedPermissions: [{ type: 'setMode', mode: 'auto', destination: 'session' }] }), delayMs: 1_500 }
        : { json: {} },
    async act(ctx) {
      await ctx.prompt('Please do it.');
      await ctx.hooks.waitFor('PermissionRequest', 30_000);
      await watch(ctx, 6_000);
    },
  },

  /** Q3a: ExitPlanMode allowed by the hook with updatedInput = tool_input. */
  'plan-allow': planProbe((call) => allow({ updatedInput: toolInputBack(call) })),
  /** Q3b: allow + setMode auto. */
  'plan-auto': planProbe((call) =>
    allow({ updatedInput: toolInputBack(call), updatedPermissions: [{ type: 'setMode', mode: 'auto', destination: 'session' }] }),
  ),
  /** Q3b: allow + setMode acceptEdits. */
  'plan-acceptedits': planProbe((call) =>
    allow({ updatedInput: toolInputBack(call), updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }] }),
  ),
  /** Q3c: deny with a message. */
  'plan-deny': planProbe(() => deny('Please add a rollback step to the plan.')),
  /** Q3: the person picks option 1 "Yes, and use auto mode" while the hook is held. */
  'plan-native1': planProbe(() => undefined, '1'),
  /** Q3: a bare allow (no updatedInput) for ExitPlanMode. */
  'plan-bare-allow': planProbe(() => allow()),
  /** Q3: the person picks option 3 "Tell Claude what to change" and types feedback while the hook is held. */
  'plan-native3': {
    ...planProbe(() => undefined),
    async act(ctx) {
      await ctx.prompt('Plan it.');
      const request = await ctx.hooks.waitFor('PermissionRequest', 40_000, (c) => c.body.tool_name === 'ExitPlanMode');
      await ctx.waitScreen(DIALOG, 'plan dialog', 30_000, 1_000);
      await ctx.keys('3');
      await ctx.sleep(800);
      await ctx.snap('option 3 chosen');
      await ctx.keys('Add a rollback step');
      await ctx.sleep(500);
      await ctx.snap('feedback typed');
      await ctx.claude.pressKey('Enter');
      await watch(ctx, 8_000, request);
    },
  },
  /** Q3: the person picks option 2 "Yes, manually approve edits" while the hook is held. */
  'plan-native2': planProbe(() => undefined, '2'),

  /** Q6: AskUserQuestion in default mode; PreToolUse held 6 s then `{}`; PermissionRequest answered 4 s after it arrives. */
  'ask-order': {
    steps: ASK_STEPS,
    decide: (call) => {
      if (call.event === 'PreToolUse') return { json: {}, delayMs: 6_000 };
      if (call.event === 'PermissionRequest')
        return { json: { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: answered(call) } } }, delayMs: 4_000 };
      return { json: {} };
    },
    async act(ctx) {
      await ctx.prompt('Ask me.');
      await ctx.hooks.waitFor('PreToolUse', 30_000);
      await ctx.sleep(3_000);
      await ctx.snap('while PreToolUse held');
      await ctx.hooks.waitFor('PermissionRequest', 30_000);
      await ctx.sleep(2_000);
      await ctx.snap('while PermissionRequest held');
      await watch(ctx, 6_000);
    },
  },

  /** Q6: PreToolUse answers AskUserQuestion at once (allow + answers): does PermissionRequest still fire? */
  'ask-pre-allow': {
    steps: ASK_STEPS,
    decide: (call) => {
      if (call.event === 'PreToolUse')
        return { json: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: answered(call) } } };
      if (call.event === 'PermissionRequest') return undefined;
      return { json: {} };
    },
    async act(ctx) {
      await ctx.prompt('Ask me.');
      await ctx.hooks.waitFor('PreToolUse', 30_000);
      await watch(ctx, 6_000);
    },
  },

  /** Q6: PreToolUse returns `{}` at once, PermissionRequest held; then the person answers in the terminal. */
  'ask-person': {
    steps: ASK_STEPS,
    async act(ctx) {
      await ctx.prompt('Ask me.');
      const held = await ctx.hooks.waitFor('PermissionRequest', 30_000);
      await ctx.waitScreen('SQLite', 'question on screen', 30_000, 1_000);
      await ctx.keys('2');
      await ctx.sleep(1_500);
      await ctx.snap('after picking 2');
      await watch(ctx, 15_000, held);
    },
  },

  /** Q7: the hook denies with interrupt: true. */
  'bash-deny-interrupt': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    decide: (call) => (call.event === 'PermissionRequest' ? { ...deny('Not now, the CI is busy.', { interrupt: true }), delayMs: 1_500 } : { json: {} }),
    async act(ctx) {
      await ctx.prompt('Please do it.');
      await ctx.hooks.waitFor('PermissionRequest', 30_000);
      await watch(ctx, 10_000);
    },
  },

  /** Q7 contrast: the hook denies without interrupt. */
  'bash-deny': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    decide: (call) => (call.event === 'PermissionRequest' ? { ...deny('Not now, the CI is busy.'), delayMs: 1_500 } : { json: {} }),
    async act(ctx) {
      await ctx.prompt('Please do it.');
      await ctx.hooks.waitFor('PermissionRequest', 30_000);
      await watch(ctx, 8_000);
    },
  },

  /** Q8: the PermissionRequest http hook's own timeout (5 s) runs out. */
  'bash-pr-timeout': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    timeouts: { PermissionRequest: 5 },
    async act(ctx) {
      const held = await atDialog(ctx);
      await ctx.sleep(6_000);
      await ctx.snap('after the 5 s timeout');
      await watch(ctx, 6_000, held);
      await answerDialog(ctx, '1');
      await watch(ctx, 3_000);
    },
  },

  /** Q9: allow with updatedPermissions = the permission_suggestions sent back exactly, then the same call again. */
  'bash-suggestion-back': {
    files: { 'script.sh': SCRIPT },
    steps: () => [...bash('./script.sh arg', 'Run the script'), { tool: 'Bash', input: { command: './script.sh arg', description: 'Run the script again' } }, { text: 'MODEL-DONE second.' }],
    decide: (call) =>
      call.event === 'PermissionRequest' ? { ...allow({ updatedPermissions: call.body.permission_suggestions }), delayMs: 1_500 } : { json: {} },
    async act(ctx) {
      await ctx.prompt('Please do it.');
      await ctx.hooks.waitFor('PermissionRequest', 30_000);
      await watch(ctx, 4_000);
      const before = ctx.hooks.calls.length;
      await ctx.prompt('Again please.');
      await ctx.sleep(5_000);
      ctx.log('again', `PermissionRequest after second prompt: ${ctx.hooks.calls.slice(before).some((c) => c.event === 'PermissionRequest')}`);
      await ctx.snap('after second call');
    },
  },

  /** Q10: Esc while the dialog is on screen and the hook is held. */
  'bash-esc': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    async act(ctx) {
      const held = await atDialog(ctx);
      await ctx.claude.pressKey('Escape');
      ctx.log('keys', 'Escape');
      await watch(ctx, 10_000, held);
    },
  },

  /** Q2: Edit, Write, Read outside, Glob/Grep outside, WebFetch; each PermissionRequest gets a bare allow after 3 s. */
  'tools-mix': {
    files: { 'notes.txt': 'hello world\n' },
    steps: (dir) => [
      { tool: 'Edit', input: { file_path: join(dir, 'notes.txt'), old_string: 'hello', new_string: 'goodbye' } },
      { tool: 'Write', input: { file_path: join(dir, 'new.txt'), content: 'new file\n' } },
      { tool: 'Read', input: { file_path: '/etc/hostname' } },
      { tool: 'Glob', input: { pattern: 'host*', path: '/etc' } },
      { tool: 'Grep', input: { pattern: 'localhost', path: '/etc/hosts' } },
      { tool: 'WebFetch', input: { url: 'https://example.com/', prompt: 'Summarize the page' } },
      { text: 'MODEL-DONE after tools.' },
    ],
    decide: (call) => (call.event === 'PermissionRequest' ? { ...allow(), delayMs: 3_000 } : { json: {} }),
    async act(ctx) {
      await ctx.prompt('Use the tools.');
      let seen = 0;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && ctx.fake.stepIndex < 6) {
        const requests = ctx.hooks.of('PermissionRequest');
        if (requests.length > seen) {
          const call = requests[seen]!;
          seen++;
          await ctx.sleep(1_500);
          await ctx.snap(`dialog for ${String(call.body.tool_name)}`);
        }
        await ctx.sleep(200);
      }
      await watch(ctx, 5_000);
    },
  },

  /** Q5: No chosen with the arrows + Enter, then a new prompt: what the model gets. */
  'bash-no-enter-then-prompt': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    async act(ctx) {
      const held = await atDialog(ctx);
      for (let i = 0; i < 3; i++) {
        await ctx.claude.pressKey('Down');
        await ctx.sleep(200);
      }
      await ctx.claude.pressKey('Enter');
      ctx.log('keys', 'Down x3, Enter');
      await watch(ctx, 5_000, held);
      await ctx.prompt('Why did you stop?');
      const result = await ctx.fake.waitForStepResult(0, 10_000);
      ctx.log('result', JSON.stringify(result));
      await watch(ctx, 3_000);
    },
  },

  /** Q4: the person picks option 3 "Yes, and switch to auto mode" while the hook is held. */
  'bash-native3': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    async act(ctx) {
      const held = await atDialog(ctx);
      await answerDialog(ctx, '3');
      await watch(ctx, 8_000, held);
    },
  },

  /** Q5 for Edit: plain No while held; then Edit again and option 2 (accept edits). */
  'edit-no-then-2': {
    files: { 'notes.txt': 'hello world\n' },
    steps: (dir) => [
      // No interrupts the turn: the first Edit's result arrives with the next prompt, which then plays the second Edit.
      { tool: 'Edit', input: { file_path: join(dir, 'notes.txt'), old_string: 'hello', new_string: 'goodbye' } },
      { tool: 'Edit', input: { file_path: join(dir, 'notes.txt'), old_string: 'hello', new_string: 'hi' } },
      { text: 'MODEL-DONE second.' },
    ],
    async act(ctx) {
      const held = await atDialog(ctx);
      await answerDialog(ctx, '3');
      await watch(ctx, 4_000, held);
      await ctx.prompt('Try again.');
      const second = await ctx.hooks.waitFor('PermissionRequest', 20_000, () => true, held.seq);
      await ctx.waitScreen(DIALOG, 'second dialog', 20_000, 1_000);
      await answerDialog(ctx, '2');
      await watch(ctx, 6_000, second);
    },
  },

  /** Q4 for a long command: `sleep 8; echo done > long.txt; echo done` (the redirect makes it ask), person answers Yes while the hook is held; which transcript lines come before the tool_result. */
  'bash-long-yes': {
    steps: () => bash('sleep 8; echo done > long.txt; echo done', 'Wait, then write long.txt'),
    async act(ctx) {
      const held = await atDialog(ctx);
      // Any other trace of the running command a daemon could see: files under claude's TMPDIR, and ~/.claude/sessions/<pid>.json.
      const traces = (when: string): void => {
        const tmp = join(ctx.claude.homeDir, '..', 'tmp');
        ctx.log('files', `${when}: TMPDIR ${readdirSync(tmp, { recursive: true }).map(String).join(', ')}`);
        const sessions = join(ctx.claude.homeDir, '.claude', 'sessions');
        for (const f of readdirSync(sessions).filter((n) => n.endsWith('.json'))) ctx.log('files', `${when}: sessions/${f} ${readFileSync(join(sessions, f), 'utf8')}`);
      };
      traces('dialog shown');
      // Poll the session file every 50 ms and log each status change.
      let watching = true;
      const watcher = (async () => {
        let last = '';
        const sessions = join(ctx.claude.homeDir, '.claude', 'sessions');
        while (watching) {
          for (const f of readdirSync(sessions).filter((n) => n.endsWith('.json'))) {
            const s = JSON.parse(readFileSync(join(sessions, f), 'utf8')) as { status?: string; waitingFor?: string };
            const now = `${s.status}/${s.waitingFor ?? ''}`;
            if (now !== last) ctx.log('status', `sessions/${f}: ${now}`);
            last = now;
          }
          await ctx.sleep(50);
        }
      })();
      await ctx.sleep(500);
      await ctx.keys('1');
      await ctx.sleep(2_000);
      traces('2 s after Yes');
      await ctx.fake.waitForStepResult(0, 30_000);
      await ctx.sleep(1_000);
      watching = false;
      await watcher;
      await watch(ctx, 3_000, held);
    },
  },
  /** Q1+Q4: `npm test`, person answers Yes (option 1) while the hook is held. */
  'bash-npm-yes': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    async act(ctx) {
      const held = await atDialog(ctx);
      await ctx.sleep(7_000); // Notification permission_prompt comes ~6 s after the dialog
      await ctx.snap('dialog after 7 s');
      await answerDialog(ctx, '1');
      await watch(ctx, 32_000, held);
    },
  },
  /** Q1+Q4+Q9: `./script.sh arg`, person answers option 2 "don't ask again", then the same call again. */
  'bash-script-yes2': {
    files: { 'script.sh': SCRIPT },
    steps: () => [...bash('./script.sh arg', 'Run the script'), { tool: 'Bash', input: { command: './script.sh arg', description: 'Run the script again' } }, { text: 'MODEL-DONE second.' }],
    async act(ctx) {
      const held = await atDialog(ctx);
      await answerDialog(ctx, '2');
      await watch(ctx, 31_000, held);
      const before = ctx.hooks.calls.length;
      await ctx.prompt('Again please.');
      await ctx.sleep(6_000);
      ctx.log('again', `PermissionRequest after second prompt: ${ctx.hooks.calls.slice(before).some((c) => c.event === 'PermissionRequest')}`);
      await ctx.snap('after second call');
    },
  },

  /** Q1+Q5: `echo x > out.txt`, person answers No (option 4) while the hook is held. */
  'bash-redirect-no': {
    steps: () => bash('echo x > out.txt', 'Write out.txt'),
    async act(ctx) {
      const held = await atDialog(ctx);
      await answerDialog(ctx, '4');
      await watch(ctx, 31_000, held);
    },
  },

  /** Q5: No with Tab and a typed message. */
  'bash-no-tab': {
    files: { 'package.json': PKG },
    steps: () => bash('npm test', 'Run the test suite'),
    async act(ctx) {
      const held = await atDialog(ctx);
      for (let i = 0; i < 3; i++) {
        await ctx.claude.pressKey('Down');
        await ctx.sleep(200);
      }
      await ctx.snap('No highlighted');
      await ctx.claude.pressKey('Tab');
      await ctx.sleep(500);
      await ctx.keys('use yarn instead');
      await ctx.sleep(500);
      await ctx.snap('amend typed');
      await ctx.claude.pressKey('Enter');
      await watch(ctx, 31_000, held);
    },
  },
};

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  if (names.length === 0 || names[0] === '--list') {
    process.stdout.write(`${Object.keys(probes).join('\n')}\n`);
    return;
  }
  for (const name of names) {
    const spec = probes[name];
    if (!spec) throw new Error(`no probe ${name}`);
    process.stdout.write(`=== ${name} (${join('/tmp/research/raw', `${name}.log`)})\n`);
    await runProbe(name, spec);
  }
}


await main();
