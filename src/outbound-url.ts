// Where the daemon may send word of a waiting question.
// - A webhook from the user's config: over https anywhere, or over http only to this machine's own
//   loopback (a local relay), so nothing about a question crosses a network in the clear. The same
//   rule as the public URL's (public-url.ts).
// - A push service a paired page subscribed to: its endpoint comes from a page, so it is held to far
//   less: https to one of the push services browsers use, by name, on the default port. Never an
//   address (loopback, private, link-local or any other), never another name: a paired page cannot
//   make the daemon POST to this machine or its network.

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

/**
 * The hosts of the push services browsers subscribe at, as their makers document them: Google's
 * FCM (Chrome, Edge on Android, most Chromium browsers), Mozilla's autopush (Firefox), Apple's
 * (Safari: "allow URLs from *.push.apple.com"), and Microsoft's WNS (Edge on Windows:
 * *.notify.windows.com). A host is one of these, or a name under a `.`-prefixed one.
 */
export const PUSH_SERVICE_HOSTS: readonly string[] = ['fcm.googleapis.com', 'updates.push.services.mozilla.com', '.push.apple.com', '.notify.windows.com'];

/**
 * Why a Web Push subscription's endpoint is not one the daemon sends to, or undefined when it is.
 * `testService` is an origin a test stands in for a push service at (ASKBRIDGE_TEST_PUSH_SERVICE):
 * that origin exactly, and nothing else, is let through besides the push services.
 */
export function pushEndpointProblem(raw: string, testService?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (testService !== undefined && url.origin === testService) return undefined;
  if (url.protocol !== 'https:') return `${url.protocol}// is not https: a push service takes pushes over https`;
  if (url.username || url.password) return 'a push endpoint holds no user name or password';
  if (url.port !== '') return `${url.host} names a port: a push service takes pushes on the https port`;
  const host = url.hostname;
  const isPushService = PUSH_SERVICE_HOSTS.some((known) => (known.startsWith('.') ? host.endsWith(known) && host.length > known.length : host === known));
  if (!isPushService) return `${host} is not a push service browsers use (${PUSH_SERVICE_HOSTS.map((known) => (known.startsWith('.') ? `*${known}` : known)).join(', ')})`;
  return undefined;
}
