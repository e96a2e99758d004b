// Where the daemon may send word of a waiting question: a webhook from the user's config, or a push
// service a paired page subscribed to. Over https anywhere, or over http only to this machine's own
// loopback (a local relay, or a stand-in push service), so nothing about a question crosses a network
// in the clear. The same rule as the public URL's (public-url.ts).

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why `raw` cannot receive notices, or undefined when it can. */
export function outboundUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL (for example https://ntfy.sh/my-topic)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${url.protocol} is not http or https`;
  if (url.protocol === 'http:' && !LOOPBACK_NAMES.has(url.hostname)) return `http://${url.host} would carry the notice in the clear: use https (http only to this machine's loopback)`;
  // fetch refuses a URL that holds credentials.
  if (url.username || url.password) return 'a URL with a user name or password cannot be used';
  return undefined;
}
