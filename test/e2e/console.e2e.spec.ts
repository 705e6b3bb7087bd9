import { createHash } from 'node:crypto';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ConsoleClient } from '../support/console-client';
import { installAndExchange, oauthFixture, type OAuthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

describe('console over HTTP: sign-in, CSRF, the off switch, bad input on every route', () => {
  let t: TestApp;
  let f: OAuthFixture;
  let tokens: { access_token: string; refresh_token: string };

  beforeAll(async () => {
    t = await startTestApp();
    f = await oauthFixture(t);
    tokens = await installAndExchange(t, f);
  });
  afterAll(() => t?.close());

  it('sends a browser without a session to the sign-in page, and refuses a wrong admin key', async () => {
    const c = new ConsoleClient(t);
    const r = await c.get('/console/accounts');
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe('/console/sign-in');
    const refused = await c.signIn('not-the-admin-key-at-all');
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('not this service’s admin key');
    expect((await c.get('/console/accounts')).statusCode).toBe(303);
  });

  it('signs in with the admin key: an HttpOnly, SameSite=Strict cookie on /console', async () => {
    const c = new ConsoleClient(t);
    await c.get('/console/sign-in');
    const r = await c.post('/console/sign-in', { adminKey: t.adminKey });
    expect(r.statusCode).toBe(303);
    const cookie = [r.headers['set-cookie']].flat().find((s) => s?.startsWith('hs_console_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/console/);
    expect(cookie).not.toMatch(/Secure/); // plain http here; https requests get Secure
    const page = await c.get('/console/accounts');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`/console/accounts/${f.hubId}`);
  });

  it('refuses every form without its CSRF token, or with another browser’s', async () => {
    const c = new ConsoleClient(t);
    await c.signIn();
    await c.get(`/console/accounts/${f.hubId}`);
    const other = new ConsoleClient(t);
    await other.signIn();
    for (const [url, form] of [
      [`/console/installs/${f.appId}/${f.hubId}/expire-access-tokens`, {}],
      [`/console/installs/${f.appId}/${f.hubId}/uninstall`, {}],
      ['/console/controls/faults/clear-all', { appId: String(f.appId) }],
      ['/console/sign-out', {}],
    ] as const) {
      expect((await c.post(url, form, null)).statusCode).toBe(403);
      expect((await c.post(url, form, other.csrf)).statusCode).toBe(403);
    }
    // A sign-in form posted without the token is refused too.
    const fresh = new ConsoleClient(t);
    expect((await fresh.post('/console/sign-in', { adminKey: t.adminKey }, null)).statusCode).toBe(403);
    // The install is still there.
    expect((await c.get(`/console/accounts/${f.hubId}`)).body).toContain(
      `/console/installs/${f.appId}/${f.hubId}/uninstall`,
    );
  });

  it('shows each install’s tokens outstanding by count and latest expiry, never a token or its hash', async () => {
    const c = new ConsoleClient(t);
    await c.signIn();
    const g = await oauthFixture(t);
    const first = await installAndExchange(t, g);
    const issuedAt = t.clock.now();
    await installAndExchange(t, g);
    const cell = (body: string) => /<td class="tokens">([\s\S]*?)<\/td>/.exec(body)![1]!.replace(/\s+/g, ' ').trim();
    const secrets = (body: string) => {
      for (const s of [first.access_token, first.refresh_token]) {
        expect(body).not.toContain(s);
        expect(body).not.toContain(createHash('sha256').update(s).digest('hex'));
        expect(body).not.toContain(createHash('sha256').update(s).digest('base64url'));
      }
    };
    const account = await c.get(`/console/accounts/${g.hubId}`);
    expect(cell(account.body)).toBe(
      `2 access, 2 refresh <div class="muted">latest expires ${new Date(issuedAt + first.expires_in * 1000).toISOString()}</div>`,
    );
    secrets(account.body);
    const app = await c.get(`/console/apps/${g.appId}`);
    expect(cell(app.body)).toContain('2 access');
    secrets(app.body);
    // The page's own action: expire the access tokens now; the refresh tokens stay.
    expect((await c.post(`/console/installs/${g.appId}/${g.hubId}/expire-access-tokens`)).statusCode).toBe(303);
    await t.app.get(ProjectionRunner).waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition());
    expect(cell((await c.get(`/console/accounts/${g.hubId}`)).body)).toBe('0 access, 2 refresh');
  });

  it('answers 4xx pages, never a 5xx, to bad input on every route', async () => {
    const c = new ConsoleClient(t);
    await c.signIn();
    const gets: Array<[string, number]> = [
      ['/console/accounts?after=-1', 400],
      ['/console/accounts?after=abc', 400],
      ['/console/accounts/0', 404],
      ['/console/accounts/abc', 404],
      ['/console/accounts/999999999', 404],
      ['/console/apps?after=1e9', 400],
      ['/console/apps/abc', 404],
      ['/console/apps/999999999', 404],
      [`/console/apps/${f.appId}?status=nope`, 400],
      [`/console/apps/${f.appId}?after=x`, 400],
      ['/console/events?hubId=x', 400],
      ['/console/events?appId=0', 400],
      ['/console/events?before=0', 400],
      [`/console/events?stream=${'x'.repeat(201)}`, 400],
      ['/console/events?type=a&type=b', 400],
      ['/console/events/live?hubId=-3', 400],
      ['/console/records?hubId=x', 400],
      ['/console/records?hubId=999999999', 404],
      [`/console/records?hubId=${f.hubId}&type=9-9`, 400],
      [`/console/records?hubId=${f.hubId}&after=-1`, 400],
      [`/console/records/${f.hubId}/0-1/abc`, 404],
      [`/console/records/${f.hubId}/9-9/1`, 404],
      [`/console/records/${f.hubId}/0-1/999999`, 404],
      ['/console/records/999999999/0-1/1', 404],
    ];
    for (const [url, status] of gets) {
      const r = await c.get(url);
      expect([url, r.statusCode]).toEqual([url, status]);
      expect(r.headers['content-type']).toContain('text/html');
    }
    const posts: Array<[string, Record<string, string>, number]> = [
      [`/console/installs/${f.appId}/${f.hubId}/nonsense`, {}, 404],
      [`/console/installs/abc/${f.hubId}/uninstall`, {}, 404],
      [`/console/installs/${f.appId}/999999999/uninstall`, {}, 404],
      [`/console/installs/${f.appId}/${f.hubId}/advance-clock`, {}, 400],
      [`/console/installs/${f.appId}/${f.hubId}/advance-clock`, { advanceSeconds: '-5' }, 400],
      [`/console/installs/${f.appId}/${f.hubId}/advance-clock`, { advanceSeconds: '999999999999' }, 400],
      [`/console/apps/${f.appId}/deliveries/abc/redeliver`, {}, 404],
      [`/console/apps/${f.appId}/deliveries/123456/redeliver`, {}, 404],
      ['/console/controls/faults', { appId: String(f.appId), spec: '{not json' }, 400],
      ['/console/controls/faults', { appId: String(f.appId), spec: '{"match": 3}' }, 400],
      ['/console/controls/faults', { appId: '999999999', spec: '{}' }, 404],
      ['/console/controls/faults', { spec: '{}' }, 400],
      [`/console/controls/faults/${f.appId}/clear`, {}, 400],
      [`/console/controls/faults/${f.appId}/clear`, { faultId: 'nope' }, 404],
      ['/console/controls/faults/clear-all', { appId: 'x' }, 400],
      ['/console/controls/search-lag/999999999', { searchLagMs: '5' }, 404],
      [`/console/controls/search-lag/${f.hubId}`, { searchLagMs: 'soon' }, 400],
      [`/console/controls/search-lag/${f.hubId}`, {}, 400],
    ];
    for (const [url, form, status] of posts) {
      await c.get('/console/controls');
      const r = await c.post(url, form);
      expect([url, r.statusCode]).toEqual([url, status]);
    }
    // Not a form body at all: refused as a form without its token.
    const json = await t.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { 'content-type': 'application/json', cookie: c.cookie },
      payload: '[1,2]',
    });
    expect(json.statusCode).toBe(403);
    expect(tokens.access_token).toBeTruthy();
  });

  it('answers 404 on every route with CONSOLE_ENABLED=false', async () => {
    const off = await startTestApp({ env: { CONSOLE_ENABLED: 'false' } });
    try {
      for (const url of [
        '/console',
        '/console/sign-in',
        '/console/accounts',
        '/console/events',
        '/console/events/live',
      ]) {
        expect((await off.inject({ method: 'GET', url })).statusCode).toBe(404);
      }
      const r = await off.inject({
        method: 'POST',
        url: '/console/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `adminKey=${off.adminKey}`,
      });
      expect(r.statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});
