import { createHmac, createSecretKey, KeyObject, timingSafeEqual } from 'node:crypto';
import { randomBytesFromPool } from '../../platform/security/crypto';
import { decodeScopes, encodeScopes, SCOPE_CATALOG_VERSION } from '../../platform/scopes/scope-catalog';
import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { AccessTokenEvent, AccessTokenIssued, OAuthEventType } from './oauth-events';
import type { RefreshGrant } from './refresh-token.decider';

/*
 * The access token: its signed format (encode, read), the keyring it is signed with, and its stream's
 * decider (issued once, then at most revoked).
 */

/**
 * Self-contained, HMAC-signed access tokens: any instance verifies one without a store lookup.
 *
 *   <kid>.<base64url(payload)>.<base64url(HMAC-SHA256(kid "." payload))>
 *
 * The payload is binary: format version, scope catalog version, varint ids and times, hublet,
 * a random token id, (format 2) the install id, and the scopes as a bitset over the catalog, so a
 * token with every scope stays far below HubSpot's 512-character ceiling.
 */
export interface AccessTokenClaims {
  tokenId: string;
  hubId: number;
  userId: number;
  appId: number;
  installingUserId: number;
  /** 16 hex characters naming the install the token was issued for (absent in format-1 tokens). */
  appInstallId?: string;
  /**
   * 16 hex characters naming the grant the token comes from: its refresh token (grantIdOf), so all
   * tokens of one authorization code can be revoked together (format 4; absent before).
   */
  grantId?: string;
  /**
   * The era of the install's clock the token was issued in (how many times that clock had been
   * reset; format 4, absent when 0): its times are on that era's clock (InstallClocks.droppedSinceMs).
   */
  clockEpoch?: number;
  hublet: string;
  /** Epoch milliseconds (stored with second precision). */
  issuedAt: number;
  expiresAt: number;
  scopes: string[];
  /**
   * A token of the app itself (client_credentials, OAuth 2026-03): no account, user or install
   * (hubId, userId and installingUserId are 0). Only endpoints meant for the app accept it.
   */
  appToken?: true;
}

export type VerifyResult =
  | { ok: true; claims: AccessTokenClaims }
  | { ok: false; reason: 'malformed' | 'unknown_key' | 'bad_signature' }
  | { ok: false; reason: 'expired'; claims: AccessTokenClaims };

/**
 * Format 1: no install id. Format 2: an 8-byte install id follows the token id. Format 3: an app
 * token (format 1's layout). Format 4: format 2, then an 8-byte grant id and the install clock's era
 * (a varint) after the install id.
 */
const FORMAT_V1 = 1;
const FORMAT_V2 = 2;
const FORMAT_APP = 3;
const FORMAT_V4 = 4;
const INSTALL_ID = /^[0-9a-f]{16}$/;
const HUBLETS = ['na1', 'na2', 'na3', 'eu1', 'ap1'] as const;
export const MAX_ACCESS_TOKEN_LENGTH = 512;

/** Not secret: names an access token in its event and inside the signed token. */
export const newAccessTokenId = (): string => randomBytesFromPool(8).toString('hex');

/**
 * The grant id an access token carries: the first 16 hex characters of its refresh token's SHA-256
 * (the hash the events already hold; a prefix of a hash of 256 random bits tells nothing of the token).
 */
export const grantIdOf = (refreshTokenHash: string): string => refreshTokenHash.slice(0, 16);

/** Tokens carry whole seconds: the first issue time after the second `ms` falls in. */
export const nextSecond = (ms: number): number => Math.floor(ms / 1000) * 1000 + 1000;

/**
 * The HMAC keys of access tokens (and the install page's sessions), by key id: the first signs, all
 * verify, so keys rotate by prepending a new one. Where they come from (TOKEN_SIGNING_KEYS, or a key
 * kept in DATA_DIR) is platform/security/signing-keys.ts.
 */
export class SigningKeyring {
  private readonly byKid: Map<string, Buffer>;
  constructor(readonly keys: ReadonlyArray<{ kid: string; secret: Buffer }>) {
    if (keys.length === 0) throw new Error('at least one signing key is needed');
    this.byKid = new Map(keys.map((k) => [k.kid, k.secret]));
  }

