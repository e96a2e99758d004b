// Poisoned AskUserQuestion payloads are refused before anyone sees them: deep nesting, an oversized
// tool_input, and multi-select labels that would make the joined answer ambiguous. A refusal is a 400
// that names the problem, so the hook prints nothing and the terminal asks.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookPayloadSchema, LIMITS, ToolInputSchema, describeZodError, findTooDeep } from '../../src/protocol.js';
import { buildTestApp, type TestApp } from '../stack/app.js';
import { loadFixture, type HookPayload } from '../stack/fixtures.js';

/** `{"a":{"a":…0…}}` nested `levels` deep, as JSON text (so that building it cannot overflow either). */
const nestedJson = (levels: number) => `${'{"a":'.repeat(levels)}0${'}'.repeat(levels)}`;

/** The single-select fixture with `levels` of nesting under one extra tool_input key, as JSON text. */
function deepPayloadJson(levels: number): string {
  const payload = loadFixture('01-single-select.input.json');
  return JSON.stringify(payload).replace('"tool_input":{', `"tool_input":{"x_nested":${nestedJson(levels)},`);
}

describe('the depth and size of tool_input', () => {
  it('accepts every fixture Claude Code sends, far below the limits', () => {
    for (const name of ['01-single-select', '02-multi-select', '03-four-questions', '06-long-descriptions-other', '08-commas-quotes', '11-newer-fields']) {
      expect(HookPayloadSchema.safeParse(loadFixture(`${name}.input.json`)).success, name).toBe(true);
    }
  });

  it(`accepts tool_input nested ${LIMITS.toolInputDepth} levels deep and refuses one level more`, () => {
    // tool_input is level 1 and the extra key's object level 2: the number of `{"a":` levels is depth - 1.
    const atLimit = JSON.parse(deepPayloadJson(LIMITS.toolInputDepth - 1)) as unknown;
    expect(HookPayloadSchema.safeParse(atLimit).success).toBe(true);
    const over = HookPayloadSchema.safeParse(JSON.parse(deepPayloadJson(LIMITS.toolInputDepth)) as unknown);
    expect(over.success).toBe(false);
    expect(describeZodError(over.error!, 'payload')).toEqual([`payload.tool_input: nested more than ${LIMITS.toolInputDepth} levels deep (at x_nested.a.a.a.a.a.…)`]);
  });

  it.each([4_100, 4_200, 50_000, 200_000])('refuses tool_input nested %i levels deep without overflowing the stack', (levels) => {
    const payload = JSON.parse(deepPayloadJson(levels)) as unknown;
    const result = HookPayloadSchema.safeParse(payload);
    expect(result.success).toBe(false);
    expect(describeZodError(result.error!, 'payload')[0]).toMatch(/^payload\.tool_input: nested more than 32 levels deep/);
  });

  it('finds the too-deep place in arrays as well as objects, and says where', () => {
    const value = JSON.parse(`{"ok":[1,2],"deep":[${'['.repeat(40)}${']'.repeat(40)}]}`) as unknown;
    expect(findTooDeep(value, 32)).toEqual(['deep', ...Array<number>(31).fill(0)]);
    expect(findTooDeep(JSON.parse(nestedJson(32)), 32)).toBeUndefined();
    expect(findTooDeep(JSON.parse(nestedJson(33)), 32)).toEqual(Array<string>(32).fill('a'));
  });

  it('refuses a tool_input larger than the size limit, measured in UTF-8 bytes of JSON', () => {
    const payload = loadFixture<HookPayload>('01-single-select.input.json');
    payload.tool_input.x_padding = 'é'.repeat(LIMITS.toolInputBytes / 2);
    const result = HookPayloadSchema.safeParse(payload);
    expect(result.success).toBe(false);
    expect(describeZodError(result.error!, 'payload')[0]).toMatch(new RegExp(`^payload\\.tool_input: \\d+ bytes of JSON, more than the ${LIMITS.toolInputBytes} allowed$`));
  });
});

describe('multi-select labels and the ", " separator', () => {
  const multi = (labels: string[], multiSelect = true) => ({
    questions: [{ question: 'Which layers?', header: 'Layers', multiSelect, options: labels.map((label) => ({ label, description: '' })) }],
  });

  it("accepts a multi-select label holding \", \", as Claude Code's own dialog does (the answer names each label beside the joined text)", () => {
    expect(ToolInputSchema.safeParse(multi(['HTTP cache, via CDN', 'Redis'])).success).toBe(true);
    expect(ToolInputSchema.safeParse(loadFixture<{ tool_input: unknown }>('12-comma-in-multiselect-label.input.json').tool_input).success).toBe(true);
  });

  it('accepts ", " in a single-select label, and a bare comma in a multi-select label', () => {
    expect(ToolInputSchema.safeParse(multi(['HTTP cache, via CDN', 'Redis'], false)).success).toBe(true);
    expect(ToolInputSchema.safeParse(multi(['max-age=60,public', 'Redis'])).success).toBe(true);
  });

  it('marks invisible characters in a label it quotes in a refusal', () => {
    const result = ToolInputSchema.safeParse(multi(['A, \u202Eb', 'A, \u202Eb']));
    expect(describeZodError(result.error!, 'payload.tool_input')).toEqual(['payload.tool_input.questions.0.options.1.label: duplicate option label "A, [U+202E]b"']);
  });
});

describe('the hook endpoint refuses poisoned payloads at once with a 400 naming the problem', () => {
  let daemon: TestApp;
  beforeEach(async () => {
    daemon = await buildTestApp();
  });
  afterEach(async () => {
    await daemon.close();
  });

  const ask = (payloadJson: string) => daemon.askAsHook(`{"payload":${payloadJson},"environment":{}}`);
  const pendingCount = async () => (await daemon.pending()).length;

  it.each([4_100, 4_200, 50_000])('refuses a tool_input nested %i levels deep, and nothing is shown', async (levels) => {
    const response = await ask(deepPayloadJson(levels));
    expect(response.statusCode).toBe(400);
    const { error } = response.json<{ error: { code: string; message: string } }>();
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/^invalid hook payload: payload\.tool_input: nested more than 32 levels deep \(at x_nested\.a\.a/);
    expect(await pendingCount()).toBe(0);
  });
});
