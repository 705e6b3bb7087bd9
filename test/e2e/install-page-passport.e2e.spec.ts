import { randomBytes } from 'node:crypto';
import OAuth2Strategy from 'passport-oauth2';
import { InstallPageModule } from '../../src/oauth/install-page/install-page.module';
import { InstallPageBrowser } from '../support/install-page-browser';
import { oauthSchemaProblems } from '../support/oauth-schema';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

type Outcome =
  | { redirect: string }
  | { user: { accessToken: string; refreshToken: string; params: Record<string, unknown> }; info: unknown }
  | { fail: unknown; status?: number }
  | { error: Error };

/** passport-oauth2 strategy run the way passport runs it: it ends in redirect, success, fail or error. */
function authenticate(strategy: OAuth2Strategy, query: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const run = Object.create(strategy) as OAuth2Strategy & Record<string, unknown>;
    run.redirect = (url: string) => resolve({ redirect: url });
    run.success = (user: never, info: unknown) => resolve({ user, info });
    run.fail = (fail: unknown, status?: number) => resolve({ fail, status });
    run.error = (error: Error) => resolve({ error });
    run.authenticate({ query } as never, {});
  });
}

/**
 * The app's own state + PKCE verifier store (what a session would hold in a real app). passport-oauth2
 * calls the 5-argument `store` when PKCE is on; its type definitions do not describe that form.
 */
class MemoryPkceStore {
  readonly pending = new Map<string, string>();
  store(
    _req: unknown,
    verifier: string,
    _state: unknown,
    _meta: unknown,
    done: (err: Error | null, handle?: string) => void,
  ): void {
    const handle = `${randomBytes(12).toString('base64url')} &=+ü`; // awkward on purpose: must come back byte for byte
    this.pending.set(handle, verifier);
    done(null, handle);
  }
  verify(_req: unknown, handle: string, done: (err: Error | null, ok: string | false, info?: unknown) => void): void {
    const verifier = this.pending.get(handle);
    this.pending.delete(handle);
    done(null, verifier ?? false, verifier ? handle : { message: 'unknown state' });
  }
}

