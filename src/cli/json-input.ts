// JSON a command reads from a file, or from standard input for "-": one clear usage error (exit 2)
// when it cannot be read or is not JSON. What it must hold is for the command, or the daemon, to check.
import { readFileSync } from 'node:fs';
import { CliError } from './command.js';

/** The parsed JSON, and how to name where it came from in a message. */
export function readJsonInput(path: string): { json: unknown; where: string } {
  const where = path === '-' ? 'standard input' : path;
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${where}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`, 2);
  }
  try {
    return { json: JSON.parse(text), where };
  } catch (error) {
    throw new CliError(`${where} is not valid JSON: ${(error as Error).message}`, 2);
  }
}
