/**
 * The URL as logged, with token material taken out. Three nets, because a URL can be spelled in
 * more ways than a route or a parameter name anticipates:
 * 1. the routed path (`/oauth/v1/access-tokens/:token`), or the path as the router would read it
 *    when nothing routed (percent-decoded, `\` as `/`, `.` and `..` segments resolved, `;params`
 *    ignored), cut after the token routes' prefix;
 * 2. query parameters whose name, decoded and reduced to letters and digits, names a secret
 *    (`refresh_token[]`, `refresh_token%00`, `Authorization`, `apikey`, `id_token`, ...);
 * 3. anything anywhere that has the shape of a token this service issues (access tokens
 *    `kid.payload.signature`, refresh tokens and codes `hublet-random`) or of a long random secret;
 * and, given `secrets`, any secret value the service knows (the admin key, ...), by value.
 */
const SECRET_ROUTE = /^\/oauth\/v1\/(?:access-tokens|refresh-tokens)\/:token$/;
const SECRET_PATH = /^\/+oauth\/+v1\/+(?:access-tokens|refresh-tokens)(?:\/|$)/i;

/** Query parameter names (lower case, letters and digits only) whose values are secrets. */
const SECRET_NAMES = new Set(['code', 'codeverifier', 'key', 'hapikey', 'apikey', 'bearer', 'authorization']);
/** ... and any name containing one of these. */
const SECRET_NAME_PARTS = ['token', 'secret', 'password', 'apikey', 'authorization', 'bearer'];

/** `?`, `&` or `;` start a parameter; a value ends at the next of them or at `#`. */
const QUERY_PARAM = /([?&;])([^=&#;?]*)=([^&#;?]*)/g;

/** Our access tokens: `<kid>.<base64url payload>.<base64url HMAC-SHA256>` (43 characters). */
const ACCESS_TOKEN_SHAPE = /[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{40,}/g;
/** Our refresh tokens and authorization codes: `<hublet>-<43 base64url characters>`. */
const HUBLET_SECRET_SHAPE = /(?<![A-Za-z0-9_-])[a-z]{2,4}[0-9]{1,2}-[A-Za-z0-9_-]{40,}/g;
/** A run of 32+ URL-safe characters mixing upper case, lower case and digits: random, not a name. */
const RANDOM_RUN = /[A-Za-z0-9_-]{32,}/g;

const REDACTED = '[REDACTED]';

/** A path routerPath would return unchanged: from the root, with nothing to decode or resolve. */
const PLAIN_PATH = /^\/[^%\\.;]*$/;
/** Every token shape above holds a run of 32 or more of these: without one, none is there. */
const LONG_RUN = /[A-Za-z0-9_-]{32}/;

/** Known secret values (log-secrets.ts), looked for in the decoded URL too: `%61dmin…` is the same key. */
export interface SecretValues {
  redact(text: string): string;
}

export function redactUrl(url: string, routeUrl?: string, secrets?: SecretValues): string {
  // A static route requested as routed, no query: the URL is the route's own text, from our code.
  if (url === routeUrl && !routeUrl.includes(':') && !routeUrl.includes('*')) return url;
  const q = url.search(/[?#]/);
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rest = q < 0 ? '' : url.slice(q);
  let path = rawPath;
  if (routeUrl !== undefined && SECRET_ROUTE.test(routeUrl)) {
    path = routeUrl.replace(':token', REDACTED);
    // Nothing after the token: what is left is the route's own text.
    if (rest === '') return path;
  } else {
    // A plain path (no escape, `\\`, dot or `;`) is already what the router reads.
    const normalized = PLAIN_PATH.test(rawPath) ? rawPath : routerPath(rawPath);
    const secret = SECRET_PATH.exec(normalized);
    if (secret) path = `${secret[0].replace(/\/?$/, '/')}${REDACTED}`;
  }
  const named =
    path +
    rest.replace(QUERY_PARAM, (whole, sep: string, name: string) =>
      isSecretName(name) ? `${sep}${name}=${REDACTED}` : whole,
    );
  return withoutTokenShapes(named, secrets);
}

function isSecretName(raw: string): boolean {
  const name = percentDecoded(raw.replace(/\+/g, ' '))
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  return SECRET_NAMES.has(name) || SECRET_NAME_PARTS.some((part) => name.includes(part));
}

/**
 * Token shapes are looked for in the decoded text (a `%2E` must not hide a token's dots); when one
 * is found, the decoded text is what is logged, with each one replaced.
 */
function withoutTokenShapes(text: string, secrets: SecretValues | undefined): string {
  const decoded = percentDecoded(text);
  const known = secrets ? secrets.redact(decoded) : decoded;
  if (!LONG_RUN.test(known)) return known === decoded ? text : known;
  const redacted = known
    .replace(ACCESS_TOKEN_SHAPE, REDACTED)
    .replace(HUBLET_SECRET_SHAPE, REDACTED)
    .replace(RANDOM_RUN, (run) => (/[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run) ? REDACTED : run));
  return redacted === decoded ? text : redacted;
}

/** The path as the router resolves it: decoded, without origin, `\` as `/`, dot segments and `;params` gone. */
function routerPath(rawPath: string): string {
  const segments = percentDecoded(withoutOrigin(rawPath)).replace(/\\/g, '/').split('/');
  const out: string[] = [];
  for (const segment of segments) {
    const bare = segment.replace(/;.*$/, '');
    if (bare === '.') continue;
    if (bare === '..') {
      if (out.length > 1) out.pop();
      continue;
    }
    out.push(bare);
  }
  return out.join('/');
}

/** Decodes what decodes; a malformed escape stays as it was (the router does the same). */
function percentDecoded(raw: string): string {
  if (!raw.includes('%')) return raw;
  return raw.replace(/(?:%[0-9A-Fa-f]{2})+/g, (sequence) => {
    try {
      return decodeURIComponent(sequence);
    } catch {
      return sequence;
    }
  });
}

/** The path of an absolute-form request target (`http://host/path`), as the router reads it. */
function withoutOrigin(path: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  return match ? path.slice(match[0].length) || '/' : path;
}
