import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent, RecordedEvent } from '../../src/platform/events/envelope';
import { eventTypes } from '../../src/platform/events/event-type-registry';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { Checkpoints } from '../../src/platform/projections/checkpoints';
import type { Reactor } from '../../src/platform/projections/projection';
import { openReadModelDatabase } from '../../src/platform/projections/read-model-database';
import { ReactorWorker } from '../../src/platform/projections/reactor-worker';
import { newEvent } from '../support/event-store-fixtures';
import { ScriptedEsdbClient } from '../support/scripted-esdb-client';

const TYPES = ['pass.A', 'pass.B', 'pass.C'];
eventTypes.register({ 'pass.A': null, 'pass.B': null, 'pass.C': null, 'pass.Other': null });

function adapter() {
  const client = new ScriptedEsdbClient();
  const store = new EventStoreDbEventStore(client, {
    credentials: { username: 'u', password: 'p' },
    backoff: { initialMs: 1, maxMs: 4 },
  });
  return { client, store };
}

/** Appends `count` events cycling through A, B, C, Other, ten per append. */
async function fill(store: EventStoreDbEventStore, count: number): Promise<void> {
  const cycle = [...TYPES, 'pass.Other'];
  for (let i = 0, revision = -1; i < count; i += 10) {
    const events: NewEvent[] = [];
    for (let j = i; j < Math.min(count, i + 10); j++) events.push(newEvent(cycle[j % cycle.length]!));
    await store.append('pass-stream', events, revision < 0 ? 'no_stream' : revision);
    revision += events.length;
  }
}

describe('7. a reactor catches up on all its types in one pass over $all', () => {
  let db: Database.Database;
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'one-pass-'))));
  afterEach(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads $all forward once (not once per type) and hands its events once each, in order', async () => {
    const { client, store } = adapter();
    await fill(store, 1200);
    db = openReadModelDatabase(join(dir, 'read-models.sqlite')); // (':memory:' would leave a file of that name)
    const handled: RecordedEvent[] = [];
    const reactor: Reactor = {
      name: 'one-pass',
      handles: TYPES,
      handle: (event) => {
        handled.push(event as RecordedEvent);
        return Promise.resolve();
      },
    };
    let caughtUp!: () => void;
    const progressed = new Promise<void>((resolve) => (caughtUp = resolve));
    let failure: unknown;
    const worker = new ReactorWorker(
      reactor,
      store,
      new Checkpoints(db),
      (_w, error) => (failure = error),
      () => caughtUp(),
    );
    await progressed;
    await worker.stop();
    await store.close();
    expect(failure).toBeUndefined();

    const ours = client.log.filter((r) => TYPES.includes(r.type));
    expect(handled.map((e) => e.position)).toEqual(ours.map((r) => r.position));
    // One pass: every record of $all served about once (a page repeats the record it starts at).
    const forward = client.readAllCalls.filter((c) => c.direction === 'forwards');
    const served = forward.reduce((sum, c) => sum + c.served, 0);
    expect(served).toBeLessThanOrEqual(client.log.length + forward.length);
    expect(forward.length).toBeLessThanOrEqual(2);
  });

  it('pages several types with after/limit in one pass each', async () => {
    const { client, store } = adapter();
    await fill(store, 40);
    const page = await store.readAll({ after: 0, limit: 5, types: ['pass.C', 'pass.A'] });
    expect(page.map((e) => e.type)).toEqual(['pass.A', 'pass.C', 'pass.A', 'pass.C', 'pass.A']);
    const next = await store.readAll({ after: page[4]!.position, limit: 100, types: ['pass.C', 'pass.A'] });
    expect(next).toHaveLength(15);
    expect(client.readAllCalls.filter((c) => c.direction === 'forwards')).toHaveLength(2);
    await store.close();
  });
});