describe('install flow driven by passport-oauth2', () => {
  let t: TestApp;
  let app: Awaited<ReturnType<typeof createApp>>;
  let user: { email: string; password: string };
  let account: { hubId: number };
  const callbackURL = 'http://127.0.0.1:4999/oauth/callback';

  beforeAll(async () => {
    t = await startTestApp({ modules: [InstallPageModule], listen: true });
    const dev = await createAccount(t);
    account = await createAccount(t, { tier: 'professional' });
    user = await createUser(t, { hubIds: [account.hubId] });
    app = await createApp(t, {
      developerHubId: dev.hubId,
      name: 'Passport App',
      redirectUrls: [callbackURL],
      requiredScopes: ['oauth', 'crm.objects.contacts.read'],
      optionalScopes: ['crm.lists.read', 'crm.objects.custom.read'],
    });
  });
  afterAll(() => t.close());

  function strategy(store: MemoryPkceStore, verify?: (...args: unknown[]) => void) {
    const s = new OAuth2Strategy(
      {
        authorizationURL: `${t.url}/oauth/authorize`,
        tokenURL: `${t.url}/oauth/v1/token`,
        clientID: app.clientId,
        clientSecret: app.clientSecret,
        callbackURL,
        scope: ['oauth', 'crm.objects.contacts.read'],
        state: true,
        pkce: true,
        store,
      } as never,
      (verify ??
        ((
          accessToken: string,
          refreshToken: string,
          params: Record<string, unknown>,
          _profile: unknown,
          done: (e: null, u: unknown) => void,
        ) => done(null, { accessToken, refreshToken, params }))) as never,
    );
    s.authorizationParams = () => ({ optional_scope: 'crm.lists.read crm.objects.custom.read' });
    return s;
  }

  /** Plays the user on the page: sign in, consent for the only account; returns where the page redirected. */
  async function installThroughPage(authorizeUrl: string, decision: 'approve' | 'deny'): Promise<URL> {
    const b = new InstallPageBrowser(t);
    const path = authorizeUrl.slice(t.url.length);
    const signIn = await b.get(path);
    expect(signIn.statusCode).toBe(200);
    const afterSignIn = await b.submit(signIn, '/oauth/authorize/sign-in', {
      email: user.email,
      password: user.password,
    });
    expect(afterSignIn.statusCode).toBe(303);
    const chooser = await b.get(afterSignIn.headers.location as string);
    const chosen = await b.submit(chooser, '/oauth/authorize/account', { hub_id: String(account.hubId) });
    const consent = await b.get(chosen.headers.location as string);
    expect(consent.statusCode).toBe(200);
    const done = await b.submit(consent, '/oauth/authorize/decision', { decision });
    expect(done.statusCode).toBe(302);
    return new URL(done.headers.location as string);
  }

  it('builds an authorize URL the page accepts, and exchanges the code (with PKCE) at the real token endpoint', async () => {
    const store = new MemoryPkceStore();
    const s = strategy(store);
    const start = await authenticate(s);
    expect(start).toEqual({ redirect: expect.stringContaining(`${t.url}/oauth/authorize?`) });
    const authorizeUrl = new URL((start as { redirect: string }).redirect);
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('response_type')).toBe('code');

    const callback = await installThroughPage(authorizeUrl.href, 'approve');
    expect(`${callback.origin}${callback.pathname}`).toBe(callbackURL);
    const [handle] = [...store.pending.keys()];
    expect(callback.searchParams.get('state')).toBe(handle);

    const end = await authenticate(s, Object.fromEntries(callback.searchParams));
    if ('error' in end) throw end.error;
    expect(end).toMatchObject({ user: { accessToken: expect.any(String), refreshToken: expect.any(String) } });
    const { params, accessToken, refreshToken } = (
      end as { user: { params: Record<string, unknown>; accessToken: string; refreshToken: string } }
    ).user;
    expect(params).toMatchObject({ token_type: 'bearer', expires_in: 1800, hub_id: account.hubId });
    // node-oauth hands the refresh token over separately and takes it out of the parsed body.
    expect(oauthSchemaProblems('AccessTokenResponse', { ...params, refresh_token: refreshToken })).toEqual([]);
    // Professional tier: the enterprise-only optional scope was dropped, the other one granted.
    expect(params.scopes).toEqual(expect.arrayContaining(['oauth', 'crm.objects.contacts.read', 'crm.lists.read']));
    expect(params.scopes).not.toContain('crm.objects.custom.read');

    const info = await fetch(`${t.url}/oauth/v1/access-tokens/${accessToken}`);
    expect(info.status).toBe(200);
    const infoBody = await info.json();
    expect(infoBody).toMatchObject({ hub_id: account.hubId, app_id: app.appId, token_type: 'access' });
    expect(oauthSchemaProblems('AccessTokenInfoResponse', infoBody)).toEqual([]);

    // The code is single use: replaying the callback fails at the token endpoint.
    store.pending.set(handle!, 'x'.repeat(43));
    const replay = await authenticate(s, Object.fromEntries(callback.searchParams));
    expect(replay).toEqual({ error: expect.objectContaining({ name: 'TokenError' }) });
  });

  it('turns a deny on the page into passport’s fail (access_denied)', async () => {
    const store = new MemoryPkceStore();
    const s = strategy(store);
    const start = (await authenticate(s)) as { redirect: string };
    const callback = await installThroughPage(start.redirect, 'deny');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(await authenticate(s, Object.fromEntries(callback.searchParams))).toEqual({
      fail: { message: undefined },
      status: undefined,
    });
  });

  it('refuses a code redeemed with the wrong PKCE verifier', async () => {
    const store = new MemoryPkceStore();
    const s = strategy(store);
    const start = (await authenticate(s)) as { redirect: string };
    const callback = await installThroughPage(start.redirect, 'approve');
    const handle = callback.searchParams.get('state')!;
    store.pending.set(handle, randomBytes(32).toString('base64url'));
    const end = await authenticate(s, Object.fromEntries(callback.searchParams));
    expect(end).toEqual({ error: expect.objectContaining({ name: 'TokenError' }) });
  });
});
