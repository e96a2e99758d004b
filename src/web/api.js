// @ts-check
// The daemon's API as the page calls it: with the page's key (the cookie rides along), never throwing.

/**
 * Where the page keeps the key it got when it paired. localStorage belongs to this exact origin,
 * port included, so no other server on this host can read it, while the cookie goes to all of them.
 */
export const PAGE_KEY_STORAGE = 'askbridge.pageKey';

/**
 * fetch that never throws: status 0 means the daemon could not be reached.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ status: number; data: any }>}
 */
export async function api(method, path, body) {
  /** @type {RequestInit & { headers: Record<string, string> }} */
  const init = { method, credentials: 'same-origin', cache: 'no-store', headers: {} };
  const key = pageKey();
  if (key) init.headers['x-askbridge-key'] = key;
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return { status: 0, data: null };
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    // Not JSON (a proxy error page, an empty body): the status alone has to do.
  }
  return { status: response.status, data };
}

/** The key this page got when it paired, if it has one. */
export function pageKey() {
  try {
    return localStorage.getItem(PAGE_KEY_STORAGE);
  } catch {
    return null; // storage disabled: the page cannot stay paired
  }
}
