import {
  AccessTokenRevocations,
  accessTokenExpiredError,
  AccessTokenVerifier,
} from '../../src/oauth/application/access-token-verifier';
import { encodeAccessToken } from '../../src/oauth/domain/access-token';
import {
  type InstallClockAdvanced,
  installClockDecider,
  InstallClockEventType,
  type InstallClockReset,
  MAX_INSTALL_CLOCK_OFFSET_SECONDS,
} from '../../src/oauth/domain/install-clock';
import { parseAdvance } from '../../src/oauth/http/install-clock.controller';
import { ManualClock, InstallClocks } from '../../src/platform/clock';
import type { SigningKeyring } from '../../src/oauth/domain/access-token';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { DeciderSpecification } from '../support/decider-specification';

const advanced = (advanceSeconds: number, offsetSeconds: number, advancedAt = 1_000): InstallClockAdvanced => ({
  type: InstallClockEventType.InstallClockAdvanced,
  data: { appId: 7, hubId: 70, advanceSeconds, offsetSeconds, advancedAt },
});
const reset = (offsetSeconds: number, resetAt = 2_000): InstallClockReset => ({
  type: InstallClockEventType.InstallClockReset,
  data: { appId: 7, hubId: 70, offsetSeconds, resetAt },
});
const advance = (advanceSeconds: number, now = 1_000) =>
  ({ type: 'AdvanceInstallClock', appId: 7, hubId: 70, advanceSeconds, now }) as const;
const resetCmd = { type: 'ResetInstallClock', appId: 7, hubId: 70, now: 2_000 } as const;
const badRequest = (e: HubSpotError) => e.httpStatus === 400 && e.category === 'VALIDATION_ERROR';

describe('installClockDecider', () => {
  const spec = DeciderSpecification.for(installClockDecider);

  it('advancing records the step and the whole offset, cumulatively', () => {
    spec
      .given([])
      .when(advance(1801))
      .then([advanced(1801, 1801)]);
    spec
      .given([advanced(1801, 1801)])
      .when(advance(60, 5_000))
      .then([advanced(60, 1861, 5_000)]);
    spec
      .given([advanced(1801, 1801), reset(1801)])
      .when(advance(5))
      .thenState((s) => expect(s.offsetSeconds).toBe(5));
  });

  it('advancing by 0 records nothing', () => {
    spec
      .given([advanced(10, 10)])
      .when(advance(0))
      .thenNothing();
  });

  it('refuses a negative, fractional or unsafe step, and a whole offset past ten years', () => {
    for (const n of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2])
      spec.given([]).when(advance(n)).thenThrows(badRequest);
    spec
      .given([])
      .when(advance(MAX_INSTALL_CLOCK_OFFSET_SECONDS))
      .then([advanced(MAX_INSTALL_CLOCK_OFFSET_SECONDS, MAX_INSTALL_CLOCK_OFFSET_SECONDS)]);
    spec
      .given([advanced(10, 10)])
      .when(advance(MAX_INSTALL_CLOCK_OFFSET_SECONDS - 9))
      .thenThrows(badRequest);
    expect(MAX_INSTALL_CLOCK_OFFSET_SECONDS).toBe(315_360_000);
  });

  it('resetting drops the offset it names; nothing when already on real time', () => {
    spec
      .given([advanced(1801, 1801)])
      .when(resetCmd)
      .then([reset(1801)]);
    spec
      .given([advanced(1801, 1801)])
      .when(resetCmd)
      .thenState((s) => expect(s.offsetSeconds).toBe(0));
    spec.given([]).when(resetCmd).thenNothing();
    spec
      .given([advanced(3, 3), reset(3)])
      .when(resetCmd)
      .thenNothing();
  });
});

