import { parseArgs } from 'node:util';
import { DaemonAlreadyRunning, DaemonStartError, runDaemonInForeground } from '../daemon/main.js';
import { CliError } from './client.js';
import type { CommandIo } from './main.js';

export async function run(io: CommandIo): Promise<void> {
  const { values } = parseArgs({ args: io.argv, options: { port: { type: 'string' } }, strict: true });
  try {
    await runDaemonInForeground({
      env: io.env,
      ...(values.port === undefined ? {} : { port: Number(values.port) }),
      print: (line) => io.stdout(`${line}\n`),
    });
  } catch (error) {
    if (error instanceof DaemonAlreadyRunning) {
      io.stderr(`${error.message}\n`);
      return;
    }
    if (error instanceof DaemonStartError) throw new CliError(error.message);
    throw error;
  }
}
