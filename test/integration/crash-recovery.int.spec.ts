import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemBootId } from '../../src/platform/projections/read-model-database';
import { ensureBuilt, httpRequest, startService, waitForExit } from '../support/service-process';

const ADMIN = 'crash-test-admin-key-0123456789';

/**
 * kill -9 during a burst of admin writes: after a restart every write that was acknowledged is
 * there, and nothing half-written is (each stream whole, read models equal to the store).
 */
describe('kill -9 during a burst of admin writes', () => {
  let dataDir: string;
  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-crash-'));
  }, 120_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every acknowledged write and nothing half-written', async () => {
    const env = { DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: ADMIN, LOG_LEVEL: 'info' };
    const first = await startService(env);
    const acknowledged: number[] = [];
    const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    let killed = false;
    // 400 writes, 32 at a time; the process is killed once 150 were acknowledged.
    const burst = Array.from({ length: 400 }, (_, i) => i);
    const worker = async () => {
      while (burst.length > 0 && !killed) {
        const i = burst.shift()!;
        try {
          const r = await httpRequest(`${first.url}/admin/v1/accounts`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ domain: `crash-${i}.example.com`, tier: 'starter' }),
          });
          if (r.status === 201) acknowledged.push((JSON.parse(r.body) as { hubId: number }).hubId);
          if (acknowledged.length >= 150 && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch {
          // connection cut by the kill: not acknowledged
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    if (!killed) first.child.kill('SIGKILL'); // never leave it running, even when the test fails
    await waitForExit(first.child);
    expect(killed).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);
    // Killed, not shut down: the read models still carry the mark of unsynced writes, with this
    // system's boot id, so the restart below resumes them instead of rebuilding.
    const mark = join(dataDir, 'readmodels.sqlite.unsynced');
    const bootId = systemBootId();
    if (bootId !== undefined) expect(readFileSync(mark, 'utf8')).toBe(bootId);

    const second = await startService(env);
    try {
      for (const hubId of acknowledged) {
        const r = await httpRequest(`${second.url}/admin/v1/accounts/${hubId}`, { headers });
        expect(r.status).toBe(200);
      }
      const ready = await httpRequest(`${second.url}/health/ready`);
      expect(ready.status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
      await waitForExit(second.child);
    }
    expect(second.output()).not.toContain('fatal');
    expect(second.output()).not.toContain('rebuilding them from the event history');
    // A clean shutdown synced the read models and removed the mark.
    expect(existsSync(mark)).toBe(false);

    // Nothing half-written: every account stream holds exactly one whole event, and the read model
    // (rebuilt or resumed after the crash) has exactly the accounts the store has.
    const events = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
    const perStream = events
      .prepare("SELECT stream_id, COUNT(*) AS n FROM events WHERE type = 'directory.AccountCreated' GROUP BY stream_id")
      .all() as Array<{ stream_id: string; n: number }>;
    expect(perStream.every((s) => s.n === 1)).toBe(true);
    for (const row of events.prepare('SELECT data FROM events').all() as Array<{ data: string }>) JSON.parse(row.data);
    const readModels = new Database(join(dataDir, 'readmodels.sqlite'), { readonly: true });
    const accounts = (readModels.prepare('SELECT COUNT(*) AS n FROM dir_accounts').get() as { n: number }).n;
    expect(accounts).toBe(perStream.length);
    events.close();
    readModels.close();
    // No secret of any kind in the store files in plain form.
    for (const f of readdirSync(dataDir).filter((f) => f.endsWith('.sqlite'))) {
      expect(readFileSync(join(dataDir, f)).includes(Buffer.from(ADMIN))).toBe(false);
    }
  }, 120_000);
});
