import type { LightMyRequestResponse } from 'fastify';
import { InstallPageModule } from '../../src/oauth/install-page/install-page.module';
import { tierAllowsScope } from '../../src/platform/scopes/scope-catalog';
import { encodeAuthorizationRequest } from '../../src/oauth/install-page/authorization-request';
import { formFields, InstallPageBrowser, textOf } from '../support/install-page-browser';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

const REDIRECT = 'https://app.example.com/oauth/callback';
const REDIRECT_WITH_QUERY = 'http://127.0.0.1:4567/cb?tenant=a%20b&x=1';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const HARD_STATE = 'a b&c=d+e/?#ü🚀%20"<>\'\\';

function expectPageHeaders(r: LightMyRequestResponse): void {
  expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(r.headers['cache-control']).toBe('no-store');
  const csp = String(r.headers['content-security-policy']);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("default-src 'none'"); // no script of any kind
  expect(csp).not.toContain('upgrade-insecure-requests');
  expect(r.headers['referrer-policy']).toBe('no-referrer');
  expect(r.headers['x-content-type-options']).toBe('nosniff');
}

function expectErrorPage(r: LightMyRequestResponse, status: number, text: RegExp): void {
  expect({ status: r.statusCode, location: r.headers.location }).toEqual({ status, location: undefined });
  expectPageHeaders(r);
  expect(textOf(r.body)).toMatch(text);
}