describe('parseAdvance', () => {
  it('accepts {"advanceSeconds": N} with N a whole number from 0 to ten years', () => {
    expect(parseAdvance({ advanceSeconds: 1801 })).toEqual({ ok: true, advanceSeconds: 1801 });
    expect(parseAdvance({ advanceSeconds: 0 })).toEqual({ ok: true, advanceSeconds: 0 });
    expect(parseAdvance({ advanceSeconds: MAX_INSTALL_CLOCK_OFFSET_SECONDS })).toMatchObject({ ok: true });
  });

  it.each([
    ['missing', {}, ['advanceSeconds']],
    ['negative', { advanceSeconds: -1 }, ['advanceSeconds']],
    ['fractional', { advanceSeconds: 1.5 }, ['advanceSeconds']],
    ['a string', { advanceSeconds: '60' }, ['advanceSeconds']],
    ['null', { advanceSeconds: null }, ['advanceSeconds']],
    ['huge', { advanceSeconds: MAX_INSTALL_CLOCK_OFFSET_SECONDS + 1 }, ['advanceSeconds']],
    ['1e300', { advanceSeconds: 1e300 }, ['advanceSeconds']],
    ['an extra key', { advanceSeconds: 5, seconds: 5 }, ['seconds']],
    ['not an object', [1], ['body']],
    ['null body', null, ['body']],
    ['a number body', 60, ['body']],
  ])('refuses %s, naming the field', (_, body, fields) => {
    const r = parseAdvance(body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.in)).toEqual(fields);
  });
});

