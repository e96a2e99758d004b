import { describe, expect, it } from 'vitest';
import { ConfigFileSchema, RouteRuleSchema, type RouteRule } from '../../src/config.js';
import type { Person } from '../../src/protocol.js';
import { routeFor, routeKindOf, type RouteFacts } from '../../src/routing.js';

const HOME = '/home/me';
const person = (name: string, ...groups: string[]): Person => ({ name, groups, addedAt: 0 });
const PEOPLE = [person('alice', 'oncall'), person('bob', 'oncall', 'ops'), person('carol')];
const rule = (fields: Partial<RouteRule> & Pick<RouteRule, 'to'>): RouteRule => RouteRuleSchema.parse(fields);
const facts = (fields: Partial<RouteFacts> = {}): RouteFacts => ({ cwd: '/home/me/projects/shop', kind: 'question', risky: false, ...fields });
const route = (rules: RouteRule[], of: Partial<RouteFacts> = {}, people: Person[] = PEOPLE) => routeFor(facts(of), rules, people, HOME);

describe('routeFor', () => {
  it('with no people defined there is no route at all, whatever the rules and the session say', () => {
    expect(route([rule({ to: ['alice'] })], { person: 'alice' }, [])).toBeUndefined();
  });

  it('a project folder matches asks from it and from inside it (~/ is the home folder), never a folder that only starts alike', () => {
    const rules = [rule({ project: '~/projects/shop', to: ['alice'] })];
    expect(route(rules)?.people).toEqual(['alice']);
    expect(route(rules, { cwd: '/home/me/projects/shop/src/deep' })?.people).toEqual(['alice']);
    expect(route(rules, { cwd: '/home/me/projects/shopfront' })).toBeUndefined();
    expect(route(rules, { cwd: 'projects/shop' })).toBeUndefined();
    expect(route([rule({ project: '/srv/app', to: ['bob'] })], { cwd: '/srv/app/x' })?.people).toEqual(['bob']);
  });

  it('a machine matches the one a remote hook names; "local" only this machine\'s own sessions', () => {
    const rules = [rule({ machine: 'ci-box', to: ['bob'] }), rule({ machine: 'local', to: ['carol'] })];
    expect(route(rules, { machine: 'ci-box' })?.people).toEqual(['bob']);
    expect(route(rules)?.people).toEqual(['carol']);
    expect(route(rules, { machine: 'laptop' })).toBeUndefined();
  });

  it('agents match any agent named, or a script or an MCP client by its asker', () => {
    const rules = [rule({ agent: ['codex', 'opencode'], to: ['bob'] }), rule({ agent: ['script'], to: ['carol'] })];
    expect(route(rules, { agent: 'codex' })?.people).toEqual(['bob']);
    expect(route(rules, { agent: 'opencode' })?.people).toEqual(['bob']);
    expect(route(rules, { agent: 'claude-code' })).toBeUndefined();
    expect(route(rules, { asker: { kind: 'script' } })?.people).toEqual(['carol']);
    expect(route(rules, { asker: { kind: 'mcp' } })).toBeUndefined();
  });

  it('agents are a list, as kinds are: a user config naming them so is read, and one naming none or an unknown agent is refused', () => {
    expect(ConfigFileSchema.parse({ route: [{ agent: ['codex'], to: ['bob'] }] }).route?.[0]?.agent).toEqual(['codex']);
    for (const agent of ['codex', [], ['vim']]) expect(ConfigFileSchema.safeParse({ route: [{ agent, to: ['bob'] }] }).success, JSON.stringify(agent)).toBe(false);
  });

  it('kinds match the kinds named; a wait in the terminal (no kind) only a rule naming none', () => {
    const rules = [rule({ kind: ['permission', 'plan'], to: ['bob'] })];
    expect(route(rules, { kind: 'permission' })?.people).toEqual(['bob']);
    expect(route(rules, { kind: 'plan' })?.people).toEqual(['bob']);
    expect(route(rules, { kind: 'question' })).toBeUndefined();
    expect(route(rules, { kind: undefined })).toBeUndefined();
    expect(route([rule({ to: ['carol'] })], { kind: undefined })?.people).toEqual(['carol']);
  });

  it('risky: true takes only risky permissions, false only the others', () => {
    expect(route([rule({ risky: true, to: ['bob'] })], { kind: 'permission', risky: true })?.people).toEqual(['bob']);
    expect(route([rule({ risky: true, to: ['bob'] })], { kind: 'permission', risky: false })).toBeUndefined();
    expect(route([rule({ risky: false, to: ['bob'] })], { kind: 'permission', risky: true })).toBeUndefined();
  });

  it('every field given must match', () => {
    const rules = [rule({ project: '~/projects/shop', agent: ['codex'], to: ['bob'] })];
    expect(route(rules, { agent: 'codex' })?.people).toEqual(['bob']);
    expect(route(rules, { agent: 'claude-code' })).toBeUndefined();
    expect(route(rules, { agent: 'codex', cwd: '/elsewhere' })).toBeUndefined();
  });

  it('groups expand to their members, each person once, in the order named; names askbridge does not know are left out', () => {
    expect(route([rule({ to: ['carol', '@oncall', 'alice', 'nobody'] })])?.people).toEqual(['carol', 'alice', 'bob']);
    // A rule naming only unknown people or an empty group routes to nobody, never to everyone.
    expect(route([rule({ to: ['nobody', '@nogroup'] })])).toEqual({ people: [], approvals: 1, rule: 'route[0]' });
  });

  it('the first rule that matches decides, named by its name or its place', () => {
    const rules = [rule({ project: '/elsewhere', to: ['carol'] }), rule({ name: 'shop', project: '~/projects/shop', to: ['alice'] }), rule({ to: ['bob'] })];
    expect(route(rules)).toEqual({ people: ['alice'], approvals: 1, rule: 'shop' });
    expect(route(rules, { cwd: '/tmp/x' })).toEqual({ people: ['bob'], approvals: 1, rule: 'route[2]' });
  });

  it("with no rule matching, the session's own person has it (one askbridge knows); else everyone", () => {
    const rules = [rule({ project: '/elsewhere', to: ['bob'] })];
    expect(route(rules, { person: 'carol' })).toEqual({ people: ['carol'], approvals: 1 });
    expect(route(rules, { person: 'stranger' })).toBeUndefined();
    expect(route(rules)).toBeUndefined();
    // A rule that matches wins over the session's person.
    expect(route([rule({ to: ['bob'] })], { person: 'carol' })?.people).toEqual(['bob']);
  });

  it('two must allow only a permission or a plan; any other kind the rule takes needs one', () => {
    const rules = [rule({ to: ['@oncall'], approvals: 2 })];
    expect(route(rules, { kind: 'permission' })?.approvals).toBe(2);
    expect(route(rules, { kind: 'plan' })?.approvals).toBe(2);
    for (const kind of ['question', 'turn-end', 'form', undefined] as const) expect(route(rules, { kind })?.approvals).toBe(1);
  });
});

