import { allEvents, installCode, oauthFixture, type OAuthFixture } from '../support/oauth-fixtures';
import { createAccount, createUser, startTestApp, type TestApp } from '../support/test-app';

/**
 * 1,000 trials of 20 concurrent redemptions of one authorization code, in one process (requests
 * interleave at every await of the token endpoint, as under real load): exactly one 200 per
 * code, every other answer HubSpot's 400 BAD_AUTH_CODE / invalid_grant, never a 5xx or a 409.
 */
jest.setTimeout(300_000);

describe('reliability: concurrent redemptions of one code', () => {
  let t: TestApp;
  let f: OAuthFixture;
  let hubs: number[];
  let userId: number;

  beforeAll(async () => {
    t = await startTestApp();
    f = await oauthFixture(t);
    // Codes from several accounts, so the trials also race on different install streams.
    hubs = [f.hubId, (await createAccount(t)).hubId, (await createAccount(t)).hubId];
    userId = (await createUser(t, { hubIds: hubs })).userId;
  });
  afterAll(() => t.close());

  const redeem = (code: string) =>
    t.inject({
      method: 'POST',
      url: '/oauth/v1/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: f.clientId,
        client_secret: f.clientSecret,
        redirect_uri: f.redirectUri,
        code,
      }).toString(),
    });

  it('1,000 trials × 20 redemptions: exactly one success each time', async () => {
    const TRIALS = 1000;
    const RACERS = 20;
    const failures: string[] = [];
    const winners = new Set<string>();
    for (let trial = 0; trial < TRIALS; trial++) {
      const { code } = await installCode(t, { ...f, hubId: hubs[trial % hubs.length]!, userId });
      const answers = await Promise.all(Array.from({ length: RACERS }, () => redeem(code)));
      const ok = answers.filter((r) => r.statusCode === 200);
      if (ok.length !== 1) failures.push(`trial ${trial}: ${ok.length} successes`);
      for (const r of answers) {
        if (r.statusCode === 200) {
          winners.add(r.json().refresh_token);
          continue;
        }
        const body = r.json() as Record<string, unknown>;
        if (r.statusCode !== 400 || body.status !== 'BAD_AUTH_CODE' || body.error !== 'invalid_grant') {
          failures.push(`trial ${trial}: ${r.statusCode} ${r.body.slice(0, 200)}`);
        }
        if (typeof body.correlationId !== 'string') failures.push(`trial ${trial}: no correlationId`);
      }
      if (failures.length > 10) break; // enough to see what is wrong
    }
    expect(failures).toEqual([]);
    expect(winners.size).toBe(TRIALS);

    // The audit trail agrees: each code redeemed once, one refresh token issued per code.
    const events = await allEvents(t);
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count('oauth.AuthorizationCodeIssued')).toBe(TRIALS);
    expect(count('oauth.AuthorizationCodeRedeemed')).toBe(TRIALS);
    // Losers may have written a refresh token before losing; none of those is left usable.
    const issued = events.filter((e) => e.type === 'oauth.RefreshTokenIssued');
    const notDelivered = new Set(
      events
        .filter(
          (e) => e.type === 'oauth.RefreshTokenDeleted' && (e.data as { reason: string }).reason === 'not_delivered',
        )
        .map((e) => (e.data as { refreshTokenHash: string }).refreshTokenHash),
    );
    expect(issued.length - notDelivered.size).toBe(TRIALS);
  });
});
