// elicitation-form.ts, loaded by the first MCP elicitation: it brings re2js, which most daemons
// never need, so the daemon does not load it at start (as config.ts does with its rules' patterns).
export type ElicitationForms = typeof import('../elicitation-form.js');

let loaded: Promise<ElicitationForms> | undefined;

export function loadElicitationForms(): Promise<ElicitationForms> {
  loaded ??= import('../elicitation-form.js');
  return loaded;
}