  get active(): { kid: string; secret: Buffer } {
    return this.keys[0]!;
  }

  secretFor(kid: string): Buffer | undefined {
    return this.byKid.get(kid);
  }
}

/** What encoding and reading a token need of the keyring. */
export type KeyLookup = Pick<SigningKeyring, 'active' | 'secretFor'>;

function writeVarint(out: number[], value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`varint out of range: ${value}`);
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

function varint(value: number): number[] {
  const out: number[] = [];
  writeVarint(out, value);
  return out;
}

function readVarint(buf: Buffer, at: { i: number }): number {
  let result = 0;
  let mul = 1;
  for (let n = 0; n < 8; n++) {
    if (at.i >= buf.length) throw new Error('truncated');
    const b = buf[at.i++]!;
    result += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) return result;
    mul *= 0x80;
  }
  throw new Error('varint too long');
}

/**
 * `createHmac` with a Buffer key re-validates and re-imports the key on every call (a measurable
 * share of a metadata GET); a KeyObject made once per secret skips that. Keyed by the Buffer
 * itself, so a rotated keyring brings its own entries and dropped secrets are collected.
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();

function keyObjectFor(secret: Buffer): KeyObject {
  let key = keyObjects.get(secret);
  if (!key) {
    key = createSecretKey(secret);
    keyObjects.set(secret, key);
  }
  return key;
}

function sign(kid: string, payload: string, secret: Buffer): string {
  return createHmac('sha256', keyObjectFor(secret)).update(`${kid}.${payload}`).digest('base64url');
}

export function encodeAccessToken(
  claims: Omit<AccessTokenClaims, 'tokenId'> & { tokenId?: string },
  keys: KeyLookup,
): {
  token: string;
  tokenId: string;
} {
  const tokenId = claims.tokenId ?? randomBytesFromPool(8).toString('hex');
  const hublet = HUBLETS.indexOf(claims.hublet as (typeof HUBLETS)[number]);
  if (hublet < 0) throw new Error(`unknown hublet ${claims.hublet}`);
  const installId = claims.appInstallId;
  if (installId !== undefined && !INSTALL_ID.test(installId)) throw new Error('appInstallId must be 16 hex characters');
  if (claims.appToken && installId !== undefined) throw new Error('an app token has no install');
  const grantId = claims.grantId;
  if (grantId !== undefined && (installId === undefined || !INSTALL_ID.test(grantId))) {
    throw new Error('grantId must be 16 hex characters, on an install token');
  }
  const clockEpoch = claims.clockEpoch ?? 0;
  if (clockEpoch !== 0 && grantId === undefined) throw new Error('clockEpoch needs a grantId (format 4)');
  const format = claims.appToken
    ? FORMAT_APP
    : installId === undefined
      ? FORMAT_V1
      : grantId === undefined
        ? FORMAT_V2
        : FORMAT_V4;
  const bytes: number[] = [format, SCOPE_CATALOG_VERSION, hublet];
  for (const v of [claims.hubId, claims.userId, claims.appId, claims.installingUserId]) writeVarint(bytes, v);
  writeVarint(bytes, Math.floor(claims.issuedAt / 1000));
  writeVarint(bytes, Math.floor(claims.expiresAt / 1000));
  const payload = Buffer.concat([
    Buffer.from(bytes),
    Buffer.from(tokenId, 'hex'),
    ...(installId === undefined ? [] : [Buffer.from(installId, 'hex')]),
    ...(grantId === undefined ? [] : [Buffer.from(grantId, 'hex'), Buffer.from(varint(clockEpoch))]),
    encodeScopes(claims.scopes),
  ]).toString('base64url');
  const { kid, secret } = keys.active;
  return { token: `${kid}.${payload}.${sign(kid, payload, secret)}`, tokenId };
}

/** Checks shape, key, signature (constant time) and expiry against `now` (epoch ms). */
export function verifyAccessToken(token: string, keys: KeyLookup, now: number): VerifyResult {
  const claims = readAccessToken(token, keys);
  if (typeof claims === 'string') return { ok: false, reason: claims };
  if (claims.expiresAt <= now) return { ok: false, reason: 'expired', claims };
  return { ok: true, claims };
}

