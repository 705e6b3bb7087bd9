import type { EventDefinitions, EventStorageCodec } from '../../platform/events/event-type-registry';
import type { RecordedEvent } from '../../platform/events/envelope';

/**
 * Event types of the OAuth module. Stable strings: they are what storage holds, and the Cards
 * module builds its views from `oauth.AppInstalled` / `oauth.AppUninstalled`.
 *
 * No event ever carries token material: authorization codes and refresh tokens appear only as
 * their SHA-256 (hex), access tokens only by their random token id.
 */
export const OAuthEventType = {
  AppInstalled: 'oauth.AppInstalled',
  AppInstallScopesChanged: 'oauth.AppInstallScopesChanged',
  AppUninstalled: 'oauth.AppUninstalled',
  AuthorizationCodeIssued: 'oauth.AuthorizationCodeIssued',
  AuthorizationCodeRedeemed: 'oauth.AuthorizationCodeRedeemed',
  RefreshTokenIssued: 'oauth.RefreshTokenIssued',
  AccessTokenIssued: 'oauth.AccessTokenIssued',
  RefreshTokenDeleted: 'oauth.RefreshTokenDeleted',
  AppAccessTokenIssued: 'oauth.AppAccessTokenIssued',
  AccessTokenRevoked: 'oauth.AccessTokenRevoked',
  InstallAccessTokensExpired: 'oauth.InstallAccessTokensExpired',
} as const;

export interface AppInstalled {
  type: typeof OAuthEventType.AppInstalled;
  data: {
    appId: number;
    hubId: number;
    /** Random id of this install (a re-install after an uninstall gets a new one). */
    installId: string;
    installingUserId: number;
    scopes: string[];
    installedAt: number;
  };
}

/** A later approval of the same app in the same account granted a different scope set. */
export interface AppInstallScopesChanged {
  type: typeof OAuthEventType.AppInstallScopesChanged;
  data: { appId: number; hubId: number; installId: string; scopes: string[]; changedAt: number };
}

export interface AppUninstalled {
  type: typeof OAuthEventType.AppUninstalled;
  data: { appId: number; hubId: number; installId: string; uninstalledAt: number };
}

export interface AuthorizationCodeIssued {
  type: typeof OAuthEventType.AuthorizationCodeIssued;
  data: {
    codeHash: string;
    appId: number;
    clientId: string;
    hubId: number;
    userId: number;
    installId: string;
    installingUserId: number;
    hublet: string;
    redirectUri: string;
    scopes: string[];
    /** PKCE S256 challenge (public by design: it travelled in the authorize URL). */
    codeChallenge: string | null;
    /** On the install's clock, in its era `clockEpoch` (absent: 0). */
    issuedAt: number;
    expiresAt: number;
    clockEpoch?: number;
  };
}

export interface AuthorizationCodeRedeemed {
  type: typeof OAuthEventType.AuthorizationCodeRedeemed;
  data: { codeHash: string; refreshTokenHash: string; redeemedAt: number };
}

export interface RefreshTokenIssued {
  type: typeof OAuthEventType.RefreshTokenIssued;
  data: {
    refreshTokenHash: string;
    codeHash: string;
    appId: number;
    clientId: string;
    hubId: number;
    userId: number;
    installId: string;
    installingUserId: number;
    hublet: string;
    scopes: string[];
    issuedAt: number;
  };
}

export interface AccessTokenIssued {
  type: typeof OAuthEventType.AccessTokenIssued;
  data: {
    tokenId: string;
    grantType: 'authorization_code' | 'refresh_token';
    refreshTokenHash: string;
    appId: number;
    hubId: number;
    userId: number;
    installId: string;
    issuedAt: number;
    expiresAt: number;
  };
}

/** The client_credentials grant (OAuth 2026-03): a token of the app itself, for no account. */
export interface AppAccessTokenIssued {
  type: typeof OAuthEventType.AppAccessTokenIssued;
  data: { tokenId: string; appId: number; clientId: string; issuedAt: number; expiresAt: number };
}

/**
 * An access token revoked by its client (RFC 7009). `expiresAt` bounds how long the revocation
 * must be remembered: past it the token fails on its own. Install fields are absent for app tokens.
 */
export interface AccessTokenRevoked {
  type: typeof OAuthEventType.AccessTokenRevoked;
  data: {
    tokenId: string;
    appId: number;
    hubId?: number;
    installId?: string;
    expiresAt: number;
    revokedAt: number;
  };
}

/** Every access token of the install issued before `expiredAt` expires now (an admin's testing tool). */
export interface InstallAccessTokensExpired {
  type: typeof OAuthEventType.InstallAccessTokensExpired;
  /**
   * expiredAt: on the install's clock; clockEpoch: the era of that clock (InstallClocks.epochOf;
   * absent: 0, as in events written before eras were counted).
   */
  data: { appId: number; hubId: number; installId: string; expiredAt: number; clockEpoch?: number };
}

export type RefreshTokenDeletionReason = 'deleted_by_client' | 'authorization_code_replayed' | 'not_delivered';

export interface RefreshTokenDeleted {
  type: typeof OAuthEventType.RefreshTokenDeleted;
  data: {
    refreshTokenHash: string;
    appId: number;
    hubId: number;
    reason: RefreshTokenDeletionReason;
    deletedAt: number;
  };
}

