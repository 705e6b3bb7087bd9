import type Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryArchiveService } from '../../src/ops';
import { ArchiveFiles } from '../../src/platform/archive/archive-files';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import {
  ensureBuilt,
  readModelDigests,
  readModelFileDigests,
  startReliabilityService,
  stopService,
  type RunningService,
} from '../support/reliability-service';
import { httpSender, injectSender, runMixedWorkload } from '../support/reliability-workload';
import { waitForEvent } from '../support/cards-fixtures';
import { startTestApp, TEST_ADMIN_KEY } from '../support/test-app';
import { childEnv } from '../support/child-env';

const ROOT = join(__dirname, '..', '..');
const MODULE_PREFIXES = ['dir_', 'oauth_', 'cards_', 'limits_'];

/** Every module's read model holds rows after the workload (so equal digests mean something). */
function expectEveryModuleFilled(digests: Record<string, string>): void {
  for (const prefix of MODULE_PREFIXES) {
    const rows = Object.entries(digests)
      .filter(([table]) => table.startsWith(prefix))
      .reduce((n, [, d]) => n + Number(d.split(':')[0]), 0);
    expect({ prefix, filled: rows > 0 }).toEqual({ prefix, filled: true });
  }
}

/**
 * After a mixed workload over every module, each projection rebuilt from zero (replaying the
 * whole history) equals the live one, table by table (a digest of every row in canonical order).
 */
describe('reliability: projections rebuilt from zero equal the live ones', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('in-process: runner.rebuild(name) for each projection gives the same tables', async () => {
    const t = await startTestApp();
    try {
      const summary = await runMixedWorkload(injectSender(t), t.adminKey, () =>
        waitForEvent(t, (e) => e.type === 'cards.MigrationCompleted'),
      );
      expect(summary.migratedAccounts).toBe(3);
      const runner = t.app.get(ProjectionRunner);
      const db = t.app.get<Database.Database>(READ_MODEL_DB);
      await runner.waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition());
      const live = readModelDigests(db);
      expectEveryModuleFilled(live);
      const names = runner.projectionNames();
      expect(names.length).toBeGreaterThanOrEqual(4);
      for (const name of names) {
        await runner.rebuild(name);
        expect({ rebuilt: name, tables: readModelDigests(db) }).toEqual({ rebuilt: name, tables: live });
      }
      expect(runner.status().filter((s) => s.status === 'failed')).toEqual([]);
      // The comparison can fail: one row less in any table changes its digest.
      const [table] = Object.entries(live).find(([, d]) => Number(d.split(':')[0]) > 1)!;
      const column = (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>)[0]!.name;
      db.prepare(`DELETE FROM "${table}" WHERE "${column}" = (SELECT "${column}" FROM "${table}" LIMIT 1)`).run();
      expect(readModelDigests(db)[table]).not.toBe(live[table]);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('after an archive run (AUDIT_RETENTION_DAYS=7): rebuilt from the live store, every table is the same', async () => {
    const t = await startTestApp({ env: { AUDIT_RETENTION_DAYS: '7', ARCHIVE_BATCH_EVENTS: '50' } });
    try {
      const summary = await runMixedWorkload(injectSender(t), t.adminKey, () =>
        waitForEvent(t, (e) => e.type === 'cards.MigrationCompleted'),
      );
      expect(summary.migratedAccounts).toBe(3);
      const store = t.app.get<EventStore>(EVENT_STORE);
      const runner = t.app.get(ProjectionRunner);
      const db = t.app.get<Database.Database>(READ_MODEL_DB);
      t.clock.advance(8 * 86_400_000);
      await runner.waitFor(await store.headPosition());
      const archived = await t.app.get(HistoryArchiveService).runUntilCaughtUp();
      expect(archived).toBeGreaterThan(0);
      expect(new ArchiveFiles(t.dataDir).verify()).toMatchObject({ events: archived, problems: [] });
      await runner.waitFor(await store.headPosition());
      const all = readModelDigests(db);
      expectEveryModuleFilled(all);
      // The console's audit index points into the live history: it keeps the rows of archived
      // positions (pointing at no event: its readers leave them out); a rebuild indexes what is live.
      const INDEX = 'console_audit_index';
      const indexRows = () =>
        (
          db.prepare(`SELECT subject, position FROM ${INDEX}`).all() as Array<{ subject: string; position: number }>
        ).map((r) => `${r.subject}@${r.position}`);
      const liveIndex = indexRows();
      const { [INDEX]: _liveIndexDigest, ...live } = all;
      for (const name of runner.projectionNames()) {
        await runner.rebuild(name);
        const { [INDEX]: _indexDigest, ...tables } = readModelDigests(db);
        expect({ rebuilt: name, tables }).toEqual({ rebuilt: name, tables: live });
      }
      const rebuiltIndex = new Set(indexRows());
      expect(rebuiltIndex.size).toBeGreaterThan(0);
      expect(liveIndex).toEqual(expect.arrayContaining([...rebuiltIndex]));
      const stale = liveIndex.filter((r) => !rebuiltIndex.has(r)).map((r) => Number(r.split('@')[1]));
      expect(await store.readAt!(stale)).toEqual([]);
      expect(runner.status().filter((s) => s.status === 'failed')).toEqual([]);
    } finally {
      await t.close();
    }
  }, 120_000);

  it('spawned service: `npm run projections:rebuild` on its DATA_DIR gives the same tables', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hs-rel-rebuild-'));
    let running: RunningService | undefined;
    try {
      const env = { DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: TEST_ADMIN_KEY };
      running = await startReliabilityService(env);
      const summary = await runMixedWorkload(httpSender(running.url), TEST_ADMIN_KEY);
      expect(summary.migratedAccounts).toBe(3);
      await stopService(running, 'SIGTERM');
      running = undefined;

      const live = readModelFileDigests(join(dataDir, 'readmodels.sqlite'));
      expectEveryModuleFilled(live);
      const r = spawnSync('npm', ['run', '--silent', 'projections:rebuild'], {
        cwd: ROOT,
        env: childEnv({ DATA_DIR: dataDir, SEED: 'none', ADMIN_API_KEY: TEST_ADMIN_KEY }),
        encoding: 'utf8',
        timeout: 120_000,
      });
      // Only notices on stderr (npm config, Fastify deprecations, a build when src/ changed), nothing else.
      const stderr = r.stderr
        .split('\n')
        .filter((l) => l !== '' && !/^(npm warn|\(node:\d+\) \[FST|\(Use `node|building \(tsc\))/.test(l));
      expect({ status: r.status, stderr }).toEqual({ status: 0, stderr: [] });
      expect(r.stdout).toMatch(/rebuilt \S+: \d+ events/);
      expect(readModelFileDigests(join(dataDir, 'readmodels.sqlite'))).toEqual(live);
    } finally {
      if (running) await stopService(running, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
