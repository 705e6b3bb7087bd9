import { Inject, Injectable } from '@nestjs/common';
import { hash } from 'node:crypto';
import { CLOCK, type Clock, InstallClocks } from '../../platform/clock';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { encodeScopes, scopeIndex } from '../../platform/scopes/scope-catalog';
import {
  type AccessTokenClaims,
  MAX_ACCESS_TOKEN_LENGTH,
  readAccessToken,
  SigningKeyring,
} from '../domain/access-token';
import { nextSecond } from '../domain/token-seconds';

/**
 * How long an install's floor is remembered after it was set: longer than any access token lives
 * (ACCESS_TOKEN_TTL_SECONDS is at most a day), so every token it stops has expired on its own by then.
 */
export const INSTALL_FLOOR_RETENTION_MS = 24 * 60 * 60 * 1000;
/** The sweep of expired entries runs at most this often (clock time). */
const SWEEP_EVERY_MS = 60_000;

/** `expired`: when, on the install's clock in era `epoch`. */
export type RevocationVerdict = { status: 'revoked' } | { status: 'expired'; expiredAt: number; epoch: number } | null;

/**
 * Which signed (otherwise valid) access tokens no longer work, in memory, so the bearer guard stays
 * a signature check plus map lookups — never a store read. Filled by AccessTokenRevocationsProjection
 * from the checkpointed feed (revoked tokens, uninstalled installs, installs whose tokens an admin
 * expired, grants whose authorization code was replayed), and bounded: every entry is dropped once the tokens it stops have expired anyway.
 */
@Injectable()
export class AccessTokenRevocations {
  /** tokenId -> the token's own expiry. */
  private readonly revokedTokens = new Map<string, number>();
  /** installId -> keep until (uninstalled: every token of the install is dead). */
  private readonly closedInstalls = new Map<string, number>();
  /** installId -> when its tokens were expired (on its clock, in that clock's era `epoch`), and until when to keep that. */
  private readonly expiredInstalls = new Map<string, { expiredAt: number; epoch: number; keepUntil: number }>();
  /** grantId -> keep until (its authorization code was replayed: every token of the grant is dead). */
  private readonly revokedGrants = new Map<string, number>();
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

  /**
   * Every access token of a grant (tokens issued from one refresh token, so from one authorization
   * code) is revoked, from `revokedAt` (real time) on; kept as long as an install's floor.
   */
  revokeGrant(grantId: string, revokedAt: number): void {
    const keepUntil = revokedAt + INSTALL_FLOOR_RETENTION_MS;
    if (keepUntil <= this.clock.now()) return;
    this.revokedGrants.set(grantId, Math.max(keepUntil, this.revokedGrants.get(grantId) ?? 0));
    this.maybeSweep();
  }

  /**
   * The install's tokens issued until `expiredAt` (on its clock in era `epoch`) are expired. A later
   * era's expiry replaces an earlier one's: every token of an earlier era was issued before it.
   */
  expireInstallTokens(installId: string, expiredAt: number, epoch = 0): void {
    const keepUntil = expiredAt + INSTALL_FLOOR_RETENTION_MS;
    if (keepUntil <= this.clock.now()) return;
    const known = this.expiredInstalls.get(installId);
    if (!known || known.epoch < epoch || (known.epoch === epoch && known.expiredAt < expiredAt)) {
      this.expiredInstalls.set(installId, { expiredAt, epoch, keepUntil: Math.max(keepUntil, known?.keepUntil ?? 0) });
    }
    this.maybeSweep();
  }

  /** Whether a token whose signature and own expiry check out was revoked or expired early. */
  verdict(claims: AccessTokenClaims): RevocationVerdict {
    if (this.revokedTokens.has(claims.tokenId)) return { status: 'revoked' };
    if (claims.grantId !== undefined && this.revokedGrants.size > 0 && this.revokedGrants.has(claims.grantId)) {
      return { status: 'revoked' };
    }
    const installId = claims.appInstallId;
    if (installId === undefined) return null;
    if (this.closedInstalls.has(installId)) return { status: 'revoked' };
    const expired = this.expiredInstalls.get(installId);
    if (expired === undefined) return null;
    // A token of an earlier era of the install's clock was issued before the expiry. In the same era,
    // tokens carry their issue time in seconds: every token of the second of the expiry (or before) is
    // expired; IssueToken issues the install's next tokens from the following second (accessTokenIssueFloor,
    // from the install's stream). A later era's token was issued after it.
    const epoch = claims.clockEpoch ?? 0;
    if (epoch < expired.epoch || (epoch === expired.epoch && claims.issuedAt < nextSecond(expired.expiredAt))) {
      return { status: 'expired', expiredAt: expired.expiredAt, epoch: expired.epoch };
    }
    return null;
  }

