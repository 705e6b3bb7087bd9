import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { installIsActive, InstallState } from './install.decider';
import { OAuthEventType, RefreshTokenDeletionReason, RefreshTokenEvent, RefreshTokenIssued } from './oauth-events';
import { oauthError } from './oauth-errors';

export type RefreshGrant = RefreshTokenIssued['data'];

export type RefreshTokenState =
  | { status: 'unknown' }
  | { status: 'active'; grant: RefreshGrant }
  | { status: 'deleted'; grant: RefreshGrant; reason: RefreshTokenDeletionReason };

export type RefreshTokenCommand =
  | { type: 'IssueRefreshToken'; grant: RefreshGrant }
  | { type: 'DeleteRefreshToken'; reason: RefreshTokenDeletionReason; now: number };

export const refreshTokenDecider: Decider<RefreshTokenState, RefreshTokenCommand, RefreshTokenEvent> = {
  initialState: () => ({ status: 'unknown' }),

  evolve: (state, event) => {
    switch (event.type) {
      case OAuthEventType.RefreshTokenIssued:
        return { status: 'active', grant: event.data };
      case OAuthEventType.RefreshTokenDeleted:
        return state.status === 'unknown'
          ? state
          : { status: 'deleted', grant: state.grant, reason: event.data.reason };
      default:
        return state;
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'IssueRefreshToken':
        if (state.status !== 'unknown') throw HubSpotError.conflict('refresh token collision; retry');
        return [{ type: OAuthEventType.RefreshTokenIssued, data: command.grant }];
      case 'DeleteRefreshToken':
        if (state.status === 'unknown') throw refreshTokenNotFound();
        // Deleting twice is not an error: the token is gone either way, and nothing new happens.
        if (state.status === 'deleted') return [];
        return [
          {
            type: OAuthEventType.RefreshTokenDeleted,
            data: {
              refreshTokenHash: state.grant.refreshTokenHash,
              appId: state.grant.appId,
              hubId: state.grant.hubId,
              reason: command.reason,
              deletedAt: command.now,
            },
          },
        ];
    }
  },
};

export const refreshTokenNotFound = () =>
  new HubSpotError(404, 'OBJECT_NOT_FOUND', 'refresh token not found', { status: 'BAD_REFRESH_TOKEN' });

const badRefreshToken = () => oauthError('BAD_REFRESH_TOKEN', 'invalid_grant', 'missing or unknown refresh token');

/**
 * The refresh grant's rule: the token exists, is not deleted, belongs to the authenticated client,
 * and the install it was issued for is still the current one. Every refusal looks the same to the
 * caller, so a client learns nothing about tokens that are not its own. The grant carries at most
 * the install's current scopes: a re-approval with fewer scopes narrows the older refresh tokens.
 */
export function usableRefreshGrant(token: RefreshTokenState, install: InstallState, clientId: string): RefreshGrant {
  const grant = refreshGrantOrNull(token, install, clientId);
  if (grant === null) throw badRefreshToken();
  return grant;
}

/** The same rule for introspection, where a token that fails it is simply not active. */
export function refreshGrantOrNull(
  token: RefreshTokenState,
  install: InstallState,
  clientId: string,
): RefreshGrant | null {
  if (token.status !== 'active' || token.grant.clientId !== clientId) return null;
  if (!installIsActive(install, token.grant.installId)) return null;
  return { ...token.grant, scopes: scopesStillGranted(token.grant.scopes, install.scopes) };
}

/** The token's scopes the install still grants, in the token's order. */
export function scopesStillGranted(tokenScopes: readonly string[], installScopes: readonly string[]): string[] {
  const current = new Set(installScopes);
  return tokenScopes.filter((s) => current.has(s));
}
