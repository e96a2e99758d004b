// The daemon's replies as the CLI reads them: checked against the same schemas the daemon's shapes
// come from (protocol.ts), so a reply the CLI does not understand is one clear line, never a cast
// that goes wrong later. Loaded only by commands that read questions (zod is not on --help's path).
import type { z } from 'zod';
import { checkShape, describeZodError } from '../protocol.js';
import { CliError } from './command.js';

export function readReply<Schema extends z.ZodType>(schema: Schema, body: unknown, what: string): z.infer<Schema> {
  const reply = checkShape(schema, body);
  if (!reply.ok) throw new CliError(`the daemon's ${what} is not what this askbridge expects (${describeZodError(reply.error).slice(0, 3).join('; ')}): are the daemon and the CLI the same version?`);
  return reply.value;
}