  clear(): void {
    this.revokedTokens.clear();
    this.closedInstalls.clear();
    this.expiredInstalls.clear();
    this.revokedGrants.clear();
  }

  /** Entries held (for tests and metrics). */
  get size(): number {
    return this.revokedTokens.size + this.closedInstalls.size + this.expiredInstalls.size + this.revokedGrants.size;
  }

  private maybeSweep(): void {
    const now = this.clock.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [id, expiresAt] of this.revokedTokens) if (expiresAt <= now) this.revokedTokens.delete(id);
    for (const [id, keepUntil] of this.closedInstalls) if (keepUntil <= now) this.closedInstalls.delete(id);
    for (const [id, e] of this.expiredInstalls) if (e.keepUntil <= now) this.expiredInstalls.delete(id);
    for (const [id, keepUntil] of this.revokedGrants) if (keepUntil <= now) this.revokedGrants.delete(id);
  }
}

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
/** Tokens whose signature was verified, remembered at most (then the memo starts over). */
const VERIFIED_TOKENS_MAX = 4096;

/**
 * The claims of tokens whose signature this process has verified, keyed by the token's SHA-256 (never
 * the token itself): a token is presented on every call, and its HMAC check and payload decoding were
 * a tenth of a records GET's event loop. Only the signature and decoding are remembered; expiry, the
 * install's clock and the revocations are checked on every call as before. The keyring is fixed for
 * the verifier's life, so a remembered signature stays valid. Claims are frozen: they are shared.
 */
class VerifiedTokens {
  private readonly byHash = new Map<string, AccessTokenClaims>();

  constructor(private readonly keys: SigningKeyring) {}

  read(token: string): ReturnType<typeof readAccessToken> {
    // The length bound first, as readAccessToken's own: no hashing of an oversized header.
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_ACCESS_TOKEN_LENGTH) return 'malformed';
    const key = hash('sha256', token, 'base64url');
    const known = this.byHash.get(key);
    if (known !== undefined) return known;
    const read = readAccessToken(token, this.keys);
    if (typeof read === 'string') return read;
    if (this.byHash.size >= VERIFIED_TOKENS_MAX) this.byHash.clear();
    Object.freeze(read.scopes);
    this.byHash.set(key, Object.freeze(read));
    return read;
  }
}

@Injectable()
export class AccessTokenVerifier {
  private readonly verified: VerifiedTokens;

  constructor(
    private readonly keys: SigningKeyring,
    private readonly installClocks: InstallClocks,
    private readonly revocations: AccessTokenRevocations,
  ) {
    this.verified = new VerifiedTokens(keys);
  }

  check(token: string): AccessTokenCheck {
    const read = this.verified.read(token);
    if (typeof read === 'string') return read === 'malformed' ? MALFORMED : BAD_SIGNATURE;
    const { appId, hubId } = read;
    const now = this.nowFor(appId, hubId);
    // A token issued before a reset of its install's clock (an earlier era) expires that much earlier
    // on the clock now: the time that had passed on the clock that issued it stays passed.
    const dropped = this.installClocks.droppedSinceMs(appId, hubId, read.clockEpoch ?? 0);
    const claims = dropped === 0 ? read : { ...read, expiresAt: read.expiresAt - dropped };
    if (claims.expiresAt <= now) return { status: 'expired', claims, now, expiredAt: claims.expiresAt };
    const verdict = this.revocations.verdict(claims);
    if (verdict === null) return { status: 'active', claims, now };
    if (verdict.status === 'revoked') return { status: 'revoked', claims, now };
    const expiredAt = verdict.expiredAt - this.installClocks.droppedSinceMs(appId, hubId, verdict.epoch);
    return { status: 'expired', claims, now, expiredAt };
  }

