import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { AuthorizationCodeEvent, AuthorizationCodeIssued, OAuthEventType } from './oauth-events';
import { oauthError } from './oauth-errors';
import { verifierMatches } from './pkce';

export type CodeGrant = AuthorizationCodeIssued['data'];

export type AuthorizationCodeState =
  | { status: 'unknown' }
  | { status: 'issued'; grant: CodeGrant }
  | { status: 'redeemed'; grant: CodeGrant; refreshTokenHash: string };

export type AuthorizationCodeCommand =
  | { type: 'IssueAuthorizationCode'; grant: CodeGrant }
  | {
      type: 'RedeemAuthorizationCode';
      /** The authenticated client. */
      clientId: string;
      redirectUri: string;
      codeVerifier: string | undefined;
      /** Hash of the refresh token this redemption hands out. */
      refreshTokenHash: string;
      now: number;
    };

/**
 * Refusal of a code that was already redeemed. RFC 6749 §4.1.2: the authorization server
 * SHOULD revoke the tokens issued from it, so the caller deletes `refreshTokenHash` before answering.
 */
export class AuthorizationCodeReplayed extends HubSpotError {
  constructor(
    readonly refreshTokenHash: string,
    readonly grant: CodeGrant,
  ) {
    const e = oauthError('BAD_AUTH_CODE', 'invalid_grant', 'missing or unknown auth code');
    super(e.httpStatus, e.category, e.message, e.extras);
  }
}

const unknownCode = () => oauthError('BAD_AUTH_CODE', 'invalid_grant', 'missing or unknown auth code');

export const authorizationCodeDecider: Decider<
  AuthorizationCodeState,
  AuthorizationCodeCommand,
  AuthorizationCodeEvent
> = {
  initialState: () => ({ status: 'unknown' }),

  evolve: (state, event) => {
    switch (event.type) {
      case OAuthEventType.AuthorizationCodeIssued:
        return { status: 'issued', grant: event.data };
      case OAuthEventType.AuthorizationCodeRedeemed:
        return state.status === 'unknown'
          ? state
          : { status: 'redeemed', grant: state.grant, refreshTokenHash: event.data.refreshTokenHash };
      default:
        return state;
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'IssueAuthorizationCode':
        // 256 random bits never collide; if they did, refusing beats handing out a shared code.
        if (state.status !== 'unknown') throw HubSpotError.conflict('authorization code collision; retry');
        return [{ type: OAuthEventType.AuthorizationCodeIssued, data: command.grant }];

      case 'RedeemAuthorizationCode': {
        if (state.status === 'unknown') throw unknownCode();
        // A code bound to another client is unknown to this one; the attempt has no effect on it.
        if (state.grant.clientId !== command.clientId) throw unknownCode();
        if (state.status === 'redeemed') throw new AuthorizationCodeReplayed(state.refreshTokenHash, state.grant);
        if (command.now >= state.grant.expiresAt) {
          throw oauthError('EXPIRED_AUTH_CODE', 'invalid_grant', 'auth code is expired');
        }
        if (command.redirectUri !== state.grant.redirectUri) {
          throw oauthError(
            'MISMATCH_REDIRECT_URI_AUTH_CODE',
            'invalid_grant',
            'redirect URI does not match initial auth code URL',
          );
        }
        checkPkce(state.grant.codeChallenge, command.codeVerifier);
        return [
          {
            type: OAuthEventType.AuthorizationCodeRedeemed,
            data: {
              codeHash: state.grant.codeHash,
              refreshTokenHash: command.refreshTokenHash,
              redeemedAt: command.now,
            },
          },
        ];
      }
    }
  },
};

/**
 * RFC 7636 §4.6 with OAuth 2.1's downgrade rule: a challenge needs a matching verifier, and a
 * verifier without a challenge is refused too (it means the client expected PKCE and did not get it).
 */
function checkPkce(challenge: string | null, verifier: string | undefined): void {
  if (challenge === null) {
    if (verifier !== undefined) {
      throw oauthError(
        'BAD_CODE_VERIFIER',
        'invalid_grant',
        'code_verifier was sent but the auth code was issued without a code_challenge',
      );
    }
    return;
  }
  if (verifier === undefined || verifier === '') {
    throw oauthError(
      'BAD_CODE_VERIFIER',
      'invalid_grant',
      'code_verifier is required: the auth code was issued with a code_challenge',
    );
  }
  if (!verifierMatches(verifier, challenge)) {
    throw oauthError('BAD_CODE_VERIFIER', 'invalid_grant', 'code_verifier does not match the code_challenge');
  }
}
