// `askbridge attach <agent>`: relay a coding agent's own questions and permissions to askbridge, for
// an agent that asks through a server of its own rather than a hook. Loads only the agent's module.
import { askbridgeCommand } from '../command-name.js';
import { CliError, type CommandIo } from './command.js';

// biome-ignore lint/suspicious/noConfusingVoidType: a relay that can only succeed returns nothing (exit 0)
const AGENTS: Record<string, () => Promise<{ run: (io: CommandIo) => Promise<number | void> }>> = {
  opencode: () => import('./attach-opencode.js'),
  codex: () => import('./attach-codex.js'),
};

export async function run(io: CommandIo): Promise<number> {
  const [agent, ...rest] = io.argv;
  const load = agent === undefined ? undefined : Object.hasOwn(AGENTS, agent) ? AGENTS[agent] : undefined;
  if (!load) throw new CliError(`usage: ${askbridgeCommand(io.env)} attach ${Object.keys(AGENTS).join('|')} [URL]${agent === undefined ? '' : ` (no agent called "${agent}")`}`, 2);
  const module = await load();
  return (await module.run({ ...io, argv: rest })) ?? 0;
}