/**
 * The claims of a token whose signature verifies, or why not; expiry is left to the caller (the
 * time it is checked against may depend on the claims). No wrapper object: the hot paths read this.
 */
export function readAccessToken(
  token: string,
  keys: KeyLookup,
): AccessTokenClaims | 'malformed' | 'unknown_key' | 'bad_signature' {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_ACCESS_TOKEN_LENGTH) return 'malformed';
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return 'malformed';
  const [kid, payload, signature] = parts as [string, string, string];
  const secret = keys.secretFor(kid);
  if (!secret) return 'unknown_key';
  const expected = Buffer.from(sign(kid, payload, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'bad_signature';
  try {
    return decodePayload(Buffer.from(payload, 'base64url'));
  } catch {
    return 'malformed';
  }
}

function decodePayload(buf: Buffer): AccessTokenClaims {
  const at = { i: 0 };
  const format = buf[at.i++];
  if (format !== FORMAT_V1 && format !== FORMAT_V2 && format !== FORMAT_APP && format !== FORMAT_V4) {
    throw new Error('format');
  }
  if (buf[at.i++] !== SCOPE_CATALOG_VERSION) throw new Error('catalog');
  const hublet = HUBLETS[buf[at.i++]!];
  if (!hublet) throw new Error('hublet');
  const hubId = readVarint(buf, at);
  const userId = readVarint(buf, at);
  const appId = readVarint(buf, at);
  const installingUserId = readVarint(buf, at);
  const issuedAt = readVarint(buf, at) * 1000;
  const expiresAt = readVarint(buf, at) * 1000;
  if (at.i + 8 > buf.length) throw new Error('truncated');
  const tokenId = buf.subarray(at.i, at.i + 8).toString('hex');
  at.i += 8;
  let appInstallId: string | undefined;
  let grantId: string | undefined;
  let clockEpoch = 0;
  if (format === FORMAT_V2 || format === FORMAT_V4) {
    if (at.i + 8 > buf.length) throw new Error('truncated');
    appInstallId = buf.subarray(at.i, at.i + 8).toString('hex');
    at.i += 8;
  }
  if (format === FORMAT_V4) {
    if (at.i + 8 > buf.length) throw new Error('truncated');
    grantId = buf.subarray(at.i, at.i + 8).toString('hex');
    at.i += 8;
    clockEpoch = readVarint(buf, at);
  }
  const scopes = decodeScopes(buf.subarray(at.i));
  const claims: AccessTokenClaims = {
    tokenId,
    hubId,
    userId,
    appId,
    installingUserId,
    hublet,
    issuedAt,
    expiresAt,
    scopes,
  };
  if (appInstallId !== undefined) claims.appInstallId = appInstallId;
  if (grantId !== undefined) claims.grantId = grantId;
  if (clockEpoch > 0) claims.clockEpoch = clockEpoch;
  if (format === FORMAT_APP) claims.appToken = true;
  return claims;
}

// ---- The access token's stream ----

/** One access token's stream: issued once (for an install, or for the app itself), then at most revoked. */
export type AccessTokenState =
  | { status: 'unknown' }
  | {
      status: 'issued' | 'revoked';
      tokenId: string;
      appId: number;
      /** Absent for app tokens (client_credentials). */
      hubId?: number;
      installId?: string;
      expiresAt: number;
    };

export interface IssueAccessTokenCommand {
  type: 'IssueAccessToken';
  /** The refresh token the access token comes from: usable for this client (checked by the caller). */
  grant: RefreshGrant;
  grantType: AccessTokenIssued['data']['grantType'];
  /** Random id the signed token carries. */
  tokenId: string;
  /** Second precision, as the token stores it. */
  issuedAt: number;
  expiresAt: number;
}

/** The client_credentials grant: a token of the app itself (the client was authenticated by the caller). */
export interface IssueAppAccessTokenCommand {
  type: 'IssueAppAccessToken';
  appId: number;
  clientId: string;
  tokenId: string;
  issuedAt: number;
  expiresAt: number;
}

/** RFC 7009 revocation by the token's own client (ownership checked by the caller). */
export interface RevokeAccessTokenCommand {
  type: 'RevokeAccessToken';
  now: number;
  /**
   * What the verified (signed) token itself says. Used when its stream is empty: a genuine token
   * whose issue left the live store (archived, e.g. after a wall-clock step) is still revoked,
   * never silently missed.
   */
  token?: { tokenId: string; appId: number; hubId?: number; installId?: string; expiresAt: number };
}

export type AccessTokenCommand = IssueAccessTokenCommand | IssueAppAccessTokenCommand | RevokeAccessTokenCommand;

/**
 * Both grants of the token endpoint end here: an access token issued from a refresh token (or, in
 * 2026-03, for the app itself). The token is self-contained; the events are the audit record of its
 * issue and of its revocation (no token material).
 */
export const accessTokenDecider: Decider<AccessTokenState, AccessTokenCommand, AccessTokenEvent> = {
  initialState: () => ({ status: 'unknown' }),

  evolve: (state, event) => {
    switch (event.type) {
      case OAuthEventType.AccessTokenIssued:
        return {
          status: 'issued',
          tokenId: event.data.tokenId,
          appId: event.data.appId,
          hubId: event.data.hubId,
          installId: event.data.installId,
          expiresAt: event.data.expiresAt,
        };
      case OAuthEventType.AppAccessTokenIssued:
        return {
          status: 'issued',
          tokenId: event.data.tokenId,
          appId: event.data.appId,
          expiresAt: event.data.expiresAt,
        };
      case OAuthEventType.AccessTokenRevoked:
        return state.status === 'unknown' ? state : { ...state, status: 'revoked' };
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'IssueAccessToken': {
        // 64 random bits within one second do not collide; if they did, refusing beats sharing a stream.
        if (state.status !== 'unknown') throw HubSpotError.conflict('access token id collision; retry');
        const { grant } = command;
        return [
          {
            type: OAuthEventType.AccessTokenIssued,
            data: {
              tokenId: command.tokenId,
              grantType: command.grantType,
              refreshTokenHash: grant.refreshTokenHash,
              appId: grant.appId,
              hubId: grant.hubId,
              userId: grant.userId,
              installId: grant.installId,
              issuedAt: command.issuedAt,
              expiresAt: command.expiresAt,
            },
          },
        ];
      }
      case 'IssueAppAccessToken':
        if (state.status !== 'unknown') throw HubSpotError.conflict('access token id collision; retry');
        return [
          {
            type: OAuthEventType.AppAccessTokenIssued,
            data: {
              tokenId: command.tokenId,
              appId: command.appId,
              clientId: command.clientId,
              issuedAt: command.issuedAt,
              expiresAt: command.expiresAt,
            },
          },
        ];
      case 'RevokeAccessToken': {
        const { token } = command;
        if (state.status === 'unknown' && token !== undefined && token.expiresAt > command.now) {
          // Signed by us and unexpired, but its issue is not in the stream (archived): revoke from the token.
          return [
            {
              type: OAuthEventType.AccessTokenRevoked,
              data: {
                tokenId: token.tokenId,
                appId: token.appId,
                ...(token.hubId !== undefined ? { hubId: token.hubId } : {}),
                ...(token.installId !== undefined ? { installId: token.installId } : {}),
                expiresAt: token.expiresAt,
                revokedAt: command.now,
              },
            },
          ];
        }
        // RFC 7009: revoking a token that is unknown, already revoked or expired changes nothing.
        if (state.status !== 'issued' || state.expiresAt <= command.now) return [];
        return [
          {
            type: OAuthEventType.AccessTokenRevoked,
            data: {
              tokenId: state.tokenId,
              appId: state.appId,
              ...(state.hubId !== undefined ? { hubId: state.hubId } : {}),
              ...(state.installId !== undefined ? { installId: state.installId } : {}),
              expiresAt: state.expiresAt,
              revokedAt: command.now,
            },
          },
        ];
      }
    }
  },
};
