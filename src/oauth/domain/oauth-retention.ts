import type { RecordedEvent } from '../../platform/events/envelope';
import type { RetentionRule } from '../../platform/archive/retention-rules';
import { OAuthEventType } from './oauth-events';

const latest = (values: number[]) => (values.length === 0 ? null : Math.max(...values));

/**
 * Access-token streams end when the token expires: the token is self-contained, no read model is
 * built from its issue, and past its expiry nothing can revoke it. (A revoked token's stream holds
 * an event the revocations read model applies, so the archiver keeps it live.)
 */
export const accessTokenRetention: RetentionRule = {
  streamPrefix: 'oauth.access-token-',
  endedAt: (events: readonly RecordedEvent[]) =>
    latest(
      events
        .filter((e) => e.type === OAuthEventType.AccessTokenIssued || e.type === OAuthEventType.AppAccessTokenIssued)
        .map((e) => (e.data as { expiresAt: number }).expiresAt),
    ),
};

/**
 * Authorization-code streams end once the code is redeemed and expired (an unredeemed one at its
 * expiry): after that every redemption is refused anyway. Refresh-token and install streams have
 * no end while the install lives and are never archived.
 */
export const authorizationCodeRetention: RetentionRule = {
  streamPrefix: 'oauth.auth-code-',
  endedAt: (events: readonly RecordedEvent[]) => {
    const issued = events.find((e) => e.type === OAuthEventType.AuthorizationCodeIssued);
    if (!issued) return null;
    const redeemed = events
      .filter((e) => e.type === OAuthEventType.AuthorizationCodeRedeemed)
      .map((e) => (e.data as { redeemedAt: number }).redeemedAt);
    return latest([(issued.data as { expiresAt: number }).expiresAt, ...redeemed]);
  },
};

export const oauthRetention: RetentionRule[] = [accessTokenRetention, authorizationCodeRetention];
