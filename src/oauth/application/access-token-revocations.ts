import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock';
import type { AccessTokenClaims } from '../domain/access-token';
import { nextSecond } from '../domain/install.decider';

/**
 * How long an install's floor is remembered after it was set: longer than any access token lives
 * (ACCESS_TOKEN_TTL_SECONDS is at most a day), so every token it stops has expired on its own by then.
 */
export const INSTALL_FLOOR_RETENTION_MS = 24 * 60 * 60 * 1000;
/** The sweep of expired entries runs at most this often (clock time). */
const SWEEP_EVERY_MS = 60_000;

export type RevocationVerdict = { status: 'revoked' } | { status: 'expired'; expiredAt: number } | null;

/**
 * Which signed (otherwise valid) access tokens no longer work, in memory, so the bearer guard stays
 * a signature check plus map lookups — never a store read. Filled by AccessTokenRevocationsProjection
 * from the checkpointed feed (revoked tokens, uninstalled installs, installs whose tokens an admin
 * expired), and bounded: every entry is dropped once the tokens it stops have expired anyway.
 */
@Injectable()
export class AccessTokenRevocations {
  /** tokenId -> the token's own expiry. */
  private readonly revokedTokens = new Map<string, number>();
  /** installId -> keep until (uninstalled: every token of the install is dead). */
  private readonly closedInstalls = new Map<string, number>();
  /** installId -> when its tokens were expired, and until when to keep that. */
  private readonly expiredInstalls = new Map<string, { expiredAt: number; keepUntil: number }>();
  private nextSweep = 0;

  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  revokeToken(tokenId: string, expiresAt: number): void {
    if (expiresAt <= this.clock.now()) return;
    this.revokedTokens.set(tokenId, expiresAt);
    this.maybeSweep();
  }

  closeInstall(installId: string, closedAt: number): void {
    const keepUntil = closedAt + INSTALL_FLOOR_RETENTION_MS;
    if (keepUntil <= this.clock.now()) return;
    this.closedInstalls.set(installId, Math.max(keepUntil, this.closedInstalls.get(installId) ?? 0));
    this.maybeSweep();
  }

  expireInstallTokens(installId: string, expiredAt: number): void {
    const keepUntil = expiredAt + INSTALL_FLOOR_RETENTION_MS;
    if (keepUntil <= this.clock.now()) return;
    const known = this.expiredInstalls.get(installId);
    if (!known || known.expiredAt < expiredAt) this.expiredInstalls.set(installId, { expiredAt, keepUntil });
    this.maybeSweep();
  }

  /** Whether a token whose signature and own expiry check out was revoked or expired early. */
  verdict(claims: AccessTokenClaims): RevocationVerdict {
    if (this.revokedTokens.has(claims.tokenId)) return { status: 'revoked' };
    const installId = claims.appInstallId;
    if (installId === undefined) return null;
    if (this.closedInstalls.has(installId)) return { status: 'revoked' };
    const expired = this.expiredInstalls.get(installId);
    // Tokens carry their issue time in seconds: every token of the second of the expiry (or before) is
    // expired; IssueToken issues the install's next tokens from the following second (accessTokenIssueFloor,
    // from the install's stream).
    if (expired && claims.issuedAt < nextSecond(expired.expiredAt))
      return { status: 'expired', expiredAt: expired.expiredAt };
    return null;
  }

  clear(): void {
    this.revokedTokens.clear();
    this.closedInstalls.clear();
    this.expiredInstalls.clear();
  }

  /** Entries held (for tests and metrics). */
  get size(): number {
    return this.revokedTokens.size + this.closedInstalls.size + this.expiredInstalls.size;
  }

  private maybeSweep(): void {
    const now = this.clock.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [id, expiresAt] of this.revokedTokens) if (expiresAt <= now) this.revokedTokens.delete(id);
    for (const [id, keepUntil] of this.closedInstalls) if (keepUntil <= now) this.closedInstalls.delete(id);
    for (const [id, e] of this.expiredInstalls) if (e.keepUntil <= now) this.expiredInstalls.delete(id);
  }
}
