import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent, RecordedEvent } from '../../src/platform/events/envelope';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import type { Projection, Reactor } from '../../src/platform/projections/projection';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase } from '../../src/platform/projections/read-model-database';
import { eventTypes } from '../../src/platform/events/event-type-registry';

let seq = 0;
const event = (type: string): NewEvent => ({
  type,
  data: { n: seq },
  metadata: {
    eventId: `sf-${process.pid}-${seq++}`,
    correlationId: 'c',
    causationId: null,
    actor: 'test',
    occurredAt: 0,
  },
});

const TYPES = ['t.A', 't.Wanted', 't.Other', 't.Also'];
eventTypes.register(Object.fromEntries(TYPES.map((t) => [t, null])));

/** Records the positions it applied, in a table of its own. */
const recorder = (name: string, failAt?: number): Projection => ({
  name,
  version: 1,
  handles: TYPES,
  setup: (db: Database.Database) => db.exec(`CREATE TABLE IF NOT EXISTS ${name} (position INTEGER PRIMARY KEY)`),
  reset: (db: Database.Database) => db.exec(`DELETE FROM ${name}`),
  apply: (e: RecordedEvent, db: Database.Database) => {
    if (e.position === failAt) throw new Error(`${name} refuses ${e.position}`);
    db.prepare(`INSERT INTO ${name} (position) VALUES (?)`).run(e.position);
  },
});

const positions = (db: Database.Database, table: string) =>
  (db.prepare(`SELECT position FROM ${table} ORDER BY position`).all() as Array<{ position: number }>).map(
    (r) => r.position,
  );

describe('ProjectionRunner: shared feed and typed reactors', () => {
  let dir: string;
  let store: SqliteEventStore;
  let db: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hs-runner-shared-'));
    store = new SqliteEventStore(join(dir, 'events.sqlite'));
    db = openReadModelDatabase(join(dir, 'rm.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a projection that throws fails alone; the others sharing its feed keep every event', async () => {
    for (let i = 0; i < 10; i++) await store.append(`s-${i}`, [event('t.A')], 'no_stream');
    const runner = new ProjectionRunner(store, db);
    runner.register(recorder('rec_ok'));
    runner.register(recorder('rec_bad', 5));
    runner.start();
    await expect(runner.waitFor(10)).rejects.toThrow(/rec_bad failed/);
    const status = Object.fromEntries(runner.status().map((s) => [s.name, s]));
    expect(status.rec_bad).toMatchObject({ status: 'failed', error: 'rec_bad refuses 5' });
    // Nothing of the failed batch stayed behind for the failed projection (its savepoint rolled back).
    expect(positions(db, 'rec_bad')).toEqual([]);
    const live = (await store.append('s-live', [event('t.A')], 'no_stream')).position;
    await new Promise<void>((resolve) => {
      const check = () => (positions(db, 'rec_ok').includes(live) ? resolve() : setImmediate(check));
      check();
    });
    expect(positions(db, 'rec_ok')).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    await runner.stop();
  });

  it('projections at different checkpoints each get every event exactly once', async () => {
    for (let i = 0; i < 5; i++) await store.append(`s-${i}`, [event('t.A')], 'no_stream');
    const first = new ProjectionRunner(store, db);
    first.register(recorder('rec_early'));
    first.start();
    await first.waitFor(5);
    await first.stop();
    for (let i = 5; i < 8; i++) await store.append(`s-${i}`, [event('t.A')], 'no_stream');
    const second = new ProjectionRunner(store, db);
    second.register(recorder('rec_early')); // resumes at 5
    second.register(recorder('rec_late')); // starts at 0
    second.start();
    await second.waitFor(8);
    expect(positions(db, 'rec_early')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(positions(db, 'rec_late')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await second.stop();
  });

  it('a reactor with event types gets only those, in order, on catch-up and live, and resumes after its checkpoint', async () => {
    await store.append('a', [event('t.Wanted'), event('t.Other'), event('t.Also')], 'no_stream');
    await store.append('b', [event('t.Other'), event('t.Wanted')], 'no_stream');
    const seen: string[] = [];
    let live: () => void = () => undefined;
    const reactor: Reactor = {
      name: 'typed-reactor',
      handles: ['t.Wanted', 't.Also'],
      handle: (e) => {
        seen.push(`${e.position}:${e.type}`);
        if (e.position === 7) live();
        return Promise.resolve();
      },
    };
    const runner = new ProjectionRunner(store, db);
    runner.registerReactor(reactor);
    runner.start();
    const reachedLive = new Promise<void>((resolve) => (live = resolve));
    await store.append('c', [event('t.Other'), event('t.Wanted')], 'no_stream');
    await reachedLive;
    expect(seen).toEqual(['1:t.Wanted', '3:t.Also', '5:t.Wanted', '7:t.Wanted']);
    await runner.stop();

    // Restart: nothing handled twice, the next wanted event is handed once.
    seen.length = 0;
    const again = new ProjectionRunner(store, db);
    const next = new Promise<void>((resolve) => (live = resolve));
    reactor.handle = (e) => {
      seen.push(`${e.position}:${e.type}`);
      live();
      return Promise.resolve();
    };
    again.registerReactor(reactor);
    again.start();
    await store.append('d', [event('t.Other'), event('t.Also')], 'no_stream');
    await next;
    expect(seen).toEqual(['9:t.Also']);
    await again.stop();
  });

  it('a reactor stores its checkpoint after batches that held its types, not after every commit', async () => {
    const seen: number[] = [];
    const reactor: Reactor = {
      name: 'sparse-reactor',
      handles: ['t.Wanted'],
      handle: (e) => {
        seen.push(e.position);
        return Promise.resolve();
      },
    };
    const stored = () =>
      (
        db.prepare("SELECT position FROM projection_checkpoints WHERE name = 'sparse-reactor'").get() as {
          position: number;
        }
      ).position;
    const reached = async (position: number) => {
      while ((runner.status().find((s) => s.name === 'sparse-reactor')?.position ?? 0) < position)
        await new Promise((resolve) => setImmediate(resolve));
    };
    const runner = new ProjectionRunner(store, db);
    runner.registerReactor(reactor);
    runner.start();
    await reached(0);
    // Commits of other types move its position (read-your-writes waits on it), not its stored checkpoint.
    let last = 0;
    for (let i = 0; i < 5; i++) last = (await store.append(`o-${i}`, [event('t.Other')], 'no_stream')).position;
    await reached(last);
    expect(stored()).toBe(0);
    const wanted = (await store.append('w', [event('t.Other'), event('t.Wanted')], 'no_stream')).position;
    await reached(wanted);
    expect(seen).toEqual([wanted]);
    expect(stored()).toBe(wanted);
    last = (await store.append('o-after', [event('t.Other')], 'no_stream')).position;
    await reached(last);
    expect(stored()).toBe(wanted);
    // Stopped: the position it reached is kept.
    await runner.stop();
    expect(stored()).toBe(last);
  });
});
