import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent, RecordedEvent } from '../../src/platform/events/envelope';
import { eventTypes } from '../../src/platform/events/event-type-registry';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import type { Projection, Reactor } from '../../src/platform/projections/projection';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase } from '../../src/platform/projections/read-model-database';
import { storageRetryDelay, type RetryTimer } from '../../src/platform/projections/storage-fault-retries';

eventTypes.register({ 'test.Note': null });

/** Each event is a row of ~6 KB: every one needs new pages, so a capped file refuses it (SQLITE_FULL). */
const BIG = 'x'.repeat(6000);

class NotesProjection implements Projection {
  readonly handles = ['test.Note'];
  readonly version = 1;
  constructor(readonly name: string) {}
  setup(db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS ${this.name} (position INTEGER PRIMARY KEY, body TEXT NOT NULL)`);
  }
  reset(db: Database.Database) {
    db.exec(`DELETE FROM ${this.name}`);
  }
  apply(e: RecordedEvent, db: Database.Database) {
    // A plain INSERT: applying an event twice (a retry not resuming from the checkpoint) fails on the key.
    db.prepare(`INSERT INTO ${this.name} VALUES (?, ?)`).run(e.position, BIG);
  }
}

/** A reactor whose work writes to the read-model file too (as a command's append writes to the store). */
class NotingReactor implements Reactor {
  readonly name = 'noting-reactor';
  readonly handles = ['test.Note'];
  constructor(private readonly db: Database.Database) {
    db.exec('CREATE TABLE IF NOT EXISTS reactor_notes (position INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  }
  handle(e: RecordedEvent): Promise<void> {
    this.db.prepare('INSERT OR IGNORE INTO reactor_notes VALUES (?, ?)').run(e.position, BIG); // idempotent
    return Promise.resolve();
  }
}

/** Retries fire only when the test says so; the delays asked for are kept. */
class ManualRetryTimer implements RetryTimer {
  readonly delays: number[] = [];
  private pending: (() => void) | null = null;
  schedule(delayMs: number, run: () => void) {
    this.delays.push(delayMs);
    this.pending = run;
    return () => (this.pending = null);
  }
  get scheduled() {
    return this.pending !== null;
  }
  fire() {
    const run = this.pending;
    this.pending = null;
    if (!run) throw new Error('no retry scheduled');
    run();
  }
}

let seq = 0;
const note = (): NewEvent => ({
  type: 'test.Note',
  data: {},
  metadata: {
    eventId: `n-${process.pid}-${seq++}`,
    correlationId: 'c',
    causationId: null,
    actor: 'test',
    occurredAt: 0,
  },
});

const count = (db: Database.Database, table: string) =>
  (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

/** Lets the runner's async loops take their turns (bounded; no timers involved). */
async function turnsUntil(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error(`never happened: ${what}`);
}

describe('ProjectionRunner on storage faults (a real SQLITE_FULL from a capped read-model file)', () => {
  let dir: string;
  let store: SqliteEventStore;
  let db: Database.Database;
  let runner: ProjectionRunner;
  let timer: ManualRetryTimer;
  let logged: string[];
  const fillUp = () => db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  const freeSpace = () => db.pragma('max_page_count = 1073741823');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hs-storage-retry-'));
    store = new SqliteEventStore(join(dir, 'events.sqlite'));
    db = openReadModelDatabase(join(dir, 'rm.sqlite'));
    timer = new ManualRetryTimer();
    logged = [];
    const log = (m: string) => logged.push(m);
    runner = new ProjectionRunner(store, db, { log, error: log }, { retryTimer: timer });
  });
  afterEach(async () => {
    await runner.stop();
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails on the fault, retries with capped backoff from its checkpoint, and heals; logged once each', async () => {
    runner.register(new NotesProjection('notes_a'));
    runner.register(new NotesProjection('notes_b'));
    runner.start();
    for (let i = 0; i < 3; i++) await store.append(`s-${i}`, [note()], 'any');
    await runner.waitForHead();
    expect(count(db, 'notes_a')).toBe(3);

    fillUp();
    let last = 0;
    for (let i = 0; i < 4; i++) last = (await store.append(`s-${i}`, [note()], 'any')).position;
    await expect(runner.waitFor(last)).rejects.toMatchObject({ httpStatus: 503 });
    // Background work (no deadline) waits through the healing instead of failing with it.
    let backgroundDone = false;
    const background = runner.waitFor(last, null).then(() => (backgroundDone = true));
    expect(runner.status().map((s) => [s.name, s.status])).toEqual([
      ['notes_a', 'failed'],
      ['notes_b', 'failed'],
    ]);
    expect(runner.status()[0]!.error).toMatch(/database or disk is full$/);
    expect(await runner.readModelsReached(last)).toBe(false);
    // Nothing of the refused batch is in the read model: the group's transaction rolled back whole.
    expect([count(db, 'notes_a'), count(db, 'notes_b')]).toEqual([3, 3]);

    // Still full: each retry fails again, the delay doubles, and nothing more is logged.
    for (let i = 0; i < 6; i++) {
      timer.fire();
      await turnsUntil(() => timer.scheduled, 'the next retry scheduled');
    }
    expect(timer.delays).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    expect(runner.status().every((s) => s.status === 'failed')).toBe(true);
    expect(backgroundDone).toBe(false);

    freeSpace();
    timer.fire();
    await runner.waitFor(last);
    expect(runner.status().map((s) => [s.name, s.status, s.position])).toEqual([
      ['notes_a', 'running', last],
      ['notes_b', 'running', last],
    ]);
    // Every event applied exactly once (the projection's INSERT would fail on a second apply).
    expect([count(db, 'notes_a'), count(db, 'notes_b')]).toEqual([7, 7]);
    expect(await runner.readModelsReached(last)).toBe(true);
    await background;

    const failures = logged.filter((l) => l.includes('failed'));
    const recoveries = logged.filter((l) => l.includes('recovered'));
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(
      /^projection notes_a failed at position 3 on a storage fault \(SQLITE_FULL\): database or disk is full/,
    );
    expect(recoveries.sort()).toEqual([
      `projection notes_a recovered from the storage fault at position ${last}`,
      `projection notes_b recovered from the storage fault at position ${last}`,
    ]);
    expect(timer.scheduled).toBe(false);

    // A later fault starts over at the first delay.
    fillUp();
    last = (await store.append('s-9', [note()], 'any')).position;
    await expect(runner.waitFor(last)).rejects.toMatchObject({ httpStatus: 503 });
    expect(timer.delays.at(-1)).toBe(100);
    freeSpace();
    timer.fire();
    await runner.waitFor(last);
  });

  it('restarts a reactor that failed on the fault, from its checkpoint', async () => {
    runner.registerReactor(new NotingReactor(db));
    runner.start();
    await store.append('r-1', [note()], 'any');
    await turnsUntil(() => count(db, 'reactor_notes') === 1, 'the reactor handled the first event');

    fillUp();
    const { position } = await store.append('r-2', [note()], 'any');
    await turnsUntil(() => runner.status()[0]!.status === 'failed', 'the reactor failed');
    expect(logged.filter((l) => l.includes('failed'))).toEqual([
      expect.stringMatching(/^reactor noting-reactor failed at position \d+ on a storage fault \(SQLITE_FULL\)/),
    ]);

    freeSpace();
    timer.fire();
    await turnsUntil(() => runner.status()[0]!.position === position, 'the reactor caught up');
    expect(runner.status()[0]!.status).toBe('running');
    expect(count(db, 'reactor_notes')).toBe(2);
    expect(logged.filter((l) => l.includes('recovered'))).toEqual([
      `reactor noting-reactor recovered from the storage fault at position ${position}`,
    ]);
  });

  it('does not retry an error that is not a storage fault (the worker stays failed)', async () => {
    const broken: Projection = {
      name: 'broken',
      version: 1,
      handles: ['test.Note'],
      setup: () => undefined,
      reset: () => undefined,
      apply: () => {
        throw new Error('a bug');
      },
    };
    runner.register(broken);
    runner.start();
    const { position } = await store.append('b-1', [note()], 'any');
    await expect(runner.waitFor(position)).rejects.toMatchObject({ httpStatus: 503 });
    expect(timer.scheduled).toBe(false);
    expect(logged).toEqual([`projection broken failed at position 0: a bug`]);
  });

  it('caps the backoff', () => {
    const b = { initialMs: 100, maxMs: 2000 };
    expect([0, 1, 2, 3, 4, 5, 50, 5000].map((a) => storageRetryDelay(a, b))).toEqual([
      100, 200, 400, 800, 1600, 2000, 2000, 2000,
    ]);
  });
});
