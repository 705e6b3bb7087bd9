import { SigningKeyring, encodeAccessToken } from '../../src/oauth/domain/access-token';
import type { TestApp } from './test-app';

/**
 * Bearer tokens for the limits tests, signed with the app's own keyring (what the OAuth token
 * endpoint issues), so the real bearer authentication verifies them.
 */
export function mintLimitsToken(
  t: TestApp,
  claims: { hubId: number; userId?: number; appId?: number; scopes: string[]; hublet?: string; ttlMs?: number },
): string {
  const now = t.clock.now();
  return encodeAccessToken(
    {
      hubId: claims.hubId,
      userId: claims.userId ?? 1,
      appId: claims.appId ?? 1,
      installingUserId: claims.userId ?? 1,
      hublet: claims.hublet ?? 'na1',
      issuedAt: now,
      expiresAt: now + (claims.ttlMs ?? 1_800_000),
      scopes: claims.scopes,
    },
    t.app.get(SigningKeyring),
  ).token;
}

/** Everything the limits endpoints and the properties and schemas APIs may ask for. */
export const LIMITS_TEST_SCOPES = [
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.schemas.companies.read',
  'crm.schemas.companies.write',
  'crm.schemas.deals.read',
  'crm.schemas.deals.write',
  'crm.schemas.tickets.read',
  'crm.schemas.tickets.write',
  'crm.schemas.custom.read',
  'crm.schemas.custom.write',
  'crm.objects.contacts.read',
  'crm.objects.custom.read',
];
