// One error shape for every route: `{ error: { code, message, details? } }`. Routes throw
// HttpError (or let a zod parse fail); app.ts maps both to a response and hides 5xx details.
import type { z } from 'zod';
import { describeZodError } from '../protocol.js';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Parse a request part with a schema, or fail with a 400 that names every bad field. */
export function parseOr400<S extends z.ZodType>(schema: S, value: unknown, what: string, pathPrefix = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = describeZodError(result.error, pathPrefix);
  throw new HttpError(400, 'invalid_request', `invalid ${what}: ${problems.slice(0, 5).join('; ')}`, problems);
}
