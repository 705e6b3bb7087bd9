import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { SigningKeyring } from '../../platform/security/signing-keys';
import { type AccessTokenClaims, readAccessToken } from '../domain/access-token';
import { AccessTokenRevocations } from './access-token-revocations';

/**
 * What one access token is worth now: signature, own expiry, then the in-memory revocations (no
 * store read). `now` is the time it was checked against, for answers that say how long ago or how
 * long still.
 */
export type AccessTokenCheck =
  | { status: 'active'; claims: AccessTokenClaims; now: number }
  /** Past its own expiry, or an admin expired the install's tokens (`expiredAt` says which time). */
  | { status: 'expired'; claims: AccessTokenClaims; now: number; expiredAt: number }
  /** Revoked, or its install was uninstalled. */
  | { status: 'revoked'; claims: AccessTokenClaims; now: number }
  | { status: 'malformed' }
  /** An unknown key or a signature that does not verify. */
  | { status: 'bad_signature' };

// Refusals without claims are the same every time: no object per request.
const MALFORMED: AccessTokenCheck = { status: 'malformed' };
const BAD_SIGNATURE: AccessTokenCheck = { status: 'bad_signature' };

/**
 * HubSpot's 401 for an expired token, the one place it is written: at an API call (the bearer
 * guard) it says when in `context`; the metadata endpoint says so in `status`.
 */
export function accessTokenExpiredError(expiredAt: number, now: number, answer: 'api-call' | 'metadata'): HubSpotError {
  const minutes = Math.max(1, Math.floor((now - expiredAt) / 60_000));
  return HubSpotError.expiredAuthentication(
    `The OAuth token used to make this call expired ${minutes} minute(s) ago.`,
    answer === 'api-call'
      ? { context: { expiredAt: [new Date(expiredAt).toISOString()] } }
      : { status: 'EXPIRED_ACCESS_TOKEN' },
  );
}

/**
 * The one access-token check: the bearer guard, the metadata endpoint, introspection and revocation
 * all ask it, and each turns the result into its own answer.
 */
@Injectable()
export class AccessTokenVerifier {
  constructor(
    private readonly keys: SigningKeyring,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly revocations: AccessTokenRevocations,
  ) {}

  check(token: string): AccessTokenCheck {
    const claims = readAccessToken(token, this.keys);
    if (typeof claims === 'string') return claims === 'malformed' ? MALFORMED : BAD_SIGNATURE;
    const now = this.nowFor(claims.appId, claims.hubId);
    if (claims.expiresAt <= now) return { status: 'expired', claims, now, expiredAt: claims.expiresAt };
    const verdict = this.revocations.verdict(claims);
    if (verdict === null) return { status: 'active', claims, now };
    if (verdict.status === 'revoked') return { status: 'revoked', claims, now };
    return { status: 'expired', claims, now, expiredAt: verdict.expiredAt };
  }

  /** The time a token of the install (app, account; account 0: an app token) is checked against: the one place it is read. */
  private nowFor(_appId: number, _hubId: number): number {
    return this.clock.now();
  }
}
