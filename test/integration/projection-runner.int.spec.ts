import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent, RecordedEvent } from '../../src/platform/events/envelope';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import type { Projection } from '../../src/platform/projections/projection';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase } from '../../src/platform/projections/read-model-database';
import { eventTypes } from '../../src/platform/events/event-type-registry';

eventTypes.register({ 'test.Counted': null, 'test.Other': null });

/** Counts events per stream: enough to see order, checkpoints and rebuilds. */
class CountingProjection implements Projection {
  readonly name = 'counting';
  readonly handles = ['test.Counted'];
  constructor(readonly version = 1) {}
  setup(db: Database.Database) {
    db.exec('CREATE TABLE IF NOT EXISTS t_counts (stream TEXT PRIMARY KEY, n INTEGER NOT NULL, last INTEGER NOT NULL)');
  }
  reset(db: Database.Database) {
    db.exec('DELETE FROM t_counts');
  }
  apply(e: RecordedEvent, db: Database.Database) {
    const row = db.prepare('SELECT last FROM t_counts WHERE stream = ?').get(e.streamId) as
      { last: number } | undefined;
    if (row && row.last >= e.position) throw new Error('out of order');
    db.prepare(
      'INSERT INTO t_counts VALUES (?, 1, ?) ON CONFLICT(stream) DO UPDATE SET n = n + 1, last = excluded.last',
    ).run(e.streamId, e.position);
  }
}

let seq = 0;
const event = (type = 'test.Counted'): NewEvent => ({
  type,
  data: {},
  metadata: {
    eventId: `e-${process.pid}-${seq++}`,
    correlationId: 'c',
    causationId: null,
    actor: 'test',
    occurredAt: 0,
  },
});

const dump = (db: Database.Database) => db.prepare('SELECT stream, n FROM t_counts ORDER BY stream').all();

describe('ProjectionRunner', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hs-runner-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('catches up, goes live, resumes from its checkpoint, and a rebuild equals the live state', async () => {
    let store = new SqliteEventStore(join(dir, 'events.sqlite'));
    let db = openReadModelDatabase(join(dir, 'rm.sqlite'));
    for (let i = 0; i < 30; i++) await store.append(`s-${i % 3}`, [event(), event('test.Other')], 'any');

    let runner = new ProjectionRunner(store, db);
    runner.register(new CountingProjection());
    runner.start();
    await runner.waitFor(await store.headPosition());
    expect(dump(db)).toEqual([
      { stream: 's-0', n: 10 },
      { stream: 's-1', n: 10 },
      { stream: 's-2', n: 10 },
    ]);

    // live
    const { position } = await store.append('s-3', [event()], 'no_stream');
    await runner.waitFor(position);
    expect(dump(db)).toContainEqual({ stream: 's-3', n: 1 });
    expect(await runner.lag()).toEqual({ counting: 0 });

    // restart: resumes from the checkpoint, applies nothing twice
    await runner.stop();
    await store.close();
    db.close();
    store = new SqliteEventStore(join(dir, 'events.sqlite'));
    db = openReadModelDatabase(join(dir, 'rm.sqlite'));
    runner = new ProjectionRunner(store, db);
    runner.register(new CountingProjection());
    runner.start();
    const p2 = (await store.append('s-3', [event()], 'any')).position;
    await runner.waitFor(p2);
    const live = dump(db);
    expect(live).toContainEqual({ stream: 's-3', n: 2 });

    await runner.rebuild('counting');
    expect(dump(db)).toEqual(live);
    await runner.stop();
    await store.close();
    db.close();
  });

  it('rebuilds from zero when the projection version changes', async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    const db = openReadModelDatabase(join(dir, 'rm.sqlite'));
    await store.append('a', [event(), event()], 'no_stream');
    const r1 = new ProjectionRunner(store, db);
    r1.register(new CountingProjection(1));
    r1.start();
    await r1.waitFor(2);
    await r1.stop();
    db.prepare('UPDATE t_counts SET n = 99').run(); // would survive if the runner did not rebuild
    const r2 = new ProjectionRunner(store, db);
    r2.register(new CountingProjection(2));
    r2.start();
    await r2.waitFor(2);
    expect(dump(db)).toEqual([{ stream: 'a', n: 2 }]);
    await r2.stop();
    await store.close();
    db.close();
  });

  it('marks a failing projection failed and rejects waiters instead of hanging', async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    const db = openReadModelDatabase(join(dir, 'rm.sqlite'));
    const broken: Projection = {
      name: 'broken',
      version: 1,
      handles: ['test.Counted'],
      setup: () => undefined,
      reset: () => undefined,
      apply: () => {
        throw new Error('boom');
      },
    };
    const runner = new ProjectionRunner(store, db);
    runner.register(broken);
    runner.start();
    const { position } = await store.append('x', [event()], 'no_stream');
    await expect(runner.waitFor(position)).rejects.toThrow(/broken failed/);
    expect(runner.status()).toEqual([expect.objectContaining({ name: 'broken', status: 'failed', error: 'boom' })]);
    await runner.stop();
    await store.close();
    db.close();
  });
});
