import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ensureBuilt,
  jsonRequest,
  startReliabilityService,
  stopService,
  type RunningService,
} from '../support/reliability-service';
import { TEST_ADMIN_KEY } from '../support/test-app';

/**
 * The recovery the start-up refusals recommend, done for real on the built service: back up
 * events.sqlite, write more, restore the backup, start. The read models were checkpointed past the
 * restored store's head; kept, they would serve accounts whose events are gone and skip the new
 * events written at positions they believe applied (a new account answered 201, then 404 forever).
 */
describe('reliability: an older backup of the event store restored under newer read models', () => {
  let dataDir: string;
  let backup: string;
  let service: RunningService | undefined;
  const env = () => ({ DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: TEST_ADMIN_KEY, RATE_LIMIT_ENABLED: 'false' });
  const admin = (method: string, path: string, json?: unknown) =>
    jsonRequest(`${service!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
      ...(json === undefined ? {} : { json }),
    });
  const createAccount = async (domain: string): Promise<number> => {
    const r = await admin('POST', '/admin/v1/accounts', { domain, tier: 'enterprise' });
    expect(r.status).toBe(201);
    return r.body.hubId as number;
  };
  const eventFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('events.sqlite'));

  beforeAll(() => ensureBuilt(), 180_000);
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'hs-restore-'));
    backup = join(dataDir, '..', `${dataDir.split('/').pop()}-backup`);
    mkdirSync(backup);
  });
  afterEach(async () => {
    if (service) await stopService(service, 'SIGKILL');
    service = undefined;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(backup, { recursive: true, force: true });
  });

  it('rebuilds the read models that are ahead (said in the log); new writes are then found', async () => {
    service = await startReliabilityService(env());
    const kept = await createAccount('kept.example.com');
    await stopService(service);
    for (const f of eventFiles(dataDir)) copyFileSync(join(dataDir, f), join(backup, f));

    service = await startReliabilityService(env());
    const lost = [];
    for (let i = 0; i < 4; i++) lost.push(await createAccount(`lost-${i}.example.com`));
    await stopService(service);

    for (const f of eventFiles(dataDir)) rmSync(join(dataDir, f));
    for (const f of eventFiles(backup)) copyFileSync(join(backup, f), join(dataDir, f));
    service = await startReliabilityService(env());
    expect(service.output()).toMatch(/past the event store's newest event .*: rebuilding it from zero/);

    expect((await admin('GET', `/admin/v1/accounts/${kept}`)).status).toBe(200);
    for (const hubId of lost) expect((await admin('GET', `/admin/v1/accounts/${hubId}`)).status).toBe(404);
    const fresh = await createAccount('fresh.example.com');
    expect((await admin('GET', `/admin/v1/accounts/${fresh}`)).status).toBe(200);
    const listed = await admin('GET', '/admin/v1/accounts');
    const domains = (JSON.stringify(listed.body).match(/[a-z0-9-]+\.example\.com/g) ?? []).sort();
    expect([...new Set(domains)]).toEqual(['fresh.example.com', 'kept.example.com']);
  }, 180_000);

  it('a database without events in place of events.sqlite is refused like a lost one, no read model wiped', async () => {
    service = await startReliabilityService(env());
    const kept = await createAccount('kept.example.com');
    await stopService(service);
    service = undefined;
    for (const f of eventFiles(dataDir)) rmSync(join(dataDir, f));
    const db = new Database(join(dataDir, 'events.sqlite'));
    db.exec('CREATE TABLE unrelated (a)');
    db.close();

    await expect(startReliabilityService(env())).rejects.toThrow(
      `${join(dataDir, 'events.sqlite')} holds no events, but readmodels.sqlite in DATA_DIR shows that an event history existed`,
    );
    // The read models are as they were: putting the store back brings the account back.
    expect(existsSync(join(dataDir, 'readmodels.sqlite'))).toBe(true);
    const rm = new Database(join(dataDir, 'readmodels.sqlite'), { readonly: true });
    const applied = rm.prepare('SELECT COUNT(*) AS n FROM projection_checkpoints WHERE position > 0').get() as {
      n: number;
    };
    rm.close();
    expect(applied.n).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
  }, 180_000);
});
