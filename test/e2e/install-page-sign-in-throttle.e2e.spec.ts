import { SIGN_IN_FAILURES } from '../../src/oauth/install-page/sign-in-throttle';
import { InstallPageBrowser } from '../support/install-page-browser';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

/** Brute force against the install page's sign-in form: refused before the password is checked. */
describe('install page sign-in throttle', () => {
  let t: TestApp;
  let installQuery: string;

  async function setUp(env: Record<string, string> = {}) {
    t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'true', ...env } });
    const dev = await createAccount(t);
    const app = await createApp(t, { developerHubId: dev.hubId, redirectUrls: ['https://app.example.com/cb'] });
    installQuery = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: 'https://app.example.com/cb',
      scope: 'oauth',
    }).toString();
  }
  /** Each sign-in is a real scrypt check (and each user a scrypt hash): slow on a busy 2-core machine. */
  const SCRYPT_HEAVY_MS = 120_000;
  const newUser = async () => createUser(t, { hubIds: [(await createAccount(t)).hubId] });

  /** The sign-in page opened, ready to post (what a browser has before it submits). */
  async function openSignIn(headers: Record<string, string> = {}) {
    const b = new InstallPageBrowser(t, headers);
    const page = await b.get(`/oauth/authorize?${installQuery}`);
    return (email: string, password: string) => b.submit(page, '/oauth/authorize/sign-in', { email, password });
  }
  async function signIn(email: string, password: string, headers: Record<string, string> = {}) {
    return (await openSignIn(headers))(email, password);
  }

  describe('per e-mail, without a proxy', () => {
    beforeAll(() => setUp(), SCRYPT_HEAVY_MS);
    afterAll(() => t.close());

    it(
      'gives a burst of 68 parallel wrong passwords at most the budget of checks; the right one last in the burst does not sign in',
      async () => {
        const user = await newUser();
        const forms = await Promise.all(Array.from({ length: 68 }, () => openSignIn()));
        const answers = await Promise.all(
          forms.map((post, i) => post(user.email, i === forms.length - 1 ? user.password : `wrong-password-${i}`)),
        );
        const statuses = answers.map((a) => a.statusCode);
        expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(SIGN_IN_FAILURES.perEmail);
        expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(68 - SIGN_IN_FAILURES.perEmail);
        expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
        expect(statuses.at(-1)).toBe(429);
        expect(answers.at(-1)!.headers['set-cookie'] ?? '').not.toContain('userId');
      },
      SCRYPT_HEAVY_MS,
    );

    it(
      'locks an e-mail with a back-off that grows and is bounded, and lets the right password in once it passes',
      async () => {
        const user = await newUser();
        for (let i = 0; i < SIGN_IN_FAILURES.perEmail; i++) {
          expect((await signIn(user.email, `wrong-password-${i}`)).statusCode).toBe(401);
        }
        const refused = await signIn(user.email, user.password);
        expect(refused.statusCode).toBe(429);
        expect(refused.headers['retry-after']).toBe('60');
        expect(refused.body).toContain('Too many failed sign-ins. Try again in 1 minute.');
        expect(refused.headers['set-cookie'] ?? '').not.toContain('userId');

        // the e-mail's lock does not block other users from the same address (under its own budget)
        const other = await newUser();
        expect((await signIn(other.email, other.password)).statusCode).toBe(303);

        // each failure after the lock doubles it: 2, 4, 8, then 15 minutes at most
        const locks: string[] = [];
        for (let i = 0; i < 5; i++) {
          t.clock.advance(SIGN_IN_FAILURES.maxLockMs);
          expect((await signIn(user.email, 'wrong-again')).statusCode).toBe(401);
          locks.push(String((await signIn(user.email, user.password)).headers['retry-after']));
        }
        expect(locks).toEqual(['120', '240', '480', '900', '900']);

        // never a wall: once the lock passes the right password signs in, and clears the count
        t.clock.advance(SIGN_IN_FAILURES.maxLockMs);
        expect((await signIn(user.email, user.password)).statusCode).toBe(303);
        expect((await signIn(user.email, 'one-typo')).statusCode).toBe(401);
        expect((await signIn(user.email, user.password)).statusCode).toBe(303);
      },
      SCRYPT_HEAVY_MS,
    );

    it(
      `refuses an address after ${SIGN_IN_FAILURES.perAddress} failures across e-mails, and ignores X-Forwarded-For when no proxy is trusted`,
      async () => {
        t.clock.advance(SIGN_IN_FAILURES.forgetAfterMs);
        const user = await newUser();
        for (let i = 0; i < SIGN_IN_FAILURES.perAddress; i++) {
          const forged = { 'x-forwarded-for': `198.51.100.${i}` };
          expect((await signIn(`nobody-${i}@example.com`, 'wrong-password', forged)).statusCode).toBe(401);
        }
        expect((await signIn(user.email, user.password, { 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(429);
        t.clock.advance(SIGN_IN_FAILURES.baseLockMs);
        expect((await signIn(user.email, user.password)).statusCode).toBe(303);
      },
      SCRYPT_HEAVY_MS,
    );
  });

  describe.each(['127.0.0.1', '1', '127.0.0.0/8,::1'])('behind a trusted proxy (TRUST_PROXY=%s)', (trustProxy) => {
    beforeAll(() => setUp({ TRUST_PROXY: trustProxy }), SCRYPT_HEAVY_MS);
    afterAll(() => t.close());

    it(
      'locks the address that failed, not everyone behind the proxy',
      async () => {
        const attacker = { 'x-forwarded-for': '198.51.100.7' };
        const user = await newUser();
        for (let i = 0; i < SIGN_IN_FAILURES.perAddress; i++) {
          expect((await signIn(`nobody-${i}@example.com`, 'wrong-password', attacker)).statusCode).toBe(401);
        }
        expect((await signIn(user.email, user.password, attacker)).statusCode).toBe(429);
        // another client through the same proxy signs in
        expect((await signIn(user.email, user.password, { 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(303);
      },
      SCRYPT_HEAVY_MS,
    );
  });
});
