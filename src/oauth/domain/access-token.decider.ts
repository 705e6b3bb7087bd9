import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { AccessTokenIssued, OAuthEventType } from './oauth-events';
import type { RefreshGrant } from './refresh-token.decider';

/** One access token's stream: written once, when the token is issued. */
export type AccessTokenState = { status: 'unknown' } | { status: 'issued'; tokenId: string };

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

/**
 * Both grants of the token endpoint end here: an access token issued from a refresh token. The
 * token itself is self-contained; the event is the audit record of its issue (no token material).
 */
export const accessTokenDecider: Decider<AccessTokenState, IssueAccessTokenCommand, AccessTokenIssued> = {
  initialState: () => ({ status: 'unknown' }),

  evolve: (_state, event) => ({ status: 'issued', tokenId: event.data.tokenId }),

  decide: (command, state) => {
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
  },
};
