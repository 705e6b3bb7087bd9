import { accountStream, DirectoryEventType, domainStream } from '../../src/directory/domain/directory-events';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { newEvent } from '../support/event-store-fixtures';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

describe('directory admin API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [] });
  });
  afterAll(() => t.close());

  it('creates and reads accounts', async () => {
    const a = await createAccount(t, { domain: 'Acme.Example.com', tier: 'professional' });
    expect(a).toEqual({
      hubId: expect.any(Number),
      domain: 'acme.example.com',
      hublet: 'na1',
      tier: 'professional',
      createdAt: expect.any(Number),
      // The na1 hublet's default settings.
      accountType: 'STANDARD',
      timeZone: 'America/New_York',
      companyCurrency: 'USD',
      additionalCurrencies: [],
    });
    const r = await t.admin('GET', `/admin/v1/accounts/${a.hubId}`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(r.json().domain).toBe('acme.example.com');
    const list = await t.admin('GET', '/admin/v1/accounts');
    expect(list.json().results.map((x: { hubId: number }) => x.hubId)).toContain(a.hubId);
  });

  it('refuses a duplicate domain with 409, also when both creates race', async () => {
    await createAccount(t, { domain: 'dup.example.com' });
    const r = await t.admin('POST', '/admin/v1/accounts', { domain: 'dup.example.com', tier: 'free' });
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ category: 'CONFLICT', correlationId: expect.any(String) });
    const racers = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.admin('POST', '/admin/v1/accounts', { domain: 'race.example.com', tier: 'free' }),
      ),
    );
    expect(racers.map((x) => x.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('takes over a domain claim whose account was never stored (a create that failed after the claim), never a live one', async () => {
    // What a create leaves when its account append is refused (507) or the process dies after the claim.
    const store = t.app.get<EventStore>(EVENT_STORE);
    const orphan = 90_000_001;
    await store.append(
      domainStream('orphan.example.com'),
      [newEvent(DirectoryEventType.DomainClaimed, { domain: 'orphan.example.com', hubId: orphan })],
      'no_stream',
    );
    const r = await t.admin('POST', '/admin/v1/accounts', { domain: 'orphan.example.com', tier: 'free' });
    expect(r.statusCode).toBe(201);
    expect(r.json().hubId).not.toBe(orphan);
    // The orphan's id is spent, so the create that left the claim can never complete now.
    expect((await store.readStream(accountStream(orphan))).map((e) => e.type)).toEqual([
      DirectoryEventType.AccountIdVoided,
    ]);
    expect((await t.admin('GET', `/admin/v1/accounts/${orphan}`)).statusCode).toBe(404);
    // The claim now has a live account: it stays, concurrent creates included.
    const again = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.admin('POST', '/admin/v1/accounts', { domain: 'orphan.example.com', tier: 'free' }),
      ),
    );
    expect(again.map((x) => x.statusCode)).toEqual([409, 409, 409, 409]);
    const accounts = (await t.admin('GET', '/admin/v1/accounts')).json().results as Array<{ domain: string }>;
    expect(accounts.filter((a) => a.domain === 'orphan.example.com')).toHaveLength(1);
  });

  it('gives concurrent users distinct ids and one user per e-mail', async () => {
    const a = await createAccount(t);
    const users = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.admin('POST', '/admin/v1/users', {
          email: `u${i}@race.example.com`,
          password: 'password-123',
          hubIds: [a.hubId],
        }),
      ),
    );
    const ids = users.map((u) => u.json().userId);
    expect(new Set(ids).size).toBe(6);
    const same = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.admin('POST', '/admin/v1/users', {
          email: 'same@race.example.com',
          password: 'password-123',
          hubIds: [a.hubId],
        }),
      ),
    );
    expect(same.map((x) => x.statusCode).sort()).toEqual([201, 409, 409, 409]);
  });

  it('validates bodies field by field', async () => {
    const r = await t.admin('POST', '/admin/v1/accounts', { domain: 'not a domain', tier: 'platinum', hublet: 7 });
    expect(r.statusCode).toBe(400);
    const body = r.json();
    expect(body.category).toBe('VALIDATION_ERROR');
    expect(body.errors.map((e: { in: string }) => e.in).sort()).toEqual(['domain', 'hublet', 'tier']);
  });

  it('creates users with hashed passwords and never returns them', async () => {
    const a = await createAccount(t);
    const u = await createUser(t, { email: 'Ada@Example.com', hubIds: [a.hubId] });
    expect(u.email).toBe('ada@example.com');
    const r = await t.admin('GET', `/admin/v1/users/${u.userId}`);
    expect(r.body).not.toContain('password');
    const dup = await t.admin('POST', '/admin/v1/users', {
      email: 'ada@example.com',
      password: 'another-password',
      hubIds: [a.hubId],
    });
    expect(dup.statusCode).toBe(409);
    const unknownHub = await t.admin('POST', '/admin/v1/users', {
      email: 'bob@example.com',
      password: 'another-password',
      hubIds: [1234],
    });
    expect(unknownHub.statusCode).toBe(400);
    expect(unknownHub.json().errors[0].in).toBe('hubIds');
  });

  it('registers apps: secret shown once, stored hashed, scopes checked', async () => {
    const dev = await createAccount(t);
    const app = await createApp(t, {
      developerHubId: dev.hubId,
      requiredScopes: ['oauth', 'crm.schemas.custom.read'],
      optionalScopes: ['developers-read'],
    });
    expect(app.clientSecret).toMatch(/^[0-9a-f-]{36}$/);
    expect(app.installUrl).toContain(`client_id=${app.clientId}`);
    expect(app.installUrl).toContain('scope=oauth%20crm.schemas.custom.read');
    expect(app.installUrl).toContain('optional_scope=developers-read');
    const got = await t.admin('GET', `/admin/v1/apps/${app.appId}`);
    expect(got.statusCode).toBe(200);
    expect(got.body).not.toContain(app.clientSecret);
    expect(got.json()).not.toHaveProperty('clientSecret');
    const events = await t.admin('GET', `/admin/v1/events?stream=directory.app-${app.appId}`);
    expect(events.body).not.toContain(app.clientSecret);
    expect(events.json().results[0]).toMatchObject({
      type: 'directory.AppRegistered',
      metadata: {
        actor: 'admin',
        eventId: expect.any(String),
        correlationId: expect.any(String),
        occurredAt: t.clock.now(),
      },
    });

    const bad = await t.admin('POST', '/admin/v1/apps', {
      developerHubId: dev.hubId,
      name: 'x',
      redirectUrls: ['http://evil.example.com/cb', 'not a url'],
      requiredScopes: ['no.such.scope'],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { in: string }) => e.in)).toEqual([
      'redirectUrls[0]',
      'redirectUrls[1]',
      'requiredScopes',
    ]);

    // No redirect URL: its install URL could never work, so the registration is refused.
    const before = (await t.admin('GET', '/admin/v1/events?type=directory.AppRegistered')).json().results.length;
    const none = await t.admin('POST', '/admin/v1/apps', {
      developerHubId: dev.hubId,
      name: 'no redirect',
      redirectUrls: [],
      requiredScopes: ['oauth'],
    });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({
      category: 'VALIDATION_ERROR',
      correlationId: expect.any(String),
      errors: [{ in: 'redirectUrls', code: 'REQUIRED' }],
    });
    const missing = await t.admin('POST', '/admin/v1/apps', {
      developerHubId: dev.hubId,
      name: 'no redirect field',
      requiredScopes: ['oauth'],
    });
    expect(missing.statusCode).toBe(400);
    expect((await t.admin('GET', '/admin/v1/events?type=directory.AppRegistered')).json().results).toHaveLength(before);
  });

  it('pages the audit trail by global position and filters by type', async () => {
    const page1 = await t.admin('GET', '/admin/v1/events?limit=2');
    expect(page1.json().results).toHaveLength(2);
    const after = page1.json().paging.next.after;
    const page2 = await t.admin('GET', `/admin/v1/events?limit=2&after=${after}`);
    expect(page2.json().results[0].position).toBeGreaterThan(Number(after));
    const typed = await t.admin('GET', '/admin/v1/events?type=directory.UserCreated');
    expect(typed.json().results.every((e: { type: string }) => e.type === 'directory.UserCreated')).toBe(true);
    expect(JSON.stringify(typed.json())).not.toContain('correct horse');
  });

  it('guards the admin API with the admin key', async () => {
    for (const authorization of [undefined, 'Bearer wrong-key', 'Basic abc', `Bearer ${t.adminKey}x`]) {
      const r = await t.inject({
        method: 'GET',
        url: '/admin/v1/accounts',
        headers: authorization ? { authorization } : {},
      });
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ category: 'INVALID_AUTHENTICATION', correlationId: expect.any(String) });
    }
  });
});

