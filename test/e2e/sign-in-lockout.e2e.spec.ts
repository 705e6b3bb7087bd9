import { SIGN_IN_FAILURES, SignInThrottle } from '../../src/oauth/install-page/sign-in-throttle';
import { InstallPageBrowser } from '../support/install-page-browser';
import { installAndExchange, oauthFixture, tokenRequest } from '../support/oauth-fixtures';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

/**
 * Security controls that no HubSpot-emulation switch turns off, and a lockout no flood of keys can
 * flush. The tests' default is RATE_LIMIT_ENABLED=false (test-app.ts): HubSpot's limits off.
 */
describe('sign-in lockout and client-authentication throttle, with RATE_LIMIT_ENABLED=false', () => {
  let t: TestApp;
  let installQuery: string;
  const SCRYPT_HEAVY_MS = 120_000;

  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'false' } });
    const dev = await createAccount(t);
    const app = await createApp(t, { developerHubId: dev.hubId, redirectUrls: ['https://app.example.com/cb'] });
    installQuery = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: 'https://app.example.com/cb',
      scope: 'oauth',
    }).toString();
  }, SCRYPT_HEAVY_MS);
  afterAll(() => t.close());

  const throttle = () => t.app.get(SignInThrottle, { strict: false });
  async function signIn(email: string, password: string) {
    const b = new InstallPageBrowser(t);
    const page = await b.get(`/oauth/authorize?${installQuery}`);
    return b.submit(page, '/oauth/authorize/sign-in', { email, password });
  }
  /** One failed password check of `email` from `address`, as the sign-in form settles it. */
  async function fail(email: string, address: string): Promise<boolean> {
    const gate = await throttle().reserve(email, address);
    if (gate.allowed) await gate.attempt.failed();
    return gate.allowed;
  }

  it(
    'locks an e-mail after its failed sign-ins (the right password then gets 429, not a session)',
    async () => {
      const user = await createUser(t, { hubIds: [(await createAccount(t)).hubId] });
      for (let i = 0; i < SIGN_IN_FAILURES.perEmail; i++) {
        expect((await signIn(user.email, `wrong-${i}`)).statusCode).toBe(401);
      }
      const refused = await signIn(user.email, user.password);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('60');
      expect(refused.headers['set-cookie'] ?? '').not.toContain('userId');
      t.clock.advance(SIGN_IN_FAILURES.forgetAfterMs + SIGN_IN_FAILURES.maxLockMs);
    },
    SCRYPT_HEAVY_MS,
  );

  it('a wall-clock step backwards does not stretch a lock past its 15-minute bound', async () => {
    const email = 'clock-step@example.com';
    for (let i = 0; i < SIGN_IN_FAILURES.perEmail; i++) expect(await fail(email, `192.0.2.${i}`)).toBe(true);
    const saved = t.clock.now();
    t.clock.set(saved - 46 * 60_000); // the host's clock corrected 46 minutes back
    const gate = await throttle().reserve(email, '192.0.2.200');
    t.clock.set(saved);
    expect(gate.allowed).toBe(false);
    expect((gate as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(SIGN_IN_FAILURES.baseLockMs);
    t.clock.advance(SIGN_IN_FAILURES.forgetAfterMs + SIGN_IN_FAILURES.maxLockMs);
  });

  it('bounds the queue of password checks: past 4 running and 64 waiting, 503 busy', async () => {
    const releases: Array<() => void> = [];
    const running: Array<Promise<unknown>> = [];
    for (let i = 0; i < 68; i++) {
      const gate = await throttle().reserve(`queued-${i}@example.com`, `198.51.100.${i}`);
      expect(gate.allowed).toBe(true);
      running.push(throttle().limitConcurrency(() => new Promise<void>((resolve) => releases.push(resolve))));
    }
    expect(await throttle().reserve('one-more@example.com', '203.0.113.1')).toEqual({ allowed: false, busy: true });
    // Let them all finish (each release lets a queued one start, which adds its own release).
    for (let done = 0; done < 68; done++) {
      while (releases.length === 0) await Promise.resolve();
      releases.shift()!();
      await Promise.resolve();
    }
    await Promise.all(running);
  });

  it('a locked address adds no e-mail keys: 100,000 made-up e-mails do not evict a locked e-mail', async () => {
    const victim = 'victim-one@example.com';
    const attacker = '198.51.100.250';
    for (let i = 0; i < SIGN_IN_FAILURES.perEmail; i++) expect(await fail(victim, attacker)).toBe(true);
    for (let i = SIGN_IN_FAILURES.perEmail; i < SIGN_IN_FAILURES.perAddress; i++) {
      expect(await fail(`filler-${i}@example.com`, attacker)).toBe(true);
    }
    for (let i = 0; i < 100_000; i++) expect(await fail(`made-up-${i}@example.com`, attacker)).toBe(false);
    const gate = await throttle().reserve(victim, '203.0.113.77');
    expect(gate.allowed).toBe(false);
    t.clock.advance(SIGN_IN_FAILURES.forgetAfterMs + SIGN_IN_FAILURES.maxLockMs);
  });

  it('a locked e-mail is kept apart: 100,001 new keys from fresh addresses do not evict it', async () => {
    const victim = 'victim-two@example.com';
    for (let i = 0; i < SIGN_IN_FAILURES.perEmail; i++) expect(await fail(victim, `203.0.113.${i}`)).toBe(true);
    for (let i = 0; i <= 100_000; i++) {
      const gate = await throttle().reserve(`fresh-${i}@example.com`, `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
      if (gate.allowed) await gate.attempt.succeeded();
    }
    expect((await throttle().reserve(victim, '203.0.113.99')).allowed).toBe(false);
    t.clock.advance(SIGN_IN_FAILURES.forgetAfterMs + SIGN_IN_FAILURES.maxLockMs);
  });

  it('throttles failed client authentication at the token endpoint: the 11th failure in a minute is 429', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    const bad = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: f.clientId };
    for (let i = 0; i < 10; i++) {
      expect((await tokenRequest(t, { ...bad, client_secret: `wrong-secret-${i}` })).statusCode).toBe(401);
    }
    const throttled = await tokenRequest(t, { ...bad, client_secret: 'wrong-secret' });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json()).toMatchObject({ policyName: 'CLIENT_AUTHENTICATION_FAILURES' });
  });
});
