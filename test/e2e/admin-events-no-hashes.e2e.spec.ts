import { exportEvents, parseExportRange } from '../../src/platform/archive/audit-export';
import { allEvents } from '../support/oauth-fixtures';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

/** GET /admin/v1/events and audit:export leave credential hashes out (issue 14, finding 11; issue 26, item 10). */
describe('audit trail API without credential hashes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers user, app and developer-key events without password, client-secret or key hashes', async () => {
    const dev = await createAccount(t);
    await createUser(t, { hubIds: [dev.hubId] });
    await createApp(t, { developerHubId: dev.hubId });
    const key = await t.admin('POST', `/admin/v1/accounts/${dev.hubId}/developer-api-keys`);
    expect(key.statusCode).toBeLessThan(300);

    // the store keeps them (sign-in and client authentication need them)...
    const stored = (await allEvents(t)).map((e) => e.data as Record<string, unknown>);
    const hashes = stored.flatMap((d) => [d.passwordHash, d.clientSecretHash, d.keyHash]).filter(Boolean) as string[];
    expect(hashes.length).toBeGreaterThanOrEqual(3);

    // ...the API does not hand them out
    const listed = await t.admin('GET', '/admin/v1/events?limit=1000');
    expect(listed.statusCode).toBe(200);
    for (const hash of hashes) expect(listed.body).not.toContain(hash);
    for (const field of ['passwordHash', 'clientSecretHash', 'keyHash']) expect(listed.body).not.toContain(field);
    const types = listed.json().results.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['directory.UserCreated', 'directory.AppRegistered']));
    const user = listed.json().results.find((e: { type: string }) => e.type === 'directory.UserCreated');
    expect(user.data).toMatchObject({ email: expect.any(String), hubIds: [dev.hubId] });

    // ...nor does audit:export (the same rule: what the API withholds, the export withholds)
    const exported = [...exportEvents(t.dataDir, parseExportRange([]))].join('\n');
    expect(exported).toContain('directory.UserCreated');
    for (const hash of hashes) expect(exported).not.toContain(hash);
    for (const field of ['passwordHash', 'clientSecretHash', 'keyHash']) expect(exported).not.toContain(field);
  });
});
