import { type AccessTokenClaims, type KeyLookup, readAccessToken } from '../../src/oauth/domain/access-token';

/** The token's format checks and its expiry at `now`, in one answer (the service's own check is AccessTokenVerifier). */
export type VerifyResult =
  | { ok: true; claims: AccessTokenClaims }
  | { ok: false; reason: 'malformed' | 'unknown_key' | 'bad_signature' }
  | { ok: false; reason: 'expired'; claims: AccessTokenClaims };

/** Checks shape, key, signature (constant time) and expiry against `now` (epoch ms). */
export function verifyAccessToken(token: string, keys: KeyLookup, now: number): VerifyResult {
  const claims = readAccessToken(token, keys);
  if (typeof claims === 'string') return { ok: false, reason: claims };
  if (claims.expiresAt <= now) return { ok: false, reason: 'expired', claims };
  return { ok: true, claims };
}
