import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminKey, DEMO_ADMIN_KEY_FILE } from '../../src/platform/security/admin-key';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../support/test-app';

/**
 * Issue 39, item 3: the demo's admin key stays the same across restarts of one DATA_DIR (scripts and
 * docs keep working), and a refused key is told which key is expected.
 */
describe('the admin key', () => {
  let dataDir: string;
  let t: TestApp | undefined;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'hs-admin-key-'))));
  afterEach(async () => {
    await t?.close();
    t = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The demo mode: no ADMIN_API_KEY (SEED=demo, the seed itself is not needed here). */
  const startDemo = () => startTestApp({ dataDir, modules: [], env: { ADMIN_API_KEY: '', SEED: 'demo' } });
  const accounts = (authorization?: string) =>
    t!.inject({ method: 'GET', url: '/admin/v1/accounts', headers: authorization ? { authorization } : {} });

  it('in demo mode: kept in DATA_DIR (0600), the same after a restart, another DATA_DIR another key', async () => {
    t = await startDemo();
    const first = t.app.get(AdminKey);
    expect(first.generated).toBe(true);
    expect(first.value).toMatch(/^demo-admin-[A-Za-z0-9_-]{24}$/);
    expect((await accounts(`Bearer ${first.value}`)).statusCode).toBe(200);
    expect(statSync(join(dataDir, DEMO_ADMIN_KEY_FILE)).mode & 0o777).toBe(0o600);
    await t.close({ keepData: true });

    t = await startDemo();
    expect(t.app.get(AdminKey).value).toBe(first.value);
    expect((await accounts(`Bearer ${first.value}`)).statusCode).toBe(200);

    const refused = await accounts('Bearer demo-admin-AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toBe(
      `That demo admin key is not this service's (another DATA_DIR?): send the demo admin key printed in the start banner (it begins with demo-admin- and is kept in DATA_DIR/${DEMO_ADMIN_KEY_FILE}).`,
    );
    expect(refused.json().message).not.toContain(first.value);
  });

  it('with ADMIN_API_KEY: that key, and a refusal that names it, whatever was sent', async () => {
    t = await startTestApp({ dataDir, modules: [] });
    expect(t.app.get(AdminKey)).toMatchObject({ generated: false, value: TEST_ADMIN_KEY });
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'The admin API needs Authorization: Bearer <admin key>, with the value of ADMIN_API_KEY.'],
      ['Basic abc', 'The admin API needs Authorization: Bearer <admin key>, with the value of ADMIN_API_KEY.'],
      ['Bearer wrong-key-0123456789', "That is not this service's admin key: send the value of ADMIN_API_KEY."],
      [
        'Bearer demo-admin-AAAAAAAAAAAAAAAAAAAAAAAA',
        'That is a demo admin key, but this service runs with ADMIN_API_KEY: send its value.',
      ],
    ];
    for (const [authorization, message] of cases) {
      const r = await accounts(authorization);
      expect({ status: r.statusCode, body: r.json() }).toMatchObject({
        status: 401,
        body: { category: 'INVALID_AUTHENTICATION', message },
      });
    }
  });
});
