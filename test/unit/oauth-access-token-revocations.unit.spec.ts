import { InstallClocks } from '../../src/platform/clock';
import { ManualClock } from '../support/manual-clock';
import {
  accessTokenExpiredError,
  AccessTokenRevocations,
  AccessTokenVerifier,
  INSTALL_FLOOR_RETENTION_MS,
} from '../../src/oauth/application/access-token-verifier';
import { type AccessTokenClaims, encodeAccessToken } from '../../src/oauth/domain/access-token';
import type { SigningKeyring } from '../../src/oauth/domain/access-token';

const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

const claims = (over: Partial<AccessTokenClaims> = {}): AccessTokenClaims => ({
  tokenId: '0123456789abcdef',
  hubId: 9,
  userId: 3,
  appId: 7,
  installingUserId: 3,
  appInstallId: 'aaaaaaaaaaaaaaaa',
  hublet: 'na1',
  issuedAt: T0,
  expiresAt: T0 + 1_800_000,
  scopes: ['oauth'],
  ...over,
});

describe('AccessTokenRevocations (in memory, bounded by token expiry)', () => {
  it('revokes one token by id, leaving the install’s others alone', () => {
    const r = new AccessTokenRevocations(new ManualClock(T0));
    r.revokeToken('0123456789abcdef', T0 + 1_800_000);
    expect(r.verdict(claims())).toEqual({ status: 'revoked' });
    expect(r.verdict(claims({ tokenId: 'ffffffffffffffff' }))).toBeNull();
  });

  it('an uninstalled install stops every token of that install id, not of the next install', () => {
    const r = new AccessTokenRevocations(new ManualClock(T0));
    r.closeInstall('aaaaaaaaaaaaaaaa', T0);
    expect(r.verdict(claims({ issuedAt: T0 + 10_000 }))).toEqual({ status: 'revoked' });
    expect(r.verdict(claims({ appInstallId: 'bbbbbbbbbbbbbbbb' }))).toBeNull();
  });

  it('a replayed code’s grant stops every token issued from it, and no token of another grant or without one (issue 41, item 14)', () => {
    const clock = new ManualClock(T0);
    const r = new AccessTokenRevocations(clock);
    r.revokeGrant('1111111111111111', T0);
    expect(r.verdict(claims({ grantId: '1111111111111111' }))).toEqual({ status: 'revoked' });
    expect(
      r.verdict(claims({ grantId: '1111111111111111', tokenId: 'ffffffffffffffff', issuedAt: T0 + 60_000 })),
    ).toEqual({ status: 'revoked' });
    expect(r.verdict(claims({ grantId: '2222222222222222' }))).toBeNull();
    expect(r.verdict(claims())).toBeNull();
    // Kept as long as an install's floor: longer than any token lives, then forgotten.
    clock.advance(INSTALL_FLOOR_RETENTION_MS);
    r.revokeToken('eeeeeeeeeeeeeeee', clock.now() + 1000); // a later entry runs the sweep
    expect(r.verdict(claims({ grantId: '1111111111111111' }))).toBeNull();
  });

  // The issue-time floor ("the next ones start a second later") is the install stream's now:
  // test/unit/oauth-deciders.unit.spec.ts, 'install decider: expiring access tokens'.
  it('expired tokens: those issued in or before the second of the expiry; the next ones start a second later', () => {
    const r = new AccessTokenRevocations(new ManualClock(T0));
    r.expireInstallTokens('aaaaaaaaaaaaaaaa', T0 + 400);
    expect(r.verdict(claims({ issuedAt: T0 }))).toEqual({ status: 'expired', expiredAt: T0 + 400, epoch: 0 });
    expect(r.verdict(claims({ issuedAt: T0 - 60_000 }))).toEqual({ status: 'expired', expiredAt: T0 + 400, epoch: 0 });
    expect(r.verdict(claims({ issuedAt: T0 + 1000 }))).toBeNull();
    // An earlier expiry never moves the line back.
    r.expireInstallTokens('aaaaaaaaaaaaaaaa', T0 - 5000);
    expect(r.verdict(claims({ issuedAt: T0 + 1000 }))).toBeNull();
    expect(r.verdict(claims({ issuedAt: T0 }))).toEqual({ status: 'expired', expiredAt: T0 + 400, epoch: 0 });
  });

  it('after a reset of the install’s clock (a later era) an expiry stops every token of an earlier era, none of a later one (issue 41, item 4)', () => {
    const r = new AccessTokenRevocations(new ManualClock(T0));
    // Expired in era 0, ten years ahead; the clock was then reset (era 1) and tokens follow real time again.
    r.expireInstallTokens('aaaaaaaaaaaaaaaa', T0 + 315_000_000_000, 0);
    expect(r.verdict(claims({ issuedAt: T0 + 1000, clockEpoch: 1 }))).toBeNull();
    expect(r.verdict(claims({ issuedAt: T0 + 300_000_000_000 }))).toMatchObject({ status: 'expired', epoch: 0 });
    // Expired in era 1: era 0's tokens (issued before it) and era 1's up to that second; a later era 0 expiry changes nothing.
    r.expireInstallTokens('aaaaaaaaaaaaaaaa', T0 + 5000, 1);
    r.expireInstallTokens('aaaaaaaaaaaaaaaa', T0 + 316_000_000_000, 0);
    expect(r.verdict(claims({ issuedAt: T0 + 400_000_000_000 }))).toMatchObject({ status: 'expired', epoch: 1 });
    expect(r.verdict(claims({ issuedAt: T0 + 5000, clockEpoch: 1 }))).toMatchObject({ status: 'expired' });
    expect(r.verdict(claims({ issuedAt: T0 + 6000, clockEpoch: 1 }))).toBeNull();
    expect(r.verdict(claims({ issuedAt: T0, clockEpoch: 2 }))).toBeNull();
  });

  it('forgets entries once the tokens they stop have expired anyway', () => {
    const clock = new ManualClock(T0);
    const r = new AccessTokenRevocations(clock);
    r.revokeToken('0123456789abcdef', T0 + 1_800_000);
    r.closeInstall('aaaaaaaaaaaaaaaa', T0);
    r.expireInstallTokens('cccccccccccccccc', T0);
    r.revokeToken('already-expired', T0 - 1);
    expect(r.size).toBe(3);
    clock.advance(INSTALL_FLOOR_RETENTION_MS + 1);
    r.revokeToken('1111111111111111', clock.now() + 1000); // any insert may sweep
    expect(r.size).toBe(1);
  });
});

