import {
  allEvents,
  exchangeCode,
  expectOAuthError,
  installCode,
  oauthFixture,
  refresh,
} from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

/** PATCH /admin/v1/apps/{appId} and POST /admin/v1/apps/{appId}/client-secret (issue 39, item 2). */
describe('apps that can be edited', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const authorize = (clientId: string, redirectUri: string, scope: string) =>
    t.inject({
      method: 'GET',
      url: `/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, scope })}`,
    });

  it('changes name, redirect URLs and scopes; the install URL and the install page follow; the change is an event', async () => {
    const f = await oauthFixture(t, { requiredScopes: ['oauth'], optionalScopes: [] });
    const r = await t.admin('PATCH', `/admin/v1/apps/${f.appId}`, {
      name: 'Renamed',
      redirectUrls: ['https://new.example.com/cb', 'http://localhost:3000/cb'],
      requiredScopes: ['oauth', 'crm.objects.contacts.read'],
      optionalScopes: ['tickets'],
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    const app = r.json();
    expect(app).toMatchObject({
      appId: f.appId,
      clientId: f.clientId,
      name: 'Renamed',
      redirectUrls: ['https://new.example.com/cb', 'http://localhost:3000/cb'],
      requiredScopes: ['oauth', 'crm.objects.contacts.read'],
      optionalScopes: ['tickets'],
    });
    expect(app).not.toHaveProperty('clientSecret');
    const installUrl = new URL(app.installUrl);
    expect(installUrl.searchParams.get('redirect_uri')).toBe('https://new.example.com/cb');
    expect(installUrl.searchParams.get('scope')).toBe('oauth crm.objects.contacts.read');
    expect(installUrl.searchParams.get('optional_scope')).toBe('tickets');
    expect((await t.admin('GET', `/admin/v1/apps/${f.appId}`)).json()).toEqual(app);

    // The install page: the new redirect URL and scopes pass, the old redirect URL and the old scope set do not.
    const page = await t.inject({ method: 'GET', url: `${installUrl.pathname}${installUrl.search}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('name="password"');
    expect((await authorize(f.clientId, f.redirectUri, 'oauth crm.objects.contacts.read')).statusCode).toBe(400);
    const missing = await authorize(f.clientId, 'https://new.example.com/cb', 'oauth');
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('crm.objects.contacts.read');

    // A name alone keeps the rest; the same values again record nothing.
    const renamed = await t.admin('PATCH', `/admin/v1/apps/${f.appId}`, { name: 'Renamed again' });
    expect(renamed.json()).toMatchObject({ name: 'Renamed again', redirectUrls: app.redirectUrls });
    expect((await t.admin('PATCH', `/admin/v1/apps/${f.appId}`, { name: 'Renamed again' })).statusCode).toBe(200);
    const events = await t.admin('GET', `/admin/v1/events?stream=directory.app-${f.appId}`);
    expect(events.json().results.map((e: { type: string }) => e.type)).toEqual([
      'directory.AppRegistered',
      'directory.AppSettingsChanged',
      'directory.AppSettingsChanged',
    ]);
    expect(events.json().results[1]).toMatchObject({
      data: { appId: f.appId, name: 'Renamed', redirectUrls: app.redirectUrls, changedAt: t.clock.now() },
      metadata: { actor: 'admin', correlationId: expect.any(String) },
    });
  });

  it('rotates the client secret: the old one stops at the token endpoint, tokens already issued keep working', async () => {
    const f = await oauthFixture(t);
    const { code } = await installCode(t, f);
    const tokens = (await exchangeCode(t, f, code)).json();
    const pending = await installCode(t, f); // a code issued before the rotation, redeemed after it

    const r = await t.admin('POST', `/admin/v1/apps/${f.appId}/client-secret`);
    expect(r.statusCode).toBe(200);
    const rotated = r.json();
    expect(rotated).toMatchObject({ appId: f.appId, clientId: f.clientId });
    expect(rotated.clientSecret).toMatch(/^[0-9a-f-]{36}$/);
    expect(rotated.clientSecret).not.toBe(f.clientSecret);
    expect((await t.admin('GET', `/admin/v1/apps/${f.appId}`)).json()).not.toHaveProperty('clientSecret');

    expectOAuthError(await refresh(t, f, tokens.refresh_token), 401, 'BAD_CLIENT_SECRET', 'invalid_client');
    expectOAuthError(await exchangeCode(t, f, pending.code), 401, 'BAD_CLIENT_SECRET', 'invalid_client');
    const withNew = { ...f, clientSecret: rotated.clientSecret };
    const refreshed = await refresh(t, withNew, tokens.refresh_token);
    expect(refreshed.statusCode).toBe(200);
    expect((await exchangeCode(t, withNew, pending.code)).statusCode).toBe(200);
    const metadata = await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${tokens.access_token}` });
    expect(metadata.statusCode).toBe(200);

    // Only hashes in the store, and not even those in the audit trail.
    const stored = JSON.stringify(await allEvents(t));
    expect(stored).not.toContain(rotated.clientSecret);
    const trail = await t.admin('GET', `/admin/v1/events?stream=directory.app-${f.appId}`);
    expect(trail.json().results.map((e: { type: string }) => e.type)).toEqual([
      'directory.AppRegistered',
      'directory.AppClientSecretRotated',
    ]);
    expect(trail.json().results[1].data).toEqual({ appId: f.appId, rotatedAt: t.clock.now() });
  });

  describe('bad input', () => {
    let appId: number;
    beforeAll(async () => {
      appId = (await oauthFixture(t)).appId;
    });
    const expectValidation = (r: { statusCode: number; json: () => { category: string; errors: unknown[] } }) => {
      expect(r.statusCode).toBe(400);
      expect(r.json().category).toBe('VALIDATION_ERROR');
      return r.json().errors as Array<{ in: string; code: string }>;
    };

    it('unknown app: 404 for PATCH and rotation', async () => {
      for (const r of [
        await t.admin('PATCH', '/admin/v1/apps/12345', { name: 'x' }),
        await t.admin('POST', '/admin/v1/apps/12345/client-secret'),
      ]) {
        expect(r.statusCode).toBe(404);
        expect(r.json()).toMatchObject({ category: 'OBJECT_NOT_FOUND', correlationId: expect.any(String) });
      }
      expect((await t.admin('PATCH', '/admin/v1/apps/abc', { name: 'x' })).statusCode).toBe(400);
    });

    it('bad redirect URLs, empty and unknown scopes: every problem listed, nothing recorded', async () => {
      const before = (await t.admin('GET', `/admin/v1/events?stream=directory.app-${appId}`)).json().results.length;
      const errors = expectValidation(
        await t.admin('PATCH', `/admin/v1/apps/${appId}`, {
          redirectUrls: ['http://evil.example.com/cb', 'not a url'],
          requiredScopes: [],
          optionalScopes: ['no.such.scope'],
        }),
      );
      expect(errors.map((e) => [e.in, e.code])).toEqual([
        ['redirectUrls[0]', 'INVALID'],
        ['redirectUrls[1]', 'INVALID'],
        ['requiredScopes', 'REQUIRED'],
        ['optionalScopes', 'INVALID_SCOPE'],
      ]);
      expect(expectValidation(await t.admin('PATCH', `/admin/v1/apps/${appId}`, { redirectUrls: [] }))).toEqual([
        expect.objectContaining({ in: 'redirectUrls', code: 'REQUIRED' }),
      ]);
      expect(
        expectValidation(await t.admin('PATCH', `/admin/v1/apps/${appId}`, { requiredScopes: ['oauth', 'nope'] })),
      ).toEqual([expect.objectContaining({ in: 'requiredScopes', code: 'INVALID_SCOPE' })]);
      expect(
        expectValidation(await t.admin('PATCH', `/admin/v1/apps/${appId}`, { name: '', requiredScopes: 'oauth' })).map(
          (e) => e.in,
        ),
      ).toEqual(expect.arrayContaining(['name', 'requiredScopes']));
      const after = (await t.admin('GET', `/admin/v1/events?stream=directory.app-${appId}`)).json().results.length;
      expect(after).toBe(before);
    });

    it('malformed JSON: 400', async () => {
      const r = await t.inject({
        method: 'PATCH',
        url: `/admin/v1/apps/${appId}`,
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        payload: '{"name": ',
      });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ category: 'VALIDATION_ERROR', correlationId: expect.any(String) });
    });

    it('wrong admin key: 401, and nothing changes', async () => {
      for (const [method, url] of [
        ['PATCH', `/admin/v1/apps/${appId}`],
        ['POST', `/admin/v1/apps/${appId}/client-secret`],
      ] as const) {
        const r = await t.inject({
          method,
          url,
          headers: { authorization: `Bearer ${t.adminKey}x`, 'content-type': 'application/json' },
          payload: JSON.stringify({ name: 'hijacked' }),
        });
        expect(r.statusCode).toBe(401);
        expect(r.json()).toMatchObject({ category: 'INVALID_AUTHENTICATION' });
      }
      expect((await t.admin('GET', `/admin/v1/apps/${appId}`)).json().name).not.toBe('hijacked');
    });
  });
});
