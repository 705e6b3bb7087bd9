import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, freePort, serviceEnv, startService, waitForExit } from '../support/service-process';

/**
 * FIXTURES as `node dist/main.js` reads it: a bad file stops the start before DATA_DIR is touched,
 * every problem listed (exit 78, as a bad configuration); the example file applied on the first
 * start, and nothing on the second.
 */
const ROOT = join(__dirname, '..', '..');
const ADMIN = 'fixtures-admin-key-0123456789';

describe('FIXTURES at start', () => {
  let dataDir: string;
  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-fixtures-'));
  }, 180_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses a bad file with every problem listed, before DATA_DIR is touched', async () => {
    const bad = join(dataDir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        accounts: [{ domain: 'dev.example.com', tier: 'free' }],
        apps: [1, 2].map(() => ({
          developerAccount: 'dev.example.com',
          name: 'App',
          clientId: 'same-client',
          clientSecret: 'secret-123456',
          redirectUrls: ['ftp://app.example.com/cb'],
          requiredScopes: ['oauth', 'no.such.scope'],
        })),
      }),
    );
    const store = join(dataDir, 'store');
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
      env: serviceEnv(await freePort(), { DATA_DIR: store, SEED: 'none', ADMIN_API_KEY: ADMIN, FIXTURES: bad }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    await waitForExit(child);
    expect(child.exitCode).toBe(78);
    expect(stderr.trim().split('\n')).toEqual([
      `Invalid fixtures file ${bad}:`,
      '  - apps[0].redirectUrls[0]: A redirect URL must use https (http is allowed for localhost only)',
      '  - apps[0].requiredScopes: Unknown scope: no.such.scope',
      '  - apps[1].redirectUrls[0]: A redirect URL must use https (http is allowed for localhost only)',
      '  - apps[1].requiredScopes: Unknown scope: no.such.scope',
      '  - apps[1].clientId: duplicate client id same-client (also apps[0].clientId)',
    ]);
    expect(existsSync(join(store, 'events.sqlite'))).toBe(false);
  }, 60_000);

  it('applies examples/fixtures.json at the first start and nothing at the second (nor the YAML twin), saying so in the log', async () => {
    const env = {
      DATA_DIR: join(dataDir, 'ok'),
      SEED: 'none',
      ADMIN_API_KEY: ADMIN,
      FIXTURES: join(ROOT, 'examples', 'fixtures.json'),
    };
    const outputs: string[] = [];
    // The third start reads examples/fixtures.yaml: the same document in YAML, so nothing changes.
    for (let run = 0; run < 3; run++) {
      const fixtures = join(ROOT, 'examples', run < 2 ? 'fixtures.json' : 'fixtures.yaml');
      const service = await startService({ ...env, FIXTURES: fixtures });
      service.child.kill('SIGTERM');
      await waitForExit(service.child);
      outputs.push(service.output());
    }
    expect(outputs[0]).toMatch(/fixtures\.json applied: 3 change\(s\): account my-company\.example\.com created/);
    expect(outputs[1]).toMatch(/fixtures\.json applied: nothing changed/);
    expect(outputs[2]).toMatch(/fixtures\.yaml applied: nothing changed/);
    for (const o of outputs) expect(o).not.toContain('9a7f3c2e-1d4b-4f86-b0e5-7c6d5e4f3a21');
  }, 120_000);
});
