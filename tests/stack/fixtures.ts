// The sample payloads in tests/fixtures: what Claude Code sends the hook, what a person answers, and
// what the hook must print for it (tests/fixtures/README.md).
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AskView } from '../../src/protocol.js';
import { REPO_ROOT } from './env.js';

export const FIXTURES_DIR = join(REPO_ROOT, 'tests', 'fixtures');

/** Reads a fixture from tests/fixtures: `loadFixture('01-single-select.input.json')` (".json" optional). */
export function loadFixture<T = unknown>(name: string): T {
  return JSON.parse(readFixtureText(name)) as T;
}

export function readFixtureText(name: string): string {
  const file = join(FIXTURES_DIR, name.endsWith('.json') ? name : `${name}.json`);
  return readFileSync(file, 'utf8');
}

/** Fixture base names (e.g. "01-single-select") that have `suffix` (e.g. ".answer.json"). */
export function fixtureNames(suffix: string): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith(suffix))
    .map((file) => file.slice(0, -suffix.length))
    .sort();
}

export type HookPayload = {
  session_id: string;
  tool_use_id: string;
  tool_name: string;
  hook_event_name: string;
  cwd?: string;
  tool_input: { questions: AskView['questions']; [key: string]: unknown };
  [key: string]: unknown;
};

export type FixtureAnswer = {
  tool_use_id: string;
  responses: Array<{ question: string; selected: string[]; other: string | null; notes: string | null }>;
};

/** A copy of a fixture payload as a different tool call, so that tests never share a question. */
export function freshPayload(fixture: string, tag: string): HookPayload {
  const payload = loadFixture<HookPayload>(`${fixture}.input.json`);
  return { ...payload, tool_use_id: `${payload.tool_use_id}_${tag}` };
}

/** `askbridge answer ID --pick N=LABEL --other N=TEXT --note N=TEXT` arguments for a fixture's answer. */
export function answerArgs(id: string, payload: HookPayload, answer: FixtureAnswer): string[] {
  const args = ['answer', id];
  for (const response of answer.responses) {
    const index = payload.tool_input.questions.findIndex((question) => question.question === response.question);
    if (index < 0) throw new Error(`the answer fixture names a question the input does not ask: ${response.question}`);
    for (const label of response.selected) args.push('--pick', `${index + 1}=${label}`);
    if (response.other !== null) args.push('--other', `${index + 1}=${response.other}`);
    if (response.notes !== null) args.push('--note', `${index + 1}=${response.notes}`);
  }
  return args;
}

/** A scratch HOME holding Claude Code's projects folder, where a daemon started with it reads transcripts. */
export async function claudeHome(): Promise<{ home: string; projects: string; remove(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), 'askbridge-claude-home-'));
  const projects = join(home, '.claude', 'projects', '-home-alice-shop');
  mkdirSync(projects, { recursive: true });
  return { home, projects, remove: () => rm(home, { recursive: true, force: true }) };
}
