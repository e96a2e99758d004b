// Who sees and decides an ask, once people are defined: the first rule of the user config's `route`
// that matches it (its project folder, machine, agent, kind, risk) names people and groups; with no
// rule matching, the session's own person (a remote hook's `--person`) has it; else everyone does.
// With no people defined there is no route at all: one person, "you", as before. Computed once, as
// the ask opens; enforced on the daemon (route-access.ts). Pure: no I/O (the home folder is passed in).
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { LOCAL_MACHINE, type RouteKind, type RouteRule } from './config.js';
import type { Agent, Asker, AskView, Person, RouteView } from './protocol.js';

/** What a rule matches on. `risky`: a permission on the risk list (risk.ts). `person`: whose session it is, as its hook said. */
export type RouteFacts = {
  cwd: string;
  machine?: string | undefined;
  agent?: Agent | undefined;
  asker?: Pick<Asker, 'kind'> | undefined;
  kind: RouteKind | undefined;
  risky: boolean;
  person?: string | undefined;
};

/** The kind a rule names for an ask; undefined for a wait in the terminal, which only a rule naming no kind takes. */
export function routeKindOf(view: Pick<AskView, 'approval' | 'turnEnd' | 'terminalWait' | 'elicitation'>): RouteKind | undefined {
  if (view.approval) return view.approval.plan !== undefined ? 'plan' : 'permission';
  if (view.turnEnd) return 'turn-end';
  if (view.elicitation) return 'form';
  if (view.terminalWait) return undefined;
  return 'question';
}

/**
 * The route of an ask: the people it is for (groups expanded, names askbridge does not know left
 * out: a rule naming only those routes to nobody), how many must allow, and the rule's name (or its
 * place, `route[2]`). Undefined: everyone.
 */
export function routeFor(facts: RouteFacts, rules: readonly RouteRule[], people: readonly Person[], home = homedir()): RouteView | undefined {
  if (people.length === 0) return undefined;
  for (const [index, rule] of rules.entries()) {
    if (!matches(rule, facts, home)) continue;
    const approvals = rule.approvals === 2 && (facts.kind === 'permission' || facts.kind === 'plan') ? 2 : 1;
    return { people: expand(rule.to, people), approvals, rule: rule.name ?? `route[${index}]` };
  }
  if (facts.person !== undefined && people.some((person) => person.name === facts.person)) return { people: [facts.person], approvals: 1 };
  return undefined;
}

function matches(rule: RouteRule, facts: RouteFacts, home: string): boolean {
  if (rule.project !== undefined && !isInside(facts.cwd, folderOf(rule.project, home))) return false;
  if (rule.machine !== undefined && (rule.machine === LOCAL_MACHINE ? facts.machine !== undefined : facts.machine !== rule.machine)) return false;
  const agent = facts.agent ?? facts.asker?.kind;
  if (rule.agent !== undefined && (agent === undefined || !rule.agent.includes(agent))) return false;
  if (rule.kind !== undefined && (facts.kind === undefined || !rule.kind.includes(facts.kind))) return false;
  if (rule.risky !== undefined && rule.risky !== facts.risky) return false;
  return true;
}

function folderOf(project: string, home: string): string {
  if (project === '~') return home;
  if (project.startsWith('~/')) return join(home, project.slice(2));
  return resolve(project);
}

function isInside(cwd: string, folder: string): boolean {
  if (!isAbsolute(cwd)) return false;
  const root = folder.endsWith(sep) ? folder : `${folder}${sep}`;
  return cwd === folder || cwd.startsWith(root);
}

/** People named, and the members of groups named `@group`, each once, in the order named. */
function expand(names: readonly string[], people: readonly Person[]): string[] {
  const found = new Set<string>();
  for (const name of names) {
    if (name.startsWith('@')) {
      for (const person of people) if (person.groups.includes(name.slice(1))) found.add(person.name);
    } else if (people.some((person) => person.name === name)) {
      found.add(name);
    }
  }
  return [...found];
}
