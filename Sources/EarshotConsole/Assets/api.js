// The platform API as the console uses it: the session cookie, the CSRF header on every change, errors in words.

const prefix = document.querySelector('meta[name="earshot-api-prefix"]')?.content ?? '';

/** An error answer of the API: `status`, wire `code` and the server's `message`. */
export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The URL of an API path (with `api-prefix`). */
export function url(path) {
  return prefix + path;
}

/** The CSRF token of this session (the readable `earshot_csrf` cookie). */
export function csrfToken() {
  const entry = document.cookie.split(';').map((c) => c.trim()).find((c) => c.startsWith('earshot_csrf='));
  return entry ? entry.slice('earshot_csrf='.length) : '';
}

/** Called with every 401 of a signed-in call (the session expired or was revoked). */
let onSignedOut = () => {};
export function whenSignedOut(handler) {
  onSignedOut = handler;
}

/**
 * `method` `path` with an optional JSON body; resolves to the parsed JSON answer (null for 204), rejects with an
 * APIError. `open: true` marks calls that need no session (sign-in): their 401 is an answer, not an expiry.
 */
export async function api(method, path, body, { open = false } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD') headers['X-CSRF-Token'] = csrfToken();
  let response;
  try {
    response = await fetch(url(path), {
      method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new APIError(0, 'NETWORK', `The server did not answer (${error.message}). Check your connection.`);
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) {
    const error = json?.error ?? {};
    const failure = new APIError(response.status, error.code ?? 'HTTP_' + response.status,
      error.message ?? `The server answered ${response.status}.`);
    if (response.status === 401 && !open) onSignedOut(failure);
    throw failure;
  }
  return json;
}
