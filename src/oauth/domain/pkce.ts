import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** Any code_challenge: 43–128 unreserved characters, like the verifier it stands for. */
const CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is BASE64URL(SHA-256(verifier)) without padding: exactly 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export type PkceProblem = {
  /** The parameter at fault: the page calls them code_challenge(_method), the admin API camelCase. */
  param: 'challenge' | 'method';
  code: 'REQUIRED' | 'INVALID';
  message: string;
};

/**
 * The one PKCE rule of authorize requests (install page and programmatic install alike): only
 * S256, named explicitly. RFC 7636 §4.3 reads a challenge without a method as `plain`, which
 * offers no protection against an intercepted authorize request, so that is refused too.
 * Returns the challenge to bind to the code (null: no PKCE), or the problem.
 */
export function checkPkceRequest(
  challenge: string | undefined,
  method: string | undefined,
): { ok: true; challenge: string | null } | { ok: false; problem: PkceProblem } {
  const fail = (param: PkceProblem['param'], code: PkceProblem['code'], message: string) =>
    ({ ok: false, problem: { param, code, message } }) as const;
  if (challenge === undefined || challenge === '') {
    if (method !== undefined && method !== '') {
      return fail('challenge', 'REQUIRED', 'code_challenge_method was given without a code_challenge.');
    }
    return { ok: true, challenge: null };
  }
  if (method === undefined || method === '') {
    return fail(
      'method',
      'REQUIRED',
      'code_challenge_method is required with a code_challenge: send S256 (without it the method is plain, which is not supported).',
    );
  }
  if (method !== 'S256') {
    return fail('method', 'INVALID', 'code_challenge_method must be S256 (the plain method is not supported).');
  }
  if (!CHALLENGE.test(challenge)) {
    return fail('challenge', 'INVALID', 'code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.');
  }
  if (!S256_CHALLENGE.test(challenge)) {
    return fail(
      'challenge',
      'INVALID',
      'code_challenge must be the base64url-encoded SHA-256 of the code verifier (43 characters, no padding).',
    );
  }
  return { ok: true, challenge };
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Constant time on the comparison; a malformed verifier never matches. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
