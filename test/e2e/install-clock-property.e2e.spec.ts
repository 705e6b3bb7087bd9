import fc from 'fast-check';
import { MAX_INSTALL_CLOCK_OFFSET_SECONDS } from '../../src/oauth/domain/install-clock';
import { installAndExchange, oauthFixture, type OAuthFixture, refresh } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

// Each run drives a whole install through up to 14 steps over HTTP; shrinking a failure runs more.
jest.setTimeout(180_000);

/**
 * Issue 41, item 4: an install-clock reset left 10-year tokens (advance, expire-access-tokens,
 * DELETE …/clock: every later refresh minted an access token expiring in 2036 while `expires_in` said
 * 1800), and a reset brought back tokens that the advance had expired.
 *
 * The property, over sequences of advance / real time passing / expire / reset / refresh / uninstall
 * (with a re-install and code exchange after it): no access token outlives `expires_in` from its issue
 * on the clock that issued it. That clock is the install's, which an advance moves forward and a reset
 * takes back to real time; time that passed on it stays passed, so a token's age is the real time since
 * its issue plus every advance since. The model is exact both ways: at every step each token issued so
 * far works at the bearer guard exactly while its age is under 1800 s and neither an expire nor an
 * uninstall came after it. Every new token states `expires_in: 1800`, and the expiry it carries is at
 * most 1800 s after the install's time at its issue. Seeded: the same sequences every run.
 */
const CRM = '/crm/v3/limits/calculated-properties';
const SCOPES = { requiredScopes: ['oauth', 'crm.objects.deals.read'], optionalScopes: [] };
const TTL_MS = 1_800_000;

type Step =
  | { kind: 'advance'; seconds: number }
  | { kind: 'wait'; seconds: number }
  | { kind: 'expire' }
  | { kind: 'reset' }
  | { kind: 'refresh' }
  | { kind: 'uninstall' };

const SECONDS = [1, 59, 600, 1799, 1800, 1801] as const;
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('advance' as const),
    seconds: fc.constantFrom(...SECONDS, 86_400, MAX_INSTALL_CLOCK_OFFSET_SECONDS - 86_400),
  }),
  fc.record({ kind: fc.constant('wait' as const), seconds: fc.constantFrom(...SECONDS) }),
  fc.constant({ kind: 'expire' as const }),
  fc.constant({ kind: 'reset' as const }),
  fc.constant({ kind: 'refresh' as const }),
  fc.constant({ kind: 'uninstall' as const }),
);

interface IssuedToken {
  token: string;
  /** The install's never-reset time at issue: real time plus every advance so far. */
  agedFrom: number;
  expiresBefore: number;
  install: number;
}

describe('an install’s clock: no token outlives its expires_in (property, issue 41 item 4)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 30_000);
  afterAll(() => t.close());

  const clockUrl = (f: OAuthFixture) => `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/clock`;
  const works = async (token: string) => {
    const r = await t.inject({ method: 'GET', url: CRM, headers: { authorization: `Bearer ${token}` } });
    if (r.statusCode !== 200 && r.statusCode !== 401) throw new Error(`CRM call: ${r.statusCode} ${r.body}`);
    return r.statusCode === 200;
  };

  it('holds for seeded sequences of advance / wait / expire / reset / refresh / uninstall', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const f = await oauthFixture(t, SCOPES);
        let offsetMs = 0; // the install's clock ahead of real time now
        let advancedMs = 0; // every advance so far (a reset does not take them back)
        let expires = 0;
        let install = 0;
        const tokens: IssuedToken[] = [];
        const issued = async (response: { access_token: string; expires_in: number }) => {
          expect(response.expires_in).toBe(1800);
          const info = await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${response.access_token}` });
          expect(info.statusCode).toBe(200);
          // The expiry it carries: at most its stated lifetime after the install's time now.
          expect(info.json().signed_access_token.expiresAt).toBeLessThanOrEqual(t.clock.now() + offsetMs + TTL_MS);
          tokens.push({
            token: response.access_token,
            agedFrom: t.clock.now() + advancedMs,
            expiresBefore: expires,
            install,
          });
        };
        let refreshToken = '';
        const exchange = async () => {
          const body = await installAndExchange(t, f);
          refreshToken = body.refresh_token;
          await issued(body);
        };
        await exchange();

        for (const s of steps) {
          switch (s.kind) {
            case 'advance': {
              if (offsetMs / 1000 + s.seconds > MAX_INSTALL_CLOCK_OFFSET_SECONDS) continue;
              const r = await t.admin('POST', clockUrl(f), { advanceSeconds: s.seconds });
              expect([r.statusCode, r.body]).toEqual([200, expect.any(String)]);
              offsetMs += s.seconds * 1000;
              advancedMs += s.seconds * 1000;
              break;
            }
            case 'wait':
              t.clock.advance(s.seconds * 1000);
              break;
            case 'expire': {
              const r = await t.admin('POST', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/expire-access-tokens`);
              expect([r.statusCode, r.body]).toEqual([200, expect.any(String)]);
              expires++;
              break;
            }
            case 'reset':
              expect((await t.admin('DELETE', clockUrl(f))).statusCode).toBe(204);
              offsetMs = 0;
              break;
            case 'refresh': {
              const r = await refresh(t, f, refreshToken);
              expect([r.statusCode, r.body]).toEqual([200, expect.any(String)]);
              await issued(r.json());
              break;
            }
            case 'uninstall':
              expect((await t.admin('DELETE', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}`)).statusCode).toBe(
                204,
              );
              install++;
              await exchange();
              break;
          }
          const agedNow = t.clock.now() + advancedMs;
          for (const token of tokens) {
            const alive =
              agedNow - token.agedFrom < TTL_MS && token.expiresBefore === expires && token.install === install;
            expect({ after: s, issuedAt: tokens.indexOf(token), works: await works(token.token) }).toEqual({
              after: s,
              issuedAt: tokens.indexOf(token),
              works: alive,
            });
          }
        }
      }),
      { seed: 41, numRuns: 40 },
    );
  });
});
