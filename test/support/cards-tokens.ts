import { SigningKeyring, encodeAccessToken } from '../../src/oauth/domain/access-token';
import type { TestApp } from './test-app';

/**
 * Bearer tokens for the cards tests, signed with the app's own keyring (what the OAuth token
 * endpoint issues), so the real bearer authentication verifies them.
 */
export function mintCardsToken(
  t: TestApp,
  claims: { hubId: number; appId: number; userId?: number; scopes?: string[]; ttlMs?: number },
): string {
  const now = t.clock.now();
  return encodeAccessToken(
    {
      hubId: claims.hubId,
      userId: claims.userId ?? 1,
      appId: claims.appId,
      installingUserId: claims.userId ?? 1,
      hublet: 'na1',
      issuedAt: now,
      expiresAt: now + (claims.ttlMs ?? 1_800_000),
      scopes: claims.scopes ?? ['oauth', 'developers-read', 'developers-write'],
    },
    t.app.get(SigningKeyring),
  ).token;
}
