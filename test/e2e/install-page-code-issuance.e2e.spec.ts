import type { LightMyRequestResponse } from 'fastify';
import { CODE_ISSUANCE_LIMITS } from '../../src/oauth/install-page/code-issuance-limit';
import { allEvents } from '../support/oauth-fixtures';
import { InstallPageBrowser } from '../support/install-page-browser';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

const REDIRECT = 'https://app.example.com/cb';

/** One signed-in user replaying the consent form must not mint codes (and events) without end. */
describe('install page: authorization codes per user and per install are bounded', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(); // RATE_LIMIT_ENABLED=false: this bound is a security control
  });
  afterAll(() => t.close());

  /** Signed in, on the consent page of `clientId` in `hubId`: the approve form, ready to replay. */
  async function consentPage(clientId: string, hubId: number, user: { email: string; password: string }) {
    const q = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, scope: 'oauth' }).toString();
    const b = new InstallPageBrowser(t);
    const signIn = await b.get(`/oauth/${hubId}/authorize?${q}`);
    await b.submit(signIn, '/oauth/authorize/sign-in', { email: user.email, password: user.password });
    const consent = await b.get(`/oauth/${hubId}/authorize?${q}`);
    expect(consent.statusCode).toBe(200);
    return () => b.submit(consent, '/oauth/authorize/decision', { decision: 'approve' });
  }
  const codeOf = (r: LightMyRequestResponse) => new URL(String(r.headers.location)).searchParams.get('code');
  const codesIssued = async () => (await allEvents(t)).filter((e) => e.type === 'oauth.AuthorizationCodeIssued').length;

  it('per install: past the bound in a minute the replayed approval is a 429 page with Retry-After, and nothing is stored', async () => {
    const dev = await createAccount(t);
    const app = await createApp(t, { developerHubId: dev.hubId, redirectUrls: [REDIRECT] });
    const hub = await createAccount(t);
    const user = await createUser(t, { hubIds: [hub.hubId] });
    const approve = await consentPage(app.clientId, hub.hubId, user);
    for (let i = 0; i < CODE_ISSUANCE_LIMITS.perInstall; i++) {
      const r = await approve();
      expect(r.statusCode).toBe(302);
      expect(codeOf(r)).toBeTruthy();
    }
    const before = await codesIssued();
    const refused = await approve();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('Too many installs');
    expect(refused.headers.location).toBeUndefined();
    for (let i = 0; i < 50; i++) expect((await approve()).statusCode).toBe(429);
    expect(await codesIssued()).toBe(before);

    // Another user of the same install is refused too (the install's bound), until the window passes.
    const colleague = await createUser(t, { hubIds: [hub.hubId] });
    expect((await (await consentPage(app.clientId, hub.hubId, colleague))()).statusCode).toBe(429);
    t.clock.advance(CODE_ISSUANCE_LIMITS.windowMs);
    expect((await approve()).statusCode).toBe(302);
  });

  it('per user: across apps and accounts, past the bound in a minute', async () => {
    const dev = await createAccount(t);
    const hubs = await Promise.all([1, 2, 3, 4].map(() => createAccount(t)));
    const app = await createApp(t, { developerHubId: dev.hubId, redirectUrls: [REDIRECT] });
    const user = await createUser(t, { hubIds: hubs.map((h) => h.hubId) });
    const statuses: number[] = [];
    for (const hub of hubs) {
      const approve = await consentPage(app.clientId, hub.hubId, user);
      for (let i = 0; i < CODE_ISSUANCE_LIMITS.perInstall; i++) statuses.push((await approve()).statusCode);
    }
    expect(statuses.filter((s) => s === 302)).toHaveLength(CODE_ISSUANCE_LIMITS.perUser);
    expect(statuses.slice(CODE_ISSUANCE_LIMITS.perUser).every((s) => s === 429)).toBe(true);
    t.clock.advance(CODE_ISSUANCE_LIMITS.windowMs);
  });
});
