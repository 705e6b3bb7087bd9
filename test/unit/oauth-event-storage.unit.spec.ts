import type { RecordedEvent } from '../../src/platform/events/envelope';
import {
  accessTokenIssuedStorage,
  accessTokenStream,
  type AccessTokenIssued,
} from '../../src/oauth/domain/oauth-events';
import { accessTokenRetention, authorizationCodeRetention } from '../../src/oauth/domain/oauth-retention';

const issued: AccessTokenIssued['data'] = {
  tokenId: 'Ab-d_fGhIjK',
  grantType: 'refresh_token',
  refreshTokenHash: 'ab'.repeat(32),
  appId: 12345,
  hubId: 4000123,
  userId: 700123,
  installId: '0123456789abcdef',
  issuedAt: 1_763_830_000_000,
  expiresAt: 1_763_831_800_000,
};
const stream = accessTokenStream(issued.issuedAt, issued.tokenId);
const recorded = (data: unknown, streamId = stream): RecordedEvent => ({
  streamId,
  revision: 0,
  position: 1,
  type: 'oauth.AccessTokenIssued',
  data,
  metadata: { eventId: 'e', correlationId: 'c', causationId: null, actor: 'app:1', occurredAt: issued.issuedAt },
});

describe('oauth.AccessTokenIssued storage', () => {
  it('stores a third of the JSON and reads back exactly the decided event', () => {
    const stored = accessTokenIssuedStorage.encode(issued, stream);
    expect(Array.isArray(stored)).toBe(true);
    expect(JSON.stringify(stored).length).toBeLessThan(JSON.stringify(issued).length / 2.5);
    // Through JSON, as the store keeps it.
    expect(accessTokenIssuedStorage.decode(JSON.parse(JSON.stringify(stored)), recorded(stored))).toEqual(issued);
    const code = { ...issued, grantType: 'authorization_code' as const };
    expect(accessTokenIssuedStorage.decode(accessTokenIssuedStorage.encode(code, stream), recorded(null))).toEqual(
      code,
    );
  });

  it('reads the first stored shape (the object) as it is', () => {
    expect(accessTokenIssuedStorage.decode({ ...issued }, recorded(issued))).toEqual(issued);
  });

  it('keeps the object when the compact shape could not give it back exactly', () => {
    for (const [data, streamId] of [
      [issued, 'oauth.access-token-other'],
      [{ ...issued, issuedAt: issued.issuedAt + 1 }, stream],
      [{ ...issued, tokenId: 'other' }, stream],
      [{ ...issued, expiresAt: issued.expiresAt + 1 }, stream],
      [{ ...issued, installId: 'NOT-HEX' }, stream],
      [{ ...issued, refreshTokenHash: 'AB'.repeat(32) }, stream],
      [{ ...issued, extra: true }, stream],
    ] as const) {
      expect(accessTokenIssuedStorage.encode(data as AccessTokenIssued['data'], streamId)).toBe(data);
    }
  });
});

describe('OAuth retention rules', () => {
  const event = (type: string, data: unknown): RecordedEvent => ({ ...recorded(data), type });
  it('an access token ends at its expiry', () => {
    expect(accessTokenRetention.endedAt([event('oauth.AccessTokenIssued', issued)])).toBe(issued.expiresAt);
    expect(accessTokenRetention.endedAt([])).toBeNull();
  });
  it('a code ends at the later of its expiry and its redemption; none without its issue', () => {
    const code = event('oauth.AuthorizationCodeIssued', { expiresAt: 1000 });
    expect(authorizationCodeRetention.endedAt([code])).toBe(1000);
    expect(
      authorizationCodeRetention.endedAt([code, event('oauth.AuthorizationCodeRedeemed', { redeemedAt: 900 })]),
    ).toBe(1000);
    expect(
      authorizationCodeRetention.endedAt([code, event('oauth.AuthorizationCodeRedeemed', { redeemedAt: 1200 })]),
    ).toBe(1200);
    expect(authorizationCodeRetention.endedAt([])).toBeNull();
  });
});
