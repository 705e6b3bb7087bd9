import { randomBytes } from 'node:crypto';
import {
  AccessTokenClaims,
  encodeAccessToken,
  MAX_ACCESS_TOKEN_LENGTH,
  verifyAccessToken,
} from '../../src/oauth/domain/access-token';
import { accessTokenInfo } from '../../src/oauth/application/access-token-verifier';
import { decodeScopes, SCOPES } from '../../src/platform/scopes/scope-catalog';

const key = { kid: 'k1', secret: randomBytes(32) };
const keys = { active: key, secretFor: (kid: string) => (kid === key.kid ? key.secret : undefined) };
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

const claims = (over: Partial<AccessTokenClaims> = {}): Omit<AccessTokenClaims, 'tokenId'> => ({
  hubId: 2_147_483_647,
  userId: 2_147_483_647,
  appId: 2_147_483_647,
  installingUserId: 2_147_483_647,
  appInstallId: 'ffffffffffffffff',
  hublet: 'eu1',
  issuedAt: T0,
  expiresAt: T0 + 1_800_000,
  scopes: [...SCOPES],
  ...over,
});

describe('access tokens', () => {
  it(`stay within ${MAX_ACCESS_TOKEN_LENGTH} characters with every scope of the catalog and the largest ids`, () => {
    const { token } = encodeAccessToken(claims(), keys);
    expect(token.length).toBeLessThanOrEqual(MAX_ACCESS_TOKEN_LENGTH);
    const v = verifyAccessToken(token, keys, T0);
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.claims.scopes).toEqual([...SCOPES]);
  });

  it('mark app tokens (client_credentials) in the token itself; an install token is never one', () => {
    const app = { ...claims({ hubId: 0, userId: 0, installingUserId: 0, scopes: [] }), appToken: true as const };
    delete (app as Partial<AccessTokenClaims>).appInstallId;
    const { token, tokenId } = encodeAccessToken(app, keys);
    expect(verifyAccessToken(token, keys, T0)).toEqual({ ok: true, claims: { ...app, tokenId } });
    const install = verifyAccessToken(encodeAccessToken(claims(), keys).token, keys, T0);
    expect(install.ok && install.claims.appToken).toBe(undefined);
    expect(() => encodeAccessToken({ ...claims(), appToken: true }, keys)).toThrow(/no install/);
  });

  it('carry the grant id (format 4) within the 512 characters, with every scope and the largest ids', () => {
    const withGrant = claims({ grantId: 'abcdefabcdef0123' });
    const { token, tokenId } = encodeAccessToken(withGrant, keys);
    expect(token.length).toBeLessThanOrEqual(MAX_ACCESS_TOKEN_LENGTH);
    expect(verifyAccessToken(token, keys, T0)).toEqual({ ok: true, claims: { ...withGrant, tokenId } });
    const { appInstallId: _omit, ...noInstall } = withGrant;
    expect(() => encodeAccessToken(noInstall, keys)).toThrow(/grantId/);
    // And the era of the install's clock (issue 41, item 4).
    const inEra = claims({ grantId: 'abcdefabcdef0123', clockEpoch: 300 });
    const era = encodeAccessToken(inEra, keys);
    expect(era.token.length).toBeLessThanOrEqual(MAX_ACCESS_TOKEN_LENGTH);
    expect(verifyAccessToken(era.token, keys, T0)).toEqual({ ok: true, claims: { ...inEra, tokenId: era.tokenId } });
    expect(() => encodeAccessToken(claims({ clockEpoch: 1 }), keys)).toThrow(/clockEpoch/);
  });

  it('round-trip every claim, including the install id', () => {
    const { token, tokenId } = encodeAccessToken(claims({ scopes: ['oauth', 'tickets'], hubId: 42 }), keys);
    const v = verifyAccessToken(token, keys, T0 + 1);
    expect(v).toEqual({ ok: true, claims: { ...claims({ scopes: ['oauth', 'tickets'], hubId: 42 }), tokenId } });
  });

  it('still decode tokens without an install id (format 1)', () => {
    const { appInstallId: _omit, ...rest } = claims({ scopes: ['oauth'] });
    const { token } = encodeAccessToken(rest, keys);
    const v = verifyAccessToken(token, keys, T0);
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.claims.appInstallId).toBeUndefined();
  });

  it('refuse tampered payloads, unknown keys, garbage and expired tokens', () => {
    const { token } = encodeAccessToken(claims({ scopes: ['oauth'] }), keys);
    const [kid, payload, sig] = token.split('.') as [string, string, string];
    const flipped = payload.slice(0, -2) + (payload.at(-2) === 'A' ? 'B' : 'A') + payload.at(-1);
    expect(verifyAccessToken(`${kid}.${flipped}.${sig}`, keys, T0)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyAccessToken(`k2.${payload}.${sig}`, keys, T0)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(verifyAccessToken('not-a-token', keys, T0)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyAccessToken(`${token}.x`, keys, T0)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyAccessToken('a'.repeat(600), keys, T0)).toEqual({ ok: false, reason: 'malformed' });
    const expired = verifyAccessToken(token, keys, T0 + 1_800_000);
    expect(expired.ok).toBe(false);
    if (!expired.ok) expect(expired.reason).toBe('expired');
  });

  it('metadata: all 17 SignedAccessToken fields, scopes as an encoded bitset, remaining expires_in', () => {
    const c = claims({ scopes: ['oauth', 'crm.objects.contacts.read'] });
    const { token } = encodeAccessToken(c, keys);
    const v = verifyAccessToken(token, keys, T0);
    if (!v.ok) throw new Error('expected ok');
    const info = accessTokenInfo({
      token,
      claims: v.claims,
      now: T0 + 60_500,
      userEmail: 'a@b.c',
      hubDomain: 'x.example.com',
      audience: 'http://127.0.0.1',
    });
    expect(Object.keys(info.signed_access_token).sort()).toHaveLength(17);
    expect(info.expires_in).toBe(1739);
    expect(info.token_type).toBe('access');
    expect(decodeScopes(Buffer.from(info.signed_access_token.scopes, 'base64'))).toEqual([
      'oauth',
      'crm.objects.contacts.read',
    ]);
    expect(info.signed_access_token.signature).toBe(token.split('.')[2]);
    expect(info.signed_access_token.appInstallId).toBe('ffffffffffffffff');
    expect(info.signed_access_token.expiresAt).toBe(T0 + 1_800_000);
  });
});
