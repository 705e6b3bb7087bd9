import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { applyFixtures } from '../../src/apply-fixtures';
import { FixturesError, loadFixtures, parseFixtures, type FixturesDocument } from '../../src/directory';
import type { CommandContext } from '../../src/platform/events/envelope';
import { allEvents, exchangeCode, installCode, type OAuthFixture } from '../support/oauth-fixtures';
import { mintRecordsToken } from '../support/records-tokens';
import { startTestApp, type TestApp } from '../support/test-app';

/** FIXTURES (issue 39, item 1): the example file applied, applied again, changed, and its app through OAuth. */
const EXAMPLE = join(__dirname, '..', '..', 'examples', 'fixtures.json');
const ctx: CommandContext = { correlationId: 'fixtures', causationId: null, actor: 'system:fixtures' };

describe('declared fixtures', () => {
  let t: TestApp;
  const example = loadFixtures(EXAMPLE);
  const apply = (doc: FixturesDocument) => applyFixtures(t.app, doc, 'examples/fixtures.json', ctx);
  beforeAll(async () => {
    t = await startTestApp();
  });
  let restartedDataDir: string | undefined;
  afterAll(async () => {
    await t.close();
    if (restartedDataDir) rmSync(restartedDataDir, { recursive: true, force: true });
  });

  it('applies the example as ordinary commands: account, user and an app with the given client id', async () => {
    const applied = await apply(example);
    expect(applied.changes).toEqual([
      expect.stringMatching(/^account my-company\.example\.com created \(hubId \d+\)$/),
      expect.stringMatching(/^user dev@my-company\.example\.com created/),
      expect.stringMatching(/^app 3c1e8f2a-4b7d-4e55-9a61-0f2d8c7b6a10 registered/),
    ]);
    const hubId = applied.hubIds['my-company.example.com']!;
    const account = (await t.admin('GET', `/admin/v1/accounts/${hubId}`)).json();
    expect(account).toMatchObject({ tier: 'professional', accountType: 'APP_DEVELOPER', timeZone: 'Europe/London' });
    const app = (await t.admin('GET', `/admin/v1/apps/${applied.appIds[example.apps[0]!.clientId]}`)).json();
    expect(app).toMatchObject({ clientId: example.apps[0]!.clientId, developerHubId: hubId });
    const events = (await allEvents(t)).filter((e) => e.metadata.actor === 'system:fixtures');
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['directory.AccountCreated', 'directory.UserCreated', 'directory.AppRegistered']),
    );
    // Secrets only as hashes.
    const stored = JSON.stringify(await allEvents(t));
    expect(stored).not.toContain(example.apps[0]!.clientSecret);
    expect(stored).not.toContain(example.users[0]!.password);
  });

  it('an account has HubSpot’s sample contacts, as a new HubSpot account has; not with sampleRecords: false', async () => {
    const applied = await apply(example);
    const contacts = async (hubId: number) => {
      const r = await t.inject({
        method: 'GET',
        url: '/crm/v3/objects/contacts?properties=email,lastname',
        headers: { authorization: `Bearer ${mintRecordsToken(t, hubId)}` },
      });
      expect(r.statusCode).toBe(200);
      return (r.json().results as Array<{ properties: Record<string, string> }>).map((c) => c.properties);
    };
    expect(await contacts(applied.hubIds['my-company.example.com']!)).toEqual([
      expect.objectContaining({ email: 'emailmaria@hubspot.com', lastname: 'Johnson (Sample Contact)' }),
      expect.objectContaining({ email: 'bh@hubspot.com', lastname: 'Halligan (Sample Contact)' }),
    ]);
    const bare = await apply({
      ...example,
      accounts: [
        ...example.accounts,
        { domain: 'bare.example.com', tier: 'free', hublet: 'na1', sampleRecords: false },
      ],
    });
    expect(await contacts(bare.hubIds['bare.example.com']!)).toEqual([]);
    const wrong = { accounts: [{ domain: 'x.example.com', tier: 'free', sampleRecords: 'yes' }] };
    expect(() => parseFixtures(JSON.stringify(wrong), 'x.json')).toThrow(
      /accounts\[0\]\.sampleRecords must be true or false/,
    );
  });

  it('applied twice changes nothing: no new events', async () => {
    const before = (await allEvents(t)).length;
    const again = await apply(example);
    expect(again.changes).toEqual([]);
    expect((await allEvents(t)).length).toBe(before);
  });

  it('a changed file is applied as changes, said in the result and in the audit trail', async () => {
    const changed: FixturesDocument = {
      ...example,
      accounts: [{ ...example.accounts[0]!, settings: { ...example.accounts[0]!.settings, companyCurrency: 'EUR' } }],
      apps: [{ ...example.apps[0]!, redirectUrls: ['http://localhost:4000/callback'] }],
    };
    const before = (await allEvents(t)).length;
    const applied = await apply(changed);
    expect(applied.changes).toEqual([
      'account my-company.example.com: companyCurrency changed',
      'app 3c1e8f2a-4b7d-4e55-9a61-0f2d8c7b6a10: redirectUrls changed',
    ]);
    expect((await allEvents(t)).length).toBe(before + 2);
    const trail = await t.admin('GET', '/admin/v1/events?type=directory.AppSettingsChanged');
    expect(trail.json().results.at(-1)).toMatchObject({
      data: { redirectUrls: ['http://localhost:4000/callback'] },
      metadata: { actor: 'system:fixtures' },
    });
    // Back to the file as it was: one change back, then nothing.
    expect((await apply(example)).changes).toHaveLength(2);
    expect((await apply(example)).changes).toEqual([]);
  });

  it('the app with the given client id and secret completes the OAuth code exchange; a changed secret is a rotation', async () => {
    const given = example.apps[0]!;
    const applied = await apply(example);
    const f: OAuthFixture = {
      hubId: applied.hubIds['my-company.example.com']!,
      domain: 'my-company.example.com',
      userId: applied.userIds['dev@my-company.example.com']!,
      email: 'dev@my-company.example.com',
      appId: applied.appIds[given.clientId]!,
      clientId: given.clientId,
      clientSecret: given.clientSecret,
      redirectUri: given.redirectUrls[0]!,
      requiredScopes: given.requiredScopes,
      optionalScopes: given.optionalScopes,
    };
    const { code } = await installCode(t, f);
    const r = await exchangeCode(t, f, code);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ token_type: 'bearer', hub_id: f.hubId, user_id: f.userId });

    const rotated = await apply({ ...example, apps: [{ ...given, clientSecret: 'a-new-secret-0001' }] });
    expect(rotated.changes).toEqual([`app ${given.clientId}: client secret changed`]);
    expect((await exchangeCode(t, f, (await installCode(t, f)).code)).statusCode).toBe(401);
    expect(JSON.stringify(await allEvents(t))).not.toContain('a-new-secret-0001');
    await apply(example);
  });

  it('given ids are used; a record the store refuses stops the start, named', async () => {
    const doc: FixturesDocument = {
      accounts: [{ hubId: 77_000_001, domain: 'given.example.com', tier: 'free', hublet: 'eu1' }],
      users: [
        { userId: 77_000_002, email: 'given@example.com', password: 'password-given', accounts: ['given.example.com'] },
      ],
      apps: [
        {
          appId: 77_000_003,
          developerAccount: 'given.example.com',
          name: 'Given',
          clientId: 'given-client',
          clientSecret: 'given-secret-1',
          redirectUrls: ['https://given.example.com/cb'],
          requiredScopes: ['oauth'],
          optionalScopes: [],
        },
      ],
      installs: [],
    };
    const applied = await apply(doc);
    expect(applied).toMatchObject({
      hubIds: { 'given.example.com': 77_000_001 },
      userIds: { 'given@example.com': 77_000_002 },
      appIds: { 'given-client': 77_000_003 },
    });
    // Another domain under a taken hubId.
    const taken = { ...doc, accounts: [{ ...doc.accounts[0]!, domain: 'other.example.com' }], users: [], apps: [] };
    await expect(apply(taken)).rejects.toThrow(FixturesError);
    await expect(apply(taken)).rejects.toThrow(
      /account other\.example\.com: An account with hubId 77000001 already exists/,
    );
  });

  it("publishes the file's schema in /docs", async () => {
    const docs = (await t.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(docs.components.schemas.FixturesFile).toMatchObject({
      type: 'object',
      properties: { accounts: { type: 'array' }, users: { type: 'array' }, apps: { type: 'array' } },
    });
    expect(docs.components.schemas.FixturesFile).not.toHaveProperty('$schema');
  });

  it('survives a restart: the same file on the same data changes nothing', async () => {
    const dataDir = t.dataDir;
    restartedDataDir = dataDir;
    await t.close({ keepData: true });
    t = await startTestApp({ dataDir });
    const before = (await allEvents(t)).length;
    expect((await apply(example)).changes).toEqual([]);
    expect((await allEvents(t)).length).toBe(before);
  });
});
