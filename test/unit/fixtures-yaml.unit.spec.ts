import { dump } from 'js-yaml';
import { join } from 'node:path';
import {
  FixturesError,
  loadFixtures,
  parseFixtures,
  parseFixturesYaml,
} from '../../src/directory/fixtures/fixtures-file';

const ROOT = join(__dirname, '..', '..');

const problems = (parse: () => unknown): string[] => {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(FixturesError);
    return (error as FixturesError).problems;
  }
  throw new Error('accepted');
};

/** Issue 39: FIXTURES=x.yaml is the same document as JSON, with the same schema and the same errors. */
describe('fixtures file in YAML', () => {
  it('reads examples/fixtures.yaml as the same document as examples/fixtures.json', () => {
    const yaml = loadFixtures(join(ROOT, 'examples', 'fixtures.yaml'));
    expect(yaml).toEqual(loadFixtures(join(ROOT, 'examples', 'fixtures.json')));
    expect(yaml.apps[0]!.clientId).toBe('3c1e8f2a-4b7d-4e55-9a61-0f2d8c7b6a10');
  });

  it('lists the same problems as the same document in JSON', () => {
    const bad = {
      accounts: [{ domain: 'dev.example.com', tier: 'gold' }],
      users: [{ email: 'a@example.com', password: 'short', accounts: ['nowhere.example.com'] }],
      apps: [
        {
          developerAccount: 'dev.example.com',
          name: 'App',
          clientId: 'client-1',
          clientSecret: 'secret-123456',
          redirectUrls: ['http://app.example.com/cb'],
          requiredScopes: ['oauth', 'no.such.scope'],
        },
      ],
      extra: true,
    };
    const fromYaml = problems(() => parseFixturesYaml(dump(bad), 'f.yaml'));
    expect(fromYaml).toEqual(problems(() => parseFixtures(JSON.stringify(bad), 'f.json')));
    expect(fromYaml).toContain('apps[0].requiredScopes: Unknown scope: no.such.scope');
    expect(fromYaml).toHaveLength(6);
  });

  it('reads plain scalars as JSON would: yes, no and dates stay strings, so they are checked as such', () => {
    const text = [
      'accounts:',
      '  - domain: dev.example.com',
      '    tier: no',
      'users:',
      '  - email: a@example.com',
      '    password: 2026-01-01',
      '    accounts: [dev.example.com]',
    ].join('\n');
    expect(problems(() => parseFixturesYaml(text, 'f.yaml'))).toEqual([
      'accounts[0].tier must be one of free, starter, professional, enterprise',
    ]);
    expect(parseFixturesYaml(text.replace('tier: no', 'tier: free'), 'f.yaml').users[0]!.password).toBe('2026-01-01');
  });

  it('refuses what is not YAML, and a key given twice, naming the file and the line', () => {
    expect(() => parseFixturesYaml('accounts: [', 'f.yaml')).toThrow(
      /Invalid fixtures file f\.yaml:\n {2}- is not YAML: /,
    );
    expect(problems(() => parseFixturesYaml('accounts: []\naccounts: []\n', 'f.yaml'))).toEqual([
      expect.stringMatching(/^is not YAML: duplicated mapping key \(2:1\)/),
    ]);
    expect(problems(() => parseFixturesYaml('- 1\n', 'f.yaml'))).toEqual([
      'must be a JSON object with accounts, users and apps',
    ]);
  });

  it('picks the reader by the extension: .yaml and .yml are YAML, anything else JSON', () => {
    expect(() => loadFixtures(join(ROOT, 'examples', 'fixtures.yaml'))).not.toThrow();
    expect(() => loadFixtures(join(ROOT, 'README.md'))).toThrow(/is not JSON/);
  });
});