describe('routeKindOf', () => {
  it('names each kind of ask as a rule does', () => {
    const approval = { toolName: 'Bash', toolInput: {}, suggestions: [] };
    expect(routeKindOf({ approval })).toBe('permission');
    expect(routeKindOf({ approval: { ...approval, plan: 'do it' } })).toBe('plan');
    expect(routeKindOf({ turnEnd: { lastMessage: 'done', repliesInARow: 0, replyLimit: 8 } })).toBe('turn-end');
    expect(routeKindOf({})).toBe('question');
    expect(routeKindOf({ terminalWait: { kind: 'idle_prompt', message: 'waiting' } })).toBeUndefined();
  });
});

describe('the route config', () => {
  it('refuses a project that is neither absolute nor under ~/', () => {
    const parsed = RouteRuleSchema.safeParse({ project: 'projects/shop', to: ['alice'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/absolute path, or one starting with ~\//);
  });

  it("refuses a name that is not a person's or a group's", () => {
    for (const to of [['al ice'], ['@'], ['-bob'], ['a'.repeat(41)], []]) expect(RouteRuleSchema.safeParse({ to }).success, JSON.stringify(to)).toBe(false);
    expect(RouteRuleSchema.safeParse({ to: ['alice', '@oncall'] }).success).toBe(true);
  });

  it('refuses fields it does not know, an unknown kind and approvals other than 1 or 2', () => {
    expect(RouteRuleSchema.safeParse({ to: ['alice'], folder: '/x' }).success).toBe(false);
    expect(RouteRuleSchema.safeParse({ to: ['alice'], kind: ['everything'] }).success).toBe(false);
    expect(RouteRuleSchema.safeParse({ to: ['alice'], approvals: 3 }).success).toBe(false);
  });

  it('a config file takes a list of rules, each approvals 1 unless it says 2', () => {
    const parsed = ConfigFileSchema.parse({ route: [{ project: '~/projects/shop', to: ['alice'] }] });
    expect(parsed.route?.[0]?.approvals).toBe(1);
  });
});
