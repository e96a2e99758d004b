import { connectToDaemon, NOT_RUNNING, CliError } from './client.js';
import type { CommandIo } from './main.js';

export async function run(io: CommandIo): Promise<void> {
  const daemon = connectToDaemon(io.env);
  const { status } = await daemon.request('POST', '/api/shutdown', {});
  if (status !== 202) throw new CliError(NOT_RUNNING);
  io.stderr('askbridge stopped\n');
}
