// One error shape for every route: `{ error: { code, message, details? } }`. Routes throw HttpError;
// a request that does not match its route's schema fails before the handler runs. app.ts maps both
// to a response and hides 5xx details.
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