export type InstallEvent = AppInstalled | AppInstallScopesChanged | AppUninstalled | InstallAccessTokensExpired;
export type AuthorizationCodeEvent = AuthorizationCodeIssued | AuthorizationCodeRedeemed;
export type RefreshTokenEvent = RefreshTokenIssued | RefreshTokenDeleted;
export type AccessTokenEvent = AccessTokenIssued | AppAccessTokenIssued | AccessTokenRevoked;
export type OAuthEvent = InstallEvent | AuthorizationCodeEvent | RefreshTokenEvent | AccessTokenEvent;

type Data = AccessTokenIssued['data'];

/**
 * How oauth.AccessTokenIssued is stored: one per refresh grant, so the hottest row of the store.
 * Stored as an array `[grant, refreshTokenHash, appId, hubId, userId, installId, ttlSeconds]`:
 * no field names; the token id and issue second are left out because the stream id holds both
 * (`oauth.access-token-{second}-{tokenId}`); the expiry is the lifetime; hex digests and ids are
 * base64url of their bytes; the grant type is one letter. Nothing of the audit record is lost:
 * reading gives back exactly the event that was decided. An event the array cannot hold exactly
 * (not derivable from its stream id, or an unusual value) is stored as the object, as before.
 */
const GRANTS = { refresh_token: 'r', authorization_code: 'c' } as const;
const GRANT_OF = { r: 'refresh_token', c: 'authorization_code' } as const;
const HEX = /^(?:[0-9a-f]{2})+$/;
/** accessTokenStream's names (below), read back. */
const STREAM = /^oauth\.access-token-(\d{10})-(.+)$/;

type Stored = [keyof typeof GRANT_OF, string, number, number, number, string, number];

const hexToB64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
const b64ToHex = (b64: string) => Buffer.from(b64, 'base64url').toString('hex');

export const accessTokenIssuedStorage: EventStorageCodec<Data> = {
  encode(data, streamId) {
    const ttl = (data.expiresAt - data.issuedAt) / 1000;
    const m = STREAM.exec(streamId);
    const exact =
      m !== null &&
      Number(m[1]) * 1000 === data.issuedAt &&
      m[2] === data.tokenId &&
      data.issuedAt % 1000 === 0 &&
      Number.isInteger(ttl) &&
      ttl >= 0 &&
      data.grantType in GRANTS &&
      HEX.test(data.refreshTokenHash) &&
      HEX.test(data.installId) &&
      Object.keys(data).length === 9;
    if (!exact) return data;
    const stored: Stored = [
      GRANTS[data.grantType],
      hexToB64(data.refreshTokenHash),
      data.appId,
      data.hubId,
      data.userId,
      hexToB64(data.installId),
      ttl,
    ];
    return stored;
  },

  decode(data: unknown, event: RecordedEvent): Data {
    if (!Array.isArray(data)) return data as Data; // the first shape: the object itself
    const [grant, refreshTokenHash, appId, hubId, userId, installId, ttl] = data as Stored;
    const m = STREAM.exec(event.streamId);
    if (!m) throw new Error(`oauth.AccessTokenIssued stored compactly on stream ${event.streamId}`);
    const issuedAt = Number(m[1]) * 1000;
    return {
      tokenId: m[2]!,
      grantType: GRANT_OF[grant],
      refreshTokenHash: b64ToHex(refreshTokenHash),
      appId,
      hubId,
      userId,
      installId: b64ToHex(installId),
      issuedAt,
      expiresAt: issuedAt + ttl * 1000,
    };
  },
};

/**
 * The module's event types for the registry. oauth.AccessTokenIssued (one per refresh grant) is
 * stored compactly and read back through its codec (accessTokenIssuedStorage above), which also
 * reads the object shape it was first stored in; every other type is stored as it was first written.
 */
export const oauthEvents: EventDefinitions = {
  [OAuthEventType.AppInstalled]: null,
  [OAuthEventType.AppInstallScopesChanged]: null,
  [OAuthEventType.AppUninstalled]: null,
  [OAuthEventType.AuthorizationCodeIssued]: null,
  [OAuthEventType.AuthorizationCodeRedeemed]: null,
  [OAuthEventType.RefreshTokenIssued]: null,
  [OAuthEventType.AccessTokenIssued]: accessTokenIssuedStorage,
  [OAuthEventType.RefreshTokenDeleted]: null,
  [OAuthEventType.AppAccessTokenIssued]: null,
  [OAuthEventType.AccessTokenRevoked]: null,
  [OAuthEventType.InstallAccessTokensExpired]: null,
} satisfies Record<OAuthEvent['type'], EventDefinitions[string]>;

/** One stream per install of an app in an account; its state decides whether refresh tokens still work. */
export const installStream = (appId: number, hubId: number) => `oauth.install-${appId}-${hubId}`;
/** One stream per authorization code: single use is the expected revision of this stream. */
export const authorizationCodeStream = (codeHash: string) => `oauth.auth-code-${codeHash}`;
/** One stream per refresh token: issued, then at most deleted. Access tokens live elsewhere so it never grows. */
export const refreshTokenStream = (refreshTokenHash: string) => `oauth.refresh-token-${refreshTokenHash}`;
/**
 * One stream per access token, so refreshing never re-reads a growing history. Named by the
 * token's issue second, then its (random) id: write-once streams then land at the end of the
 * store's stream index instead of on a random page, which keeps a commit's page writes few. The
 * token itself carries both, so the stream of any token can still be found.
 */
export const accessTokenStream = (issuedAt: number, tokenId: string) =>
  `oauth.access-token-${String(Math.floor(issuedAt / 1000)).padStart(10, '0')}-${tokenId}`;