  /**
   * The time a token of the install (app, account; account 0: an app token) is checked against: the
   * one place it is read. The install's own clock (InstallClocks: a Map get, no await); the expired
   * answer's minutes count from this same time (`now` in the result).
   */
  private nowFor(appId: number, hubId: number): number {
    return this.installClocks.nowFor(appId, hubId);
  }
}

// ---- HubSpot's description of a checked token (the metadata GET, introspection) ----

/** HubSpot's `SignedAccessToken` (oauth.json): the decoded token, its scope fields as encoded strings. */
export interface SignedAccessTokenView {
  appId: number;
  appInstallId: string;
  audience: string;
  expiresAt: number;
  hubId: number;
  hublet: string;
  installingUserId: number;
  isPrivateDistribution: boolean;
  isServiceAccount: boolean;
  isUserLevel: boolean;
  newSignature: string;
  scopeToScopeGroupPks: string;
  scopes: string;
  signature: string;
  trialScopeToScopeGroupPks: string;
  trialScopes: string;
  userId: number;
}

/** HubSpot's `AccessTokenInfoResponse`. */
export interface AccessTokenInfo {
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  signed_access_token: SignedAccessTokenView;
  hub_id: number;
  app_id: number;
  expires_in: number;
  user_id: number;
  token_type: 'access';
  is_private_distribution: boolean;
}

/**
 * The two encoded scope fields of a scope list. An install has one scope list, so a service sees few
 * of them: each is encoded once and remembered (keyed by the list as written, since order shows in
 * the bytes), up to SCOPE_ENCODINGS_MAX lists, after which the memo starts over.
 */
const SCOPE_ENCODINGS_MAX = 1024;
const scopeEncodings = new Map<string, { groupPks: string; scopes: string }>();

export function encodedScopeFields(scopes: readonly string[]): { groupPks: string; scopes: string } {
  const key = scopes.join(' ');
  let encoded = scopeEncodings.get(key);
  if (encoded === undefined) {
    if (scopeEncodings.size >= SCOPE_ENCODINGS_MAX) scopeEncodings.clear();
    encoded = { groupPks: encodeScopeGroupPks(scopes), scopes: encodeScopes(scopes).toString('base64') };
    scopeEncodings.set(key, encoded);
  }
  return encoded;
}

/**
 * Scope group pks as HubSpot encodes them: a compact binary list, base64. Here each catalog entry
 * is its own group, pk = catalog index + 1, written as varints.
 */
function encodeScopeGroupPks(scopes: readonly string[]): string {
  const bytes: number[] = [];
  for (const s of scopes) {
    let v = (scopeIndex(s) ?? -1) + 1;
    if (v <= 0) continue;
    while (v >= 0x80) {
      bytes.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    bytes.push(v);
  }
  return Buffer.from(bytes).toString('base64');
}

export function accessTokenInfo(input: {
  token: string;
  claims: AccessTokenClaims;
  now: number;
  userEmail: string;
  hubDomain: string;
  audience: string;
}): AccessTokenInfo {
  const { token, claims } = input;
  const [kid, , signature] = token.split('.') as [string, string, string];
  const encoded = encodedScopeFields(claims.scopes);
  return {
    token,
    user: input.userEmail,
    hub_domain: input.hubDomain,
    scopes: claims.scopes,
    signed_access_token: {
      appId: claims.appId,
      appInstallId: claims.appInstallId ?? '',
      audience: input.audience,
      expiresAt: claims.expiresAt,
      hubId: claims.hubId,
      hublet: claims.hublet,
      installingUserId: claims.installingUserId,
      isPrivateDistribution: false,
      isServiceAccount: false,
      isUserLevel: false,
      newSignature: `${kid}.${signature}`,
      scopeToScopeGroupPks: encoded.groupPks,
      scopes: encoded.scopes,
      signature,
      trialScopeToScopeGroupPks: '',
      trialScopes: '',
      userId: claims.userId,
    },
    hub_id: claims.hubId,
    app_id: claims.appId,
    expires_in: Math.max(0, Math.floor((claims.expiresAt - input.now) / 1000)),
    user_id: claims.userId,
    token_type: 'access',
    is_private_distribution: false,
  };
}
