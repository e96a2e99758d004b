// The public URL: the one address besides loopback at which the daemon is reached, through a TLS
// front the user already trusts (Tailscale Serve, Caddy, nginx) or an SSH tunnel. The daemon itself
// still listens on loopback; it accepts exactly this origin and Host, and pairing links use it.
// The user config's value applies while the daemon runs; a flag or the environment wins over it.

export type PublicUrl = {
  /** `https://box.tailnet.ts.net` (no trailing slash): what a browser sends as Origin. */
  origin: string;
  /** `box.tailnet.ts.net` (with the port when there is one): what the front sends as Host. */
  host: string;
  /** Over https: cookies get `Secure`. */
  secure: boolean;
  /** The page's address: the origin and `/`. */
  href: string;
};

/** The names of this machine's loopback addresses, as a Host header or a URL names them. */
export const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Checks a public URL: https, or http only to a loopback name (an SSH tunnel's local end), with no
 * path, query, fragment or credentials. Returns the reason it cannot be used, or the parsed URL.
 */
export function parsePublicUrl(raw: string): PublicUrl | { error: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: `"${raw}" is not a URL (for example https://box.tailnet.ts.net)` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: `${url.protocol} is not http or https` };
  if (url.protocol === 'http:' && !LOOPBACK_NAMES.has(url.hostname)) {
    return { error: `http://${url.host} would carry answers and cookies in the clear: use https (a TLS front such as Tailscale Serve or Caddy), or http only for an SSH tunnel's loopback end` };
  }
  if (url.username || url.password) return { error: 'a public URL holds no user name or password' };
  if (url.pathname !== '/' || url.search || url.hash) return { error: 'a public URL is an origin only: the page is served at its root (no path, query or #)' };
  return { origin: url.origin, host: url.host, secure: url.protocol === 'https:', href: `${url.origin}/` };
}

/**
 * Where the public URL in use comes from. The flag (`askbridge start --public-url`) and the
 * environment (ASKBRIDGE_PUBLIC_URL) are read when the daemon starts and win over the user config;
 * the user config's value (`user`) is followed while the daemon runs.
 */
export const PUBLIC_URL_SOURCES = ['flag', 'environment', 'user', 'none'] as const;
export type PublicUrlSource = (typeof PUBLIC_URL_SOURCES)[number];

/** What each place says, as written: an empty value says nothing. */
export type PublicUrlCandidates = { flag?: string | undefined; environment?: string | undefined; user?: string | undefined };

/** The public URL that applies, and where it came from; a bad flag or variable is an error (the user config's is checked when it is read). */
export type PublicUrlChoice = { url: PublicUrl | undefined; source: PublicUrlSource } | { error: string; source: PublicUrlSource };

/** The first of the flag, the environment and the user config that says anything. */
export function choosePublicUrl(candidates: PublicUrlCandidates): PublicUrlChoice {
  for (const source of ['flag', 'environment', 'user'] as const) {
    const raw = candidates[source];
    if (raw === undefined || raw === '') continue;
    const parsed = parsePublicUrl(raw);
    return 'error' in parsed ? { error: parsed.error, source } : { url: parsed, source };
  }
  return { url: undefined, source: 'none' };
}
