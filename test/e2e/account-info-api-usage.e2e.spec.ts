import type { LightMyRequestResponse } from 'fastify';
import { mintCardsToken } from '../support/cards-tokens';
import { validateComponent, validateResponse } from '../support/limits-schema';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/**
 * GET /account-info/{v3,2026-03,2026-09}/api-usage/daily/private-apps: the account's calls today,
 * its day taken in its own time zone, counted by this service (every call made with an access
 * token for the account), shaped as accountInfo.json's CollectionResponseApiUsageNoPaging.
 */
const VERSIONS = ['v3', '2026-03', '2026-09'] as const;
const H = 3_600_000;

describe.each(VERSIONS)('GET /account-info/%s/api-usage/daily/private-apps', (v) => {
  let t: TestApp;
  const url = `/account-info/${v}/api-usage/daily/private-apps`;
  beforeAll(async () => {
    // 04:30 UTC: still the 21st in New York, already the 22nd in Berlin.
    t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'false' } });
    t.clock.set(Date.UTC(2026, 10, 22, 4, 30));
  }, 30_000);
  afterAll(() => t.close());

  const get = (token: string, path = url): Promise<LightMyRequestResponse> =>
    t.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
  const token = (hubId: number, scopes = ['oauth']) => mintCardsToken(t, { hubId, appId: 1, scopes });
  const crmCall = (hubId: number) =>
    get(token(hubId, ['crm.objects.contacts.read']), '/crm/v3/limits/calculated-properties');

  function usageOf(r: LightMyRequestResponse) {
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const body = r.json();
    expect(validateResponse(`${v}/accountInfo.json`, 'GET', url, body)).toEqual([]);
    expect(body.results).toHaveLength(1);
    return body.results[0] as {
      name: string;
      usageLimit: number;
      currentUsage: number;
      collectedAt: string;
      fetchStatus: string;
      resetsAt: string;
    };
  }

  it('counts the account’s calls of its own day and resets at its local midnight', async () => {
    const ny = await createAccount(t, { tier: 'professional' });
    expect(
      (await t.admin('PATCH', `/admin/v1/accounts/${ny.hubId}`, { timeZone: 'America/New_York' })).statusCode,
    ).toBe(200);
    const berlin = await createAccount(t, { tier: 'enterprise', hublet: 'eu1' });
    for (let i = 0; i < 3; i++) expect((await crmCall(ny.hubId)).statusCode).toBe(200);
    await crmCall(berlin.hubId);

    // The three calls before this one (each is counted as its answer is sent).
    const first = usageOf(await get(token(ny.hubId)));
    expect(first).toEqual({
      name: 'private-apps-api-calls-daily',
      usageLimit: 625_000,
      currentUsage: 3,
      collectedAt: new Date(Date.UTC(2026, 10, 22, 4, 30)).toISOString(),
      fetchStatus: 'SUCCESS',
      resetsAt: new Date(Date.UTC(2026, 10, 22, 5)).toISOString(), // New York's next midnight
    });
    expect(usageOf(await get(token(berlin.hubId)))).toMatchObject({
      usageLimit: 1_000_000,
      currentUsage: 1,
      resetsAt: new Date(Date.UTC(2026, 10, 22, 23)).toISOString(), // Berlin's next midnight
    });

    // Past New York's midnight its count starts again; Berlin's day goes on.
    t.clock.advance(H);
    await crmCall(ny.hubId);
    expect(usageOf(await get(token(ny.hubId)))).toMatchObject({
      currentUsage: 1,
      resetsAt: new Date(Date.UTC(2026, 10, 23, 5)).toISOString(),
    });
    // Berlin's day goes on: its CRM call and its earlier usage read.
    expect(usageOf(await get(token(berlin.hubId))).currentUsage).toBe(2);
  });

  it('refuses bad requests with HubSpot errors', async () => {
    const acct = await createAccount(t);
    const bad = async (r: LightMyRequestResponse, status: number, category: string) => {
      expect({ status: r.statusCode, category: r.json().category }).toEqual({ status, category });
      expect(validateComponent(`${v}/accountInfo.json`, 'Error', r.json())).toEqual([]);
    };
    await bad(await t.inject({ method: 'GET', url }), 401, 'INVALID_AUTHENTICATION');
    await bad(await get('not-a-token'), 401, 'INVALID_AUTHENTICATION');
    await bad(await get(token(acct.hubId, ['crm.objects.contacts.read'])), 403, 'MISSING_SCOPES');
    const expired = mintCardsToken(t, { hubId: acct.hubId, appId: 1, scopes: ['oauth'], ttlMs: 1000 });
    t.clock.advance(60_000);
    await bad(await get(expired), 401, 'EXPIRED_AUTHENTICATION');
    // A token for an account that does not exist: 404, nothing else.
    await bad(await get(token(987_654_321)), 404, 'OBJECT_NOT_FOUND');
    // Other methods and near paths are not this endpoint.
    expect(
      (await t.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token(acct.hubId)}` } })).statusCode,
    ).toBe(404);
    expect((await get(token(acct.hubId), `${url}/x`)).statusCode).toBe(404);
  });
});
