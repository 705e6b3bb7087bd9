import { exchangeCode, installCode, oauthFixture, refresh } from '../support/oauth-fixtures';
import { startTestApp, TestApp } from '../support/test-app';

const required = ['oauth', 'crm.objects.contacts.read', 'crm.schemas.contacts.read'];
const optional = [
  'tickets',
  'crm.objects.owners.read',
  'crm.schemas.custom.read',
  'crm.schemas.companies.read',
  'crm.schemas.deals.read',
  'crm.objects.custom.read',
  'crm.objects.calls.read',
  'crm.objects.emails.read',
];

/** A refresh token mints at most the install's current scopes (issue 14, finding 6). */
describe('refresh tokens after a re-approval with fewer scopes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('approve 11 scopes, re-approve 8: the first refresh token mints access tokens with the 8', async () => {
    const f = await oauthFixture(t, { requiredScopes: required, optionalScopes: optional });
    const first = await installCode(t, f, { optionalScopes: optional });
    expect(first.scopes).toHaveLength(11);
    const firstTokens = (await exchangeCode(t, f, first.code)).json();
    expect(firstTokens.scopes).toHaveLength(11);

    const kept = optional.slice(0, 5);
    const second = await installCode(t, f, { optionalScopes: kept });
    expect([...second.scopes].sort()).toEqual([...required, ...kept].sort());
    expect((await exchangeCode(t, f, second.code)).statusCode).toBe(200);

    const refreshed = await refresh(t, f, firstTokens.refresh_token);
    expect(refreshed.statusCode).toBe(200);
    expect([...refreshed.json().scopes].sort()).toEqual([...required, ...kept].sort());
    const info = await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${refreshed.json().access_token}` });
    expect(info.statusCode).toBe(200);
    expect([...info.json().scopes].sort()).toEqual([...required, ...kept].sort());

    // the refresh token's own metadata says the same
    const rt = await t.inject({ method: 'GET', url: `/oauth/v1/refresh-tokens/${firstTokens.refresh_token}` });
    expect(rt.statusCode).toBe(200);
    expect([...rt.json().scopes].sort()).toEqual([...required, ...kept].sort());
  });
});
