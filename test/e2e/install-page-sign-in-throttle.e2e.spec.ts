import { SIGN_IN_FAILURES } from '../../src/oauth/install-page/sign-in-throttle';
import { InstallPageBrowser } from '../support/install-page-browser';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

/** Brute force against the install page's sign-in form: refused before the password is checked. */
describe('install page sign-in throttle', () => {
  let t: TestApp;
  let installQuery: string;
  let user: { email: string; password: string };
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'true' } });
    const dev = await createAccount(t);
    const customer = await createAccount(t);
    user = await createUser(t, { hubIds: [customer.hubId] });
    const app = await createApp(t, { developerHubId: dev.hubId, redirectUrls: ['https://app.example.com/cb'] });
    installQuery = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: 'https://app.example.com/cb',
      scope: 'oauth',
    }).toString();
  });
  afterAll(() => t.close());

  async function signIn(email: string, password: string) {
    const b = new InstallPageBrowser(t);
    const page = await b.get(`/oauth/authorize?${installQuery}`);
    return b.submit(page, '/oauth/authorize/sign-in', { email, password });
  }

  it(`refuses the ${SIGN_IN_FAILURES.perEmail + 1}th attempt on one e-mail, even with the right password, until the window passes`, async () => {
    for (let i = 0; i < SIGN_IN_FAILURES.perEmail; i++) {
      expect((await signIn(user.email, `wrong-password-${i}`)).statusCode).toBe(401);
    }
    const refused = await signIn(user.email, user.password);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(SIGN_IN_FAILURES.windowMs / 1000));
    expect(refused.body).toContain('Too many failed sign-ins. Try again in 15 minutes.');
    expect(refused.headers['set-cookie'] ?? '').not.toContain('userId');

    // the e-mail's budget does not block other users from the same address (under its own budget)
    const other = await createUser(t, { hubIds: [(await createAccount(t)).hubId] });
    expect((await signIn(other.email, other.password)).statusCode).toBe(303);

    t.clock.advance(SIGN_IN_FAILURES.windowMs);
    expect((await signIn(user.email, user.password)).statusCode).toBe(303);
  });

  it(`refuses an address after ${SIGN_IN_FAILURES.perAddress} failures across e-mails`, async () => {
    t.clock.advance(SIGN_IN_FAILURES.windowMs);
    for (let i = 0; i < SIGN_IN_FAILURES.perAddress; i++) {
      expect((await signIn(`nobody-${i}@example.com`, 'wrong-password')).statusCode).toBe(401);
    }
    expect((await signIn(user.email, user.password)).statusCode).toBe(429);
    t.clock.advance(SIGN_IN_FAILURES.windowMs);
    expect((await signIn(user.email, user.password)).statusCode).toBe(303);
  });
});
