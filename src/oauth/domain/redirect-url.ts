/**
 * `redirect_uri?code=…&state=…` keeping the registered URI byte for byte (its own query, if any,
 * stays first) and `state` exactly as the client sent it (percent-encoded once, decoded once).
 */
export function redirectWithParams(redirectUri: string, params: Record<string, string | undefined>): string {
  const query = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  if (query === '') return redirectUri;
  // RFC 6749 §3.1.2 forbids fragments in redirect URIs; should one slip through, keep it last.
  const hash = redirectUri.indexOf('#');
  const base = hash < 0 ? redirectUri : redirectUri.slice(0, hash);
  const fragment = hash < 0 ? '' : redirectUri.slice(hash);
  return `${base}${base.includes('?') ? '&' : '?'}${query}${fragment}`;
}