describe('bad input never yields a 5xx', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [], env: { BODY_LIMIT_BYTES: '1048576' } });
  });
  afterAll(() => t.close());

  const expectHubSpotError = (
    r: { statusCode: number; json: () => Record<string, unknown>; headers: Record<string, unknown> },
    status: number | number[],
  ) => {
    expect(Array.isArray(status) ? status : [status]).toContain(r.statusCode);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    const body = r.json();
    expect(body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.category).toEqual(expect.any(String));
    expect(body.message).toEqual(expect.any(String));
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(js|ts):\d+/);
  };

  it('malformed JSON → 400', async () => {
    const r = await t.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      payload: '{"domain": ',
    });
    expectHubSpotError(r, 400);
  });

  it('non-object JSON bodies → 400', async () => {
    for (const payload of ['[]', 'null', '"x"', '42']) {
      const r = await t.inject({
        method: 'POST',
        url: '/admin/v1/accounts',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        payload,
      });
      expectHubSpotError(r, 400);
    }
  });

  it('wrong content type → 415', async () => {
    const r = await t.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expectHubSpotError(r, 415);
    const xml = await t.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expectHubSpotError(xml, 415);
  });

  it('2 MB body → 413', async () => {
    const r = await t.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ domain: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expectHubSpotError(r, 413);
  });

  it('unknown route → 404', async () => {
    expectHubSpotError(await t.inject({ method: 'GET', url: '/no/such/route' }), 404);
    expectHubSpotError(await t.inject({ method: 'DELETE', url: '/admin/v1/accounts' }), 404);
  });

  it('a HubSpot path the service does not serve says so, unlike an object that does not exist (issue 39, item 8)', async () => {
    for (const url of ['/marketing/v3/emails', '/crm/v3/lists/folders', '/no/such/route']) {
      const r = await t.inject({ method: 'GET', url });
      expect(r.json()).toMatchObject({
        category: 'OBJECT_NOT_FOUND',
        subCategory: 'ROUTE_NOT_SERVED',
        message: expect.stringContaining('This path is not served by this service'),
        links: { docs: '/docs' },
      });
      expectHubSpotError(r, 404);
    }
    const missing = await t.admin('GET', '/admin/v1/accounts/987654321');
    expectHubSpotError(missing, 404);
    expect(missing.json().subCategory).toBeUndefined();
    expect(missing.json().message).not.toContain('not served');
  });

  it('ids out of range and NUL bytes → 400', async () => {
    for (const id of ['99999999999999999999', '-1', 'abc', '2147483648', '1e3', '%20', 'a%00b']) {
      expectHubSpotError(await t.admin('GET', `/admin/v1/accounts/${id}`), 400);
    }
    // A malformed percent-encoding never matches a route: the router answers 404 (or 400).
    expectHubSpotError(await t.admin('GET', '/admin/v1/accounts/%zz'), [400, 404]);
    const nul = await t.admin('POST', '/admin/v1/accounts', { domain: 'a\u0000b.example.com', tier: 'free' });
    expectHubSpotError(nul, 400);
    expectHubSpotError(await t.admin('GET', '/admin/v1/events?after=abc'), 400);
    expectHubSpotError(await t.admin('GET', '/admin/v1/events?stream=a&stream=b'), 400);
  });

  it('operations endpoints answer', async () => {
    expect((await t.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    const ready = await t.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().info.eventStore.status).toBe('up');
    const metrics = await t.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('http_request_duration_seconds');
    expect(metrics.body).toContain('projection_lag_positions');
    expect(metrics.body).not.toContain('projection_lag_events');
    const docs = await t.inject({ method: 'GET', url: '/docs/json' });
    expect(docs.statusCode).toBe(200);
    expect(docs.json().paths).toHaveProperty(['/admin/v1/accounts']);
  });
});
