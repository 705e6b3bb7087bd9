import type { EventDefinitions } from '../../platform/events/event-type-registry';
import { accessTokenIssuedStorage } from './access-token-issued-storage';

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
    issuedAt: number;
    expiresAt: number;
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
  data: { appId: number; hubId: number; installId: string; expiredAt: number };
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

/**
 * The module's event types for the registry. oauth.AccessTokenIssued (one per refresh grant) is
 * stored compactly and read back through its codec (access-token-issued-storage.ts), which also
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