describe('OAuth install page over HTTP', () => {
  let t: TestApp;
  let enterprise: { hubId: number; domain: string };
  let free: { hubId: number; domain: string };
  let outsider: { hubId: number };
  let user: { userId: number; email: string; password: string };
  let app: Awaited<ReturnType<typeof createApp>>;

  const query = (over: Record<string, string | undefined> = {}) => {
    const params: Record<string, string | undefined> = {
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      scope: 'oauth crm.objects.contacts.read',
      optional_scope: 'crm.objects.custom.read crm.lists.read',
      ...over,
    };
    return Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
      .join('&');
  };

  /** Signs in through the form and returns the browser with its session. */
  async function signedIn(q = query()): Promise<InstallPageBrowser> {
    const b = new InstallPageBrowser(t);
    const page = await b.get(`/oauth/authorize?${q}`);
    expect(page.statusCode).toBe(200);
    const r = await b.submit(page, '/oauth/authorize/sign-in', { email: user.email, password: user.password });
    expect(r.statusCode).toBe(303);
    return b;
  }

  beforeAll(async () => {
    // The tier rule these tests lean on: an enterprise-only optional scope next to one any tier has.
    expect([
      tierAllowsScope('professional', 'crm.objects.custom.read'),
      tierAllowsScope('free', 'crm.lists.read'),
    ]).toEqual([false, true]);
    t = await startTestApp({ modules: [InstallPageModule] });
    const dev = await createAccount(t, { tier: 'enterprise' });
    enterprise = await createAccount(t, { domain: 'big-co.example.com', tier: 'enterprise' });
    free = await createAccount(t, { domain: 'small-co.example.com', tier: 'free' });
    outsider = await createAccount(t, { tier: 'starter' });
    user = await createUser(t, { email: 'installer@example.com', hubIds: [enterprise.hubId, free.hubId] });
    app = await createApp(t, {
      developerHubId: dev.hubId,
      name: 'Contacts Sync',
      redirectUrls: [REDIRECT, REDIRECT_WITH_QUERY],
      requiredScopes: ['oauth', 'crm.objects.contacts.read'],
      optionalScopes: ['crm.objects.custom.read', 'crm.lists.read'],
    });
  });
  afterAll(() => t.close());

  describe('checks the client and the redirect URI first, and never redirects on failure', () => {
    const cases: Array<[string, () => Record<string, string | undefined>, RegExp]> = [
      ['no client_id', () => ({ client_id: undefined }), /client/i],
      ['an unknown client_id', () => ({ client_id: '00000000-0000-4000-8000-000000000000' }), /client/i],
      ['no redirect_uri', () => ({ redirect_uri: undefined }), /redirect/i],
      ['a trailing slash', () => ({ redirect_uri: `${REDIRECT}/` }), /redirect/i],
      ['another case', () => ({ redirect_uri: 'https://APP.example.com/oauth/callback' }), /redirect/i],
      ['a path in another case', () => ({ redirect_uri: 'https://app.example.com/OAuth/callback' }), /redirect/i],
      ['an explicit port', () => ({ redirect_uri: 'https://app.example.com:443/oauth/callback' }), /redirect/i],
      ['another port', () => ({ redirect_uri: 'https://app.example.com:8443/oauth/callback' }), /redirect/i],
      ['the @ trick', () => ({ redirect_uri: 'https://app.example.com@evil.example/oauth/callback' }), /redirect/i],
      [
        'a userinfo prefix',
        () => ({ redirect_uri: 'https://evil.example@app.example.com/oauth/callback' }),
        /redirect/i,
      ],
      ['an encoded slash', () => ({ redirect_uri: 'https://app.example.com/oauth%2Fcallback' }), /redirect/i],
      ['an encoded letter', () => ({ redirect_uri: 'https://app.example.com/oauth/c%61llback' }), /redirect/i],
      ['http instead of https', () => ({ redirect_uri: 'http://app.example.com/oauth/callback' }), /redirect/i],
      ['an added query', () => ({ redirect_uri: `${REDIRECT}?next=https://evil.example` }), /redirect/i],
      ['a fragment', () => ({ redirect_uri: `${REDIRECT}#x` }), /redirect/i],
      [
        'a re-encoded registered query',
        () => ({ redirect_uri: 'http://127.0.0.1:4567/cb?tenant=a+b&x=1' }),
        /redirect/i,
      ],
      ['a missing required scope', () => ({ scope: 'oauth' }), /crm\.objects\.contacts\.read/],
      ['an unknown scope', () => ({ scope: 'oauth crm.objects.contacts.read no.such.scope' }), /no\.such\.scope/],
      ['an unknown optional scope', () => ({ optional_scope: 'not.a.scope' }), /not\.a\.scope/],
      ['a repeated client_id', () => ({ client_id: `${app.clientId}&client_id=${app.clientId}` }), /more than once/],
      ['PKCE plain', () => ({ code_challenge: CHALLENGE, code_challenge_method: 'plain' }), /S256/],
      ['a malformed PKCE challenge', () => ({ code_challenge: 'abc', code_challenge_method: 'S256' }), /43/],
    ];
    it.each(cases)('%s → 400 error page', async (_name, over, text) => {
      let q = query(over());
      // A repeated parameter has to reach the server as two parameters, not one encoded value.
      q = q.replace(
        encodeURIComponent(`${app.clientId}&client_id=${app.clientId}`),
        `${app.clientId}&client_id=${app.clientId}`,
      );
      for (const path of ['/oauth/authorize', `/oauth/${enterprise.hubId}/authorize`]) {
        const r = await t.inject({ method: 'GET', url: `${path}?${q}` });
        expectErrorPage(r, 400, text);
        expect(r.body).not.toContain('name="password"');
      }
    });

    it('checks them before the session too: a signed-in user gets the same error page', async () => {
      const b = await signedIn();
      const r = await b.get(`/oauth/authorize?${query({ redirect_uri: 'https://evil.example/cb' })}`);
      expectErrorPage(r, 400, /redirect/i);
    });

    it('accepts the description’s spelling scopes / optional_scopes', async () => {
      const q =
        query({ scope: undefined, optional_scope: undefined }) +
        '&scopes=oauth%20crm.objects.contacts.read&optional_scopes=crm.lists.read';
      const r = await t.inject({ method: 'GET', url: `/oauth/authorize?${q}` });
      expect(r.statusCode).toBe(200);
      expect(r.body).toContain('name="password"');
    });

    it('answers a non-numeric portal id with a 404 page', async () => {
      expectErrorPage(await t.inject({ method: 'GET', url: `/oauth/abc/authorize?${query()}` }), 404, /Hub ID/);
    });
  });

  describe('sign-in', () => {
    it('shows the sign-in form with the page headers and a HttpOnly, SameSite=Lax session cookie', async () => {
      const r = await t.inject({ method: 'GET', url: `/oauth/authorize?${query()}` });
      expect(r.statusCode).toBe(200);
      expectPageHeaders(r);
      expect(textOf(r.body)).toContain('Sign in to connect Contacts Sync');
      expect(r.body).toMatch(/<label for="email">/);
      const cookie = String(r.headers['set-cookie']);
      expect(cookie).toMatch(/^hs_install_session=/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\/oauth/);
      expect(cookie).not.toMatch(/Secure/); // plain HTTP here; 'auto' adds it behind HTTPS
      expect(formFields(r.body, '/oauth/authorize/sign-in')._csrf).toMatch(/.{20,}/);
    });

    it('refuses a wrong password and an unknown e-mail alike, with a 401 page that keeps the e-mail', async () => {
      for (const [email, password] of [
        [user.email, 'wrong password'],
        ['nobody@example.com', user.password],
        [user.email, ''],
      ]) {
        const b = new InstallPageBrowser(t);
        const page = await b.get(`/oauth/authorize?${query()}`);
        const r = await b.submit(page, '/oauth/authorize/sign-in', { email: email!, password: password! });
        expect(r.statusCode).toBe(401);
        expectPageHeaders(r);
        expect(textOf(r.body)).toMatch(/do not match/);
        expect(r.body).toContain(`value="${email}"`);
        expect(r.body).not.toContain(user.password);
        // Still not signed in.
        expect((await b.get(`/oauth/authorize?${query()}`)).body).toContain('name="password"');
      }
    });

    it('signs in case-insensitively and goes back to the page with the same request (303)', async () => {
      const b = new InstallPageBrowser(t);
      const q = query({ state: HARD_STATE });
      const page = await b.get(`/oauth/authorize?${q}`);
      const r = await b.submit(page, '/oauth/authorize/sign-in', {
        email: 'Installer@Example.COM',
        password: user.password,
      });
      expect(r.statusCode).toBe(303);
      expect(r.headers.location).toBe(`/oauth/authorize?${q}`);
    });

    it('signs out through a CSRF-protected form', async () => {
      const b = await signedIn();
      const chooser = await b.get(`/oauth/authorize?${query()}`);
      expect(textOf(chooser.body)).toContain('Signed in as installer@example.com');
      const out = await b.submit(chooser, '/oauth/authorize/sign-out');
      expect(out.statusCode).toBe(303);
      expect((await b.get(out.headers.location as string)).body).toContain('name="password"');
    });

    it('ends the session on the server: a copy of the cookie taken before sign-out approves nothing after it', async () => {
      const b = await signedIn();
      const consent = await b.get(`/oauth/${enterprise.hubId}/authorize?${query({ state: 'copied' })}`);
      expect(consent.body).toContain('/oauth/authorize/decision');
      const copy = new InstallPageBrowser(t);
      for (const [name, value] of b.cookies) copy.cookies.set(name, value);
      await b.submit(consent, '/oauth/authorize/sign-out');

      const replayed = await copy.submit(consent, '/oauth/authorize/decision', { decision: 'approve' });
      expect(replayed.statusCode).toBe(303); // back to the steps, no code
      expect(String(replayed.headers.location)).not.toContain('code=');
      expect((await copy.get(`/oauth/authorize?${query()}`)).body).toContain('name="password"');
      // Signing in again works as before.
      expect((await (await signedIn()).get(`/oauth/authorize?${query()}`)).body).toContain('Signed in as');
    });
  });

  describe('CSRF', () => {
    it('refuses every POST without the token, with a wrong token, or with another session’s token (403 page)', async () => {
      const b = await signedIn();
      const chooser = await b.get(`/oauth/authorize?${query()}`);
      const other = new InstallPageBrowser(t);
      const othersToken = formFields(
        (await other.get(`/oauth/authorize?${query()}`)).body,
        '/oauth/authorize/sign-in',
      )._csrf!;
      for (const action of [
        '/oauth/authorize/sign-in',
        '/oauth/authorize/account',
        '/oauth/authorize/decision',
        '/oauth/authorize/sign-out',
      ]) {
        const fields = {
          request: encodeAuthorizationRequest({
            clientId: app.clientId,
            redirectUri: REDIRECT,
            scope: 'oauth crm.objects.contacts.read',
          }),
          email: user.email,
          password: user.password,
          hub_id: String(enterprise.hubId),
          decision: 'approve',
        };
        for (const csrf of [
          undefined,
          'forged-token',
          othersToken,
          formFields(chooser.body, '/oauth/authorize/account')._csrf + 'x',
        ]) {
          const r = await b.post(action, csrf === undefined ? fields : { ...fields, _csrf: csrf });
          expectErrorPage(r, 403, /form has expired/);
        }
      }
      // Without any session cookie at all.
      const r = await t.inject({
        method: 'POST',
        url: '/oauth/authorize/decision',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `_csrf=${encodeURIComponent(formFields(chooser.body, '/oauth/authorize/account')._csrf!)}&decision=approve`,
      });
      expectErrorPage(r, 403, /form has expired/);
    });

    it('gives a new CSRF secret at sign-in: a token from before no longer works', async () => {
      const b = new InstallPageBrowser(t);
      const page = await b.get(`/oauth/authorize?${query()}`);
      const before = formFields(page.body, '/oauth/authorize/sign-in');
      await b.submit(page, '/oauth/authorize/sign-in', { email: user.email, password: user.password });
      const r = await b.post('/oauth/authorize/account', { ...before, hub_id: String(enterprise.hubId) });
      expectErrorPage(r, 403, /form has expired/);
    });
  });

  describe('account chooser, consent and the redirect', () => {
    it('runs sign-in → chooser → consent → approve and returns code and state byte for byte', async () => {
      const q = query({ redirect_uri: REDIRECT_WITH_QUERY, state: HARD_STATE });
      const b = await signedIn(q);
      const chooser = await b.get(`/oauth/authorize?${q}`);
      expect(chooser.statusCode).toBe(200);
      expectPageHeaders(chooser);
      const text = textOf(chooser.body);
      expect(text).toContain('Choose an account');
      expect(text).toContain('big-co.example.com');
      expect(text).toContain('small-co.example.com');
      const chosen = await b.submit(chooser, '/oauth/authorize/account', { hub_id: String(enterprise.hubId) });
      expect(chosen.statusCode).toBe(303);
      expect(chosen.headers.location).toBe(`/oauth/${enterprise.hubId}/authorize?${q}`);
      const consent = await b.get(chosen.headers.location as string);
      expect(consent.statusCode).toBe(200);
      expectPageHeaders(consent);
      expect(textOf(consent.body)).toContain('Connect Contacts Sync to big-co.example.com');
      const approved = await b.submit(consent, '/oauth/authorize/decision', { decision: 'approve' });
      expect(approved.statusCode).toBe(302);
      expect(approved.headers['cache-control']).toBe('no-store');
      const location = approved.headers.location as string;
      expect(location.startsWith('http://127.0.0.1:4567/cb?tenant=a%20b&x=1&code=')).toBe(true);
      const url = new URL(location);
      expect(url.searchParams.get('state')).toBe(HARD_STATE);
      expect(url.searchParams.get('code')).toMatch(/^\S{16,}$/);
      expect([...url.searchParams.keys()]).toEqual(['tenant', 'x', 'code', 'state']);
    });

    it('records AppInstalled once per account and AuthorizationCodeIssued per approval, by the user, without the code', async () => {
      const dev = await createAccount(t);
      const fresh = await createApp(t, {
        developerHubId: dev.hubId,
        redirectUrls: [REDIRECT],
        requiredScopes: ['oauth'],
      });
      const q = `client_id=${fresh.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=oauth`;
      const b = await signedIn(q);
      const codes: string[] = [];
      for (let i = 0; i < 2; i++) {
        const consent = await b.get(`/oauth/${enterprise.hubId}/authorize?${q}`);
        const approved = await b.submit(consent, '/oauth/authorize/decision', { decision: 'approve' });
        codes.push(new URL(approved.headers.location as string).searchParams.get('code')!);
      }
      expect(new Set(codes).size).toBe(2);
      const events = async (type: string) =>
        (
          (await t.admin('GET', `/admin/v1/events?type=${type}&limit=1000`)).json().results as Array<{
            data: { appId: number; hubId: number };
            metadata: { actor: string };
          }>
        ).filter((e) => e.data.appId === fresh.appId);
      const installed = await events('oauth.AppInstalled');
      const issued = await events('oauth.AuthorizationCodeIssued');
      expect(installed).toHaveLength(1);
      expect(installed[0]!.data.hubId).toBe(enterprise.hubId);
      expect(issued).toHaveLength(2);
      for (const e of [...installed, ...issued]) expect(e.metadata.actor).toBe(`user:${user.userId}`);
      const all = JSON.stringify([...installed, ...issued]);
      for (const code of codes) expect(all).not.toContain(code);
      // The code works at the token endpoint.
      const token = await t.inject({
        method: 'POST',
        url: '/oauth/v1/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: fresh.clientId,
          client_secret: fresh.clientSecret,
          redirect_uri: REDIRECT,
          code: codes[0]!,
        }).toString(),
      });
      expect(token.statusCode).toBe(200);
      expect(token.json()).toMatchObject({ hub_id: enterprise.hubId, user_id: user.userId, scopes: ['oauth'] });
    });

    it('leaves state out of the redirect when the client sent none', async () => {
      const b = await signedIn();
      const consent = await b.get(`/oauth/${enterprise.hubId}/authorize?${query()}`);
      const approved = await b.submit(consent, '/oauth/authorize/decision', { decision: 'approve' });
      const url = new URL(approved.headers.location as string);
      expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
      expect([...url.searchParams.keys()]).toEqual(['code']);
    });

    it('deny → 302 with error=access_denied and the state', async () => {
      const q = query({ state: HARD_STATE });
      const b = await signedIn(q);
      const consent = await b.get(`/oauth/${free.hubId}/authorize?${q}`);
      const denied = await b.submit(consent, '/oauth/authorize/decision', { decision: 'deny' });
      expect(denied.statusCode).toBe(302);
      const url = new URL(denied.headers.location as string);
      expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
      expect(Object.fromEntries(url.searchParams)).toEqual({ error: 'access_denied', state: HARD_STATE });
    });

    it('drops optional scopes the account tier cannot use, and says so', async () => {
      const b = await signedIn();
      const onFree = textOf((await b.get(`/oauth/${free.hubId}/authorize?${query()}`)).body);
      expect(onFree).toMatch(
        /Required permissions Basic .* oauth CRM See contacts and their properties crm\.objects\.contacts\.read Optional permissions .* crm\.lists\.read/,
      );
      expect(onFree).toMatch(
        /Not available on the free tier, so not granted: See custom object records and their properties \( crm\.objects\.custom\.read \)/,
      );
      expect(onFree.match(/crm\.objects\.custom\.read/g)).toHaveLength(1);

      const onEnterprise = textOf((await b.get(`/oauth/${enterprise.hubId}/authorize?${query()}`)).body);
      expect(onEnterprise).toMatch(
        /Optional permissions .* CRM See custom object records .* crm\.objects\.custom\.read See lists of records crm\.lists\.read/,
      );
      expect(onEnterprise).not.toContain('Not available');
    });

    it('preselects the account from the path when the user belongs to it, otherwise asks', async () => {
      const b = await signedIn();
      const preselected = await b.get(`/oauth/${free.hubId}/authorize?${query()}`);
      expect(textOf(preselected.body)).toContain('Connect Contacts Sync to small-co.example.com');
      const notMine = await b.get(`/oauth/${outsider.hubId}/authorize?${query()}`);
      expect(notMine.statusCode).toBe(200);
      expect(textOf(notMine.body)).toContain(`You don't have access to the account with Hub ID ${outsider.hubId}`);
      expect(notMine.body).toContain('action="/oauth/authorize/account"');
    });

    it('keeps the preselected account through sign-in', async () => {
      const b = new InstallPageBrowser(t);
      const page = await b.get(`/oauth/${free.hubId}/authorize?${query()}`);
      expect(formFields(page.body, '/oauth/authorize/sign-in').portal_id).toBe(String(free.hubId));
      const r = await b.submit(page, '/oauth/authorize/sign-in', { email: user.email, password: user.password });
      expect(r.headers.location).toBe(`/oauth/${free.hubId}/authorize?${query()}`);
      expect(textOf((await b.get(r.headers.location as string)).body)).toContain('small-co.example.com');
    });

    it('re-validates the hidden request and the account on every POST', async () => {
      const b = await signedIn();
      const consent = await b.get(`/oauth/${enterprise.hubId}/authorize?${query()}`);
      const fields = formFields(consent.body, '/oauth/authorize/decision');
      const tampered = (over: object) =>
        encodeAuthorizationRequest({
          clientId: app.clientId,
          redirectUri: REDIRECT,
          scope: 'oauth crm.objects.contacts.read',
          ...over,
        });

      const evil = await b.post('/oauth/authorize/decision', {
        ...fields,
        request: tampered({ redirectUri: 'https://evil.example/cb' }),
        decision: 'approve',
      });
      expectErrorPage(evil, 400, /redirect/i);
      const fewerScopes = await b.post('/oauth/authorize/decision', {
        ...fields,
        request: tampered({ scope: 'oauth' }),
        decision: 'deny',
      });
      expectErrorPage(fewerScopes, 400, /crm\.objects\.contacts\.read/);
      const garbage = await b.post('/oauth/authorize/decision', {
        ...fields,
        request: 'not-a-request',
        decision: 'approve',
      });
      expectErrorPage(garbage, 400, /damaged|missing/);
      const notMine = await b.post('/oauth/authorize/decision', {
        ...fields,
        hub_id: String(outsider.hubId),
        decision: 'approve',
      });
      expectErrorPage(notMine, 403, new RegExp(`not a user of the account with Hub ID ${outsider.hubId}`));
      const badHub = await b.post('/oauth/authorize/decision', { ...fields, hub_id: '1e3', decision: 'approve' });
      expectErrorPage(badHub, 400, /Hub ID/);
      const noDecision = await b.post('/oauth/authorize/decision', { ...fields, decision: 'maybe' });
      expectErrorPage(noDecision, 400, /Connect app or Cancel/);
    });

    it('sends a decision without a signed-in user back to the steps, granting nothing', async () => {
      const b = await signedIn();
      const consent = await b.get(`/oauth/${enterprise.hubId}/authorize?${query({ state: 's' })}`);
      const fields = formFields(consent.body, '/oauth/authorize/decision');
      // Sign out (the sign-out form of the same page), then replay the consent form with the new session's token.
      await b.submit(consent, '/oauth/authorize/sign-out');
      const fresh = await b.get(`/oauth/authorize?${query()}`);
      const r = await b.post('/oauth/authorize/decision', {
        ...fields,
        _csrf: formFields(fresh.body, '/oauth/authorize/sign-in')._csrf!,
        decision: 'approve',
      });
      expect(r.statusCode).toBe(303);
      expect(r.headers.location).toBe(`/oauth/${enterprise.hubId}/authorize?${query({ state: 's' })}`);
    });

    it('tells a user without accounts that there is nothing to connect', async () => {
      const lonely = await createUser(t, { email: 'lonely@example.com', hubIds: [] });
      const b = new InstallPageBrowser(t);
      const page = await b.get(`/oauth/authorize?${query()}`);
      await b.submit(page, '/oauth/authorize/sign-in', { email: lonely.email, password: lonely.password });
      expectErrorPage(await b.get(`/oauth/authorize?${query()}`), 403, /does not belong to any HubSpot account/);
    });
  });

  describe('escaping', () => {
    it('shows an app named <script>alert(1)</script> as text on every step', async () => {
      const dev = await createAccount(t);
      const evil = await createApp(t, {
        developerHubId: dev.hubId,
        name: '<script>alert(1)</script>',
        redirectUrls: [REDIRECT],
        requiredScopes: ['oauth'],
      });
      const q = `client_id=${evil.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=oauth&state=${encodeURIComponent('"><script>alert(2)</script>')}`;
      const b = new InstallPageBrowser(t);
      const signIn = await b.get(`/oauth/authorize?${q}`);
      await b.submit(signIn, '/oauth/authorize/sign-in', { email: user.email, password: user.password });
      const chooser = await b.get(`/oauth/authorize?${q}`);
      const consent = await b.get(`/oauth/${enterprise.hubId}/authorize?${q}`);
      const stranger = new InstallPageBrowser(t);
      const wrongPassword = await stranger.submit(
        await stranger.get(`/oauth/authorize?${q}`),
        '/oauth/authorize/sign-in',
        {
          email: '"><script>x</script>',
          password: 'x',
        },
      );
      expect(wrongPassword.statusCode).toBe(401);
      for (const r of [signIn, chooser, consent, wrongPassword]) {
        expect(r.body).not.toMatch(/<script/i);
        expect(r.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      }
      expect(textOf(consent.body)).toContain('Connect <script>alert(1)</script> to big-co.example.com');
    });
  });
});