describe('AccessTokenVerifier (the one access-token check)', () => {
  const key = { kid: 'k1', secret: Buffer.alloc(32, 7) };
  const keys = { active: key, secretFor: (kid: string) => (kid === key.kid ? key.secret : undefined) };
  const setup = () => {
    const clock = new ManualClock(T0 + 60_000);
    const revocations = new AccessTokenRevocations(clock);
    const verifier = new AccessTokenVerifier(keys as unknown as SigningKeyring, new InstallClocks(clock), revocations);
    return { clock, revocations, verifier };
  };
  const { tokenId: _unused, ...rest } = claims();
  const signed = (over: Partial<AccessTokenClaims> = {}) => encodeAccessToken({ ...rest, ...over }, keys).token;

  it('says why a token does not work, with the claims and the time it was checked against', () => {
    const { clock, revocations, verifier } = setup();
    const token = signed();
    expect(verifier.check(token)).toMatchObject({ status: 'active', now: T0 + 60_000, claims: { hubId: 9 } });
    expect(verifier.check('not-a-token')).toEqual({ status: 'malformed' });
    expect(verifier.check(`k2${token.slice(2)}`)).toEqual({ status: 'bad_signature' });
    const otherLast = token.endsWith('A') ? 'B' : 'A';
    expect(verifier.check(`${token.slice(0, -1)}${otherLast}`)).toEqual({ status: 'bad_signature' });

    revocations.expireInstallTokens('aaaaaaaaaaaaaaaa', T0 + 30_000);
    expect(verifier.check(token)).toMatchObject({ status: 'expired', expiredAt: T0 + 30_000, now: T0 + 60_000 });
    revocations.closeInstall('aaaaaaaaaaaaaaaa', T0 + 40_000);
    expect(verifier.check(token)).toMatchObject({ status: 'revoked' });

    // Past its own expiry it is expired whatever else holds, with its own expiry.
    clock.advance(1_800_000);
    expect(verifier.check(token)).toMatchObject({ status: 'expired', expiredAt: T0 + 1_800_000 });
  });

  it('remembers only a verified signature: every later check still applies revocation and expiry', () => {
    const { clock, revocations, verifier } = setup();
    const token = signed();
    const first = verifier.check(token);
    expect(first).toMatchObject({ status: 'active' });
    // The claims are shared between checks of the same token: nothing may change them.
    if (first.status !== 'active') throw new Error('unreachable');
    expect(Object.isFrozen(first.claims) && Object.isFrozen(first.claims.scopes)).toBe(true);
    // A forged variant of a remembered token is verified on its own, not taken from the memo.
    expect(verifier.check(`${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`)).toEqual({
      status: 'bad_signature',
    });
    revocations.revokeToken(first.claims.tokenId, first.claims.expiresAt);
    expect(verifier.check(token)).toMatchObject({ status: 'revoked' });
    clock.advance(1_800_000);
    expect(verifier.check(token)).toMatchObject({ status: 'expired' });
  });

  it('writes HubSpot’s expired error in one place, for an API call and for the metadata endpoint', () => {
    const api = accessTokenExpiredError(T0, T0 + 150_000, 'api-call');
    expect([api.httpStatus, api.category, api.message]).toEqual([
      401,
      'EXPIRED_AUTHENTICATION',
      'The OAuth token used to make this call expired 2 minute(s) ago.',
    ]);
    expect(api.extras).toEqual({ context: { expiredAt: [new Date(T0).toISOString()] } });
    const metadata = accessTokenExpiredError(T0, T0 + 1, 'metadata');
    expect(metadata.message).toBe('The OAuth token used to make this call expired 1 minute(s) ago.');
    expect(metadata.extras).toEqual({ status: 'EXPIRED_ACCESS_TOKEN' });
  });
});