describe('InstallClocks', () => {
  it('adds an install’s offset to the clock; other installs and app tokens (hub 0) stay on real time', () => {
    const clock = new ManualClock(1_000_000);
    const clocks = new InstallClocks(clock);
    expect(clocks.nowFor(7, 70)).toBe(1_000_000);
    clocks.set(7, 70, 1_801_000);
    expect(clocks.nowFor(7, 70)).toBe(2_801_000);
    expect(clocks.nowFor(7, 71)).toBe(1_000_000);
    expect(clocks.nowFor(8, 70)).toBe(1_000_000);
    expect(clocks.nowFor(7, 0)).toBe(1_000_000);
    clock.advance(5);
    expect(clocks.nowFor(7, 70)).toBe(2_801_005);
    expect(clocks.size).toBe(1);
    clocks.set(7, 70, 60_000);
    expect(clocks.size).toBe(1);
    clocks.remove(7, 70);
    clocks.remove(7, 70);
    expect([clocks.size, clocks.nowFor(7, 70)]).toEqual([0, 1_000_005]);
    clocks.set(7, 70, 1);
    clocks.set(7, 70, 0);
    expect(clocks.size).toBe(0);
  });

  it('furthestFor: the install’s time, or the furthest it reached before a reset', () => {
    const clock = new ManualClock(1_000_000);
    const clocks = new InstallClocks(clock);
    expect(clocks.furthestFor(7, 70)).toBe(1_000_000);
    clocks.set(7, 70, 60_000);
    expect(clocks.furthestFor(7, 70)).toBe(1_060_000);
    clocks.remove(7, 70);
    clocks.reachedBeforeReset(7, 70, 1_060_000);
    clocks.reachedBeforeReset(7, 70, 1_010_000);
    expect([clocks.nowFor(7, 70), clocks.furthestFor(7, 70), clocks.furthestFor(7, 71)]).toEqual([
      1_000_000, 1_060_000, 1_000_000,
    ]);
    clock.advance(100_000);
    expect(clocks.furthestFor(7, 70)).toBe(1_100_000);
    clocks.clear();
    clock.advance(-100_000);
    expect(clocks.furthestFor(7, 70)).toBe(1_000_000);
  });

  it('AccessTokenVerifier judges a token by its own install’s clock, and says how long ago by the same time', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const clocks = new InstallClocks(clock);
    const keys = { active: { kid: 'k1', secret: Buffer.alloc(32, 1) }, secretFor: () => Buffer.alloc(32, 1) };
    const verifier = new AccessTokenVerifier(
      keys as unknown as SigningKeyring,
      clocks,
      new AccessTokenRevocations(clock),
    );
    const base = {
      userId: 3,
      installingUserId: 3,
      hublet: 'na1',
      scopes: ['oauth'],
      issuedAt: clock.now(),
      expiresAt: clock.now() + 1_800_000,
    };
    const mine = encodeAccessToken({ ...base, appId: 7, hubId: 70 }, keys).token;
    const other = encodeAccessToken({ ...base, appId: 7, hubId: 71 }, keys).token;
    clocks.set(7, 70, 1_801_000);
    const expired = verifier.check(mine);
    expect(expired).toMatchObject({ status: 'expired', expiredAt: base.expiresAt, now: clock.now() + 1_801_000 });
    if (expired.status !== 'expired') throw new Error('expected expired');
    expect(accessTokenExpiredError(expired.expiredAt, expired.now, 'api-call').message).toBe(
      'The OAuth token used to make this call expired 1 minute(s) ago.',
    );
    expect(verifier.check(other)).toMatchObject({ status: 'active', now: clock.now() });
    clocks.remove(7, 70);
    expect(verifier.check(mine)).toMatchObject({ status: 'active' });
  });

  it('a reset starts a new era: a token of an earlier one expires as much earlier as the resets since dropped (issue 41, item 4)', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const clocks = new InstallClocks(clock);
    const keys = { active: { kid: 'k1', secret: Buffer.alloc(32, 1) }, secretFor: () => Buffer.alloc(32, 1) };
    const verifier = new AccessTokenRevocations(clock);
    const check = new AccessTokenVerifier(keys as unknown as SigningKeyring, clocks, verifier);
    const token = (issuedAt: number, clockEpoch: number) =>
      encodeAccessToken(
        {
          appId: 7,
          hubId: 70,
          userId: 3,
          installingUserId: 3,
          appInstallId: 'aaaaaaaaaaaaaaaa',
          grantId: 'bbbbbbbbbbbbbbbb',
          clockEpoch,
          hublet: 'na1',
          scopes: ['oauth'],
          issuedAt,
          expiresAt: issuedAt + 1_800_000,
        },
        keys,
      ).token;
    const real = clock.now();
    clocks.set(7, 70, 3_600_000);
    const ahead = token(real + 3_600_000, 0); // issued an hour ahead, in era 0
    expect(clocks.epochOf(7, 70)).toBe(0);
    // Reset: era 1, the hour dropped. The token issued ahead has 30 minutes left, in real time.
    clocks.remove(7, 70);
    clocks.resetInto(7, 70, { epoch: 1, resetAt: real, droppedBeforeMs: 0, droppedTotalMs: 3_600_000 });
    expect(clocks.epochOf(7, 70)).toBe(1);
    expect(clocks.droppedSinceMs(7, 70, 0)).toBe(3_600_000);
    expect(clocks.droppedSinceMs(7, 70, 1)).toBe(0);
    expect(check.check(ahead)).toMatchObject({ status: 'active', claims: { expiresAt: real + 1_800_000 } });
    clock.advance(1_800_000);
    expect(check.check(ahead)).toMatchObject({ status: 'expired', expiredAt: real + 1_800_000 });
    // Era 2 after 10 minutes ahead: an era-1 token loses those 10 minutes, an era-0 one both drops.
    clocks.resetInto(7, 70, { epoch: 2, resetAt: clock.now(), droppedBeforeMs: 3_600_000, droppedTotalMs: 4_200_000 });
    expect(clocks.droppedSinceMs(7, 70, 1)).toBe(600_000);
    expect(clocks.droppedSinceMs(7, 70, 0)).toBe(4_200_000);
    const eraOne = token(clock.now() - 60_000, 1);
    expect(check.check(eraOne)).toMatchObject({ status: 'active', claims: { expiresAt: clock.now() + 1_140_000 } });
    // A day on, the resets are forgotten one by one: an old era's token counts every drop (it is long dead anyway).
    clock.advance(24 * 3_600_000);
    clocks.rememberReset(7, 70, 3, clock.now(), 4_200_000);
    expect(clocks.droppedSinceMs(7, 70, 1)).toBe(4_200_000);
  });
});
