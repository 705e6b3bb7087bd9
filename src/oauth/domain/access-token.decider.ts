import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { AccessTokenEvent, AccessTokenIssued, OAuthEventType } from './oauth-events';
import type { RefreshGrant } from './refresh-token.decider';

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
  kind: 'IssueAccessToken';
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
  kind: 'IssueAppAccessToken';
  appId: number;
  clientId: string;
  tokenId: string;
  issuedAt: number;
  expiresAt: number;
}

/** RFC 7009 revocation by the token's own client (ownership checked by the caller). */
export interface RevokeAccessTokenCommand {
  kind: 'RevokeAccessToken';
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
    switch (command.kind) {
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
