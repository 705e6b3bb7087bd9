import { CONSOLE_SIGN_IN_FAILURES } from '../../src/console/application/sign-in-throttle';
import { ConsoleClient } from '../support/console-client';
import { startTestApp, type TestApp } from '../support/test-app';

/** Guessing the admin key at /console/sign-in: refused per client address and overall, before the key is compared. */
describe('console sign-in throttle', () => {
  let t: TestApp;
  // Behind a trusted proxy the client's address is X-Forwarded-For's: one client per address here.
  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1' } });
  }, 30_000);
  afterAll(() => t.close());

  const from = (address: string) => new ConsoleClient(t, { 'x-forwarded-for': address });
  const forget = () => t.clock.advance(CONSOLE_SIGN_IN_FAILURES.forgetAfterMs + CONSOLE_SIGN_IN_FAILURES.maxLockMs);

  it('locks an address after its failures with a growing, bounded back-off (429 page, Retry-After), not other addresses', async () => {
    const attacker = from('198.51.100.7');
    for (let i = 0; i < CONSOLE_SIGN_IN_FAILURES.perAddress; i++) {
      expect((await attacker.signIn(`wrong-admin-key-${i}-0123456789`)).statusCode).toBe(401);
    }
    // The right key from the locked address is refused too: it is not even compared.
    const refused = await attacker.signIn();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['content-type']).toContain('text/html');
    expect(refused.body).toContain('Too many failed sign-ins. Try again in 1 minute.');
    expect(refused.body).toContain('name="_csrf"');
    expect([refused.headers['set-cookie'] ?? []].flat().join()).not.toMatch(/hs_console_session=1\./);
    expect((await attacker.get('/console/accounts')).statusCode).toBe(303);

    // Another address signs in.
    const other = from('203.0.113.9');
    expect((await other.signIn()).statusCode).toBe(303);
    expect((await other.get('/console/accounts')).statusCode).toBe(200);

    // Each failure after the lock doubles it, up to 15 minutes.
    const locks: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(CONSOLE_SIGN_IN_FAILURES.maxLockMs);
      expect((await attacker.signIn('still-the-wrong-admin-key')).statusCode).toBe(401);
      locks.push(String((await attacker.signIn()).headers['retry-after']));
    }
    expect(locks).toEqual(['120', '240', '480', '900', '900']);
    // Once the lock passes, the right key signs in.
    t.clock.advance(CONSOLE_SIGN_IN_FAILURES.maxLockMs);
    expect((await attacker.signIn()).statusCode).toBe(303);
    expect((await attacker.get('/console/accounts')).statusCode).toBe(200);
  });

  it('gives a parallel burst from one address no more key comparisons than its budget', async () => {
    forget();
    const clients = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const c = from('198.51.100.20');
        await c.get('/console/sign-in');
        return c;
      }),
    );
    const answers = await Promise.all(
      clients.map((c, i) => c.post('/console/sign-in', { adminKey: `wrong-${i}-0123456789abcdef` })),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(CONSOLE_SIGN_IN_FAILURES.perAddress);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  });

  it(`locks the form for everyone after ${CONSOLE_SIGN_IN_FAILURES.overall} failures from many addresses`, async () => {
    forget();
    for (let i = 0; i < CONSOLE_SIGN_IN_FAILURES.overall; i++) {
      // A new address every few guesses: no one address reaches its own lock.
      expect(
        (await from(`198.51.${100 + Math.floor(i / 5)}.${i % 5}`).signIn('wrong-admin-key-xxxxxxxxxx')).statusCode,
      ).toBe(401);
    }
    const anyone = await from('203.0.113.50').signIn();
    expect(anyone.statusCode).toBe(429);
    expect(Number(anyone.headers['retry-after'])).toBeGreaterThan(0);
    t.clock.advance(CONSOLE_SIGN_IN_FAILURES.baseLockMs);
    expect((await from('203.0.113.50').signIn()).statusCode).toBe(303);
  });

  it('ignores X-Forwarded-For when no proxy is trusted: the socket address is counted', async () => {
    const direct = await startTestApp();
    try {
      for (let i = 0; i < CONSOLE_SIGN_IN_FAILURES.perAddress; i++) {
        const forged = new ConsoleClient(direct, { 'x-forwarded-for': `198.51.100.${i}` });
        expect((await forged.signIn('wrong-admin-key-0123456789')).statusCode).toBe(401);
      }
      expect((await new ConsoleClient(direct, { 'x-forwarded-for': '203.0.113.9' }).signIn()).statusCode).toBe(429);
    } finally {
      await direct.close();
    }
  });
});
