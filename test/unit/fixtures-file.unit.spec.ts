import Ajv2020 from 'ajv/dist/2020';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixturesError, loadFixtures, parseFixtures } from '../../src/directory/fixtures/fixtures-file';
import { StartupRefusal } from '../../src/platform/core/startup-refusal';

const ROOT = join(__dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'fixtures.json');

const problemsOf = (doc: unknown): string[] => {
  try {
    parseFixtures(JSON.stringify(doc), 'f.json');
  } catch (error) {
    expect(error).toBeInstanceOf(FixturesError);
    expect(error).toBeInstanceOf(StartupRefusal); // start-up prints its message, no stack trace
    return (error as FixturesError).problems;
  }
  throw new Error('accepted');
};

const account = { domain: 'dev.example.com', tier: 'professional' };
const app = {
  developerAccount: 'dev.example.com',
  name: 'App',
  clientId: 'client-1',
  clientSecret: 'secret-123456',
  redirectUrls: ['https://app.example.com/cb'],
  requiredScopes: ['oauth'],
};

describe('fixtures file', () => {
  it('reads examples/fixtures.json, which the published schema also accepts', () => {
    const doc = loadFixtures(EXAMPLE);
    expect(doc.accounts).toHaveLength(1);
    expect(doc.apps[0]).toMatchObject({
      clientId: '3c1e8f2a-4b7d-4e55-9a61-0f2d8c7b6a10',
      optionalScopes: expect.any(Array),
    });
    expect(doc.users[0]!.accounts).toEqual(['my-company.example.com']);
    const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'fixtures.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(JSON.parse(readFileSync(EXAMPLE, 'utf8')))).toBe(true);
    expect(validate({ apps: [{ ...app, requiredScopes: [] }] })).toBe(false);
  });

  it('lists every problem of a bad file at once: unknown scope, duplicate client id, bad redirect URL, ...', () => {
    const problems = problemsOf({
      accounts: [account, { ...account, tier: 'gold', settings: { timeZone: 'Mars/Olympus' } }],
      users: [{ email: 'a@example.com', password: 'short', accounts: ['nowhere.example.com'] }],
      apps: [
        { ...app, requiredScopes: ['oauth', 'no.such.scope'] },
        { ...app, redirectUrls: ['http://app.example.com/cb'] },
        { ...app, clientId: 'client-2', developerAccount: 'other.example.com', requiredScopes: [] },
      ],
      extra: true,
    });
    expect(problems).toEqual([
      'unknown field "extra"',
      'accounts[1].tier must be one of free, starter, professional, enterprise',
      expect.stringMatching(/^accounts\[1\]\.settings\.timeZone: /),
      'users[0].password must be 8 to 256 characters',
      'users[0].accounts[0]: no account with domain nowhere.example.com in this file',
      'apps[0].requiredScopes: Unknown scope: no.such.scope',
      'apps[1].redirectUrls[0]: A redirect URL must use https (http is allowed for localhost only)',
      'apps[2].developerAccount: no account with domain other.example.com in this file',
      'apps[2].requiredScopes: an app needs at least one required scope',
      'accounts[1].domain: duplicate domain dev.example.com (also accounts[0].domain)',
      'apps[1].clientId: duplicate client id client-1 (also apps[0].clientId)',
    ]);
  });

  it('refuses what is not a fixtures document, naming the file', () => {
    expect(() => parseFixtures('{"accounts": [', 'f.json')).toThrow(
      /Invalid fixtures file f\.json:\n {2}- is not JSON/,
    );
    expect(problemsOf([])).toEqual(['must be a JSON object with accounts, users and apps']);
    expect(problemsOf({ accounts: {}, apps: [1] })).toEqual(['accounts must be an array', 'apps[0] must be an object']);
    expect(() => loadFixtures(join(ROOT, 'no-such-file.json'))).toThrow(/cannot be read/);
  });

  it('checks installs: the app, the account and a user of that account, each of the file', () => {
    const user = { email: 'a@example.com', password: 'password-1', accounts: ['dev.example.com'] };
    const ok = { accounts: [account, { domain: 'b.example.com', tier: 'free' }], users: [user], apps: [app] };
    expect(
      parseFixtures(
        JSON.stringify({ ...ok, installs: [{ app: 'client-1', account: 'dev.example.com', user: 'A@example.com' }] }),
      ).installs,
    ).toEqual([{ app: 'client-1', account: 'dev.example.com', user: 'a@example.com' }]);
    expect(
      problemsOf({
        ...ok,
        installs: [
          { app: 'client-9', account: 'c.example.com', user: 'nobody@example.com' },
          { app: 'client-1', account: 'b.example.com', user: 'a@example.com' },
          { app: 'client-1', account: 'b.example.com', user: 'a@example.com' },
        ],
      }),
    ).toEqual([
      'installs[0].app: no app with client id client-9 in this file',
      'installs[0].account: no account with domain c.example.com in this file',
      'installs[0].user: no user with e-mail nobody@example.com in this file',
      'installs[1].user: a@example.com is not a user of b.example.com',
      'installs[2].user: a@example.com is not a user of b.example.com',
      'installs[2]: duplicate install of client-1 in b.example.com (also installs[1])',
    ]);
  });

  it('takes given ids, and refuses duplicates of them', () => {
    const doc = parseFixtures(
      JSON.stringify({ accounts: [{ ...account, hubId: 12345678 }], apps: [{ ...app, appId: 7 }] }),
    );
    expect(doc.accounts[0]).toMatchObject({ hubId: 12345678, hublet: 'na1' });
    expect(doc.apps[0]).toMatchObject({ appId: 7, optionalScopes: [] });
    expect(
      problemsOf({
        accounts: [
          { ...account, hubId: 5 },
          { domain: 'b.example.com', tier: 'free', hubId: 5 },
        ],
        users: [{ userId: 0, email: 'a@example.com', password: 'password-1', accounts: [] }],
      }),
    ).toEqual([
      'users[0].userId must be an integer from 1 to 2147483647',
      'accounts[1].hubId: duplicate hubId 5 (also accounts[0].hubId)',
    ]);
  });
});
