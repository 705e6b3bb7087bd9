import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import type { Projection } from '../../src/platform/projections/projection';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase } from '../../src/platform/projections/read-model-database';
import { eventTypes } from '../../src/platform/events/event-type-registry';

eventTypes.register({ 't.A': null });

class NoopProjection implements Projection {
  readonly name = 'noop';
  readonly handles = ['t.A'];
  readonly version = 1;
  setup(): void {}
  reset(): void {}
  apply(_e: RecordedEvent, _db: Database.Database): void {}
}

describe('ProjectionRunner.waitFor deadline', () => {
  let dir: string;
  let store: SqliteEventStore;
  let runner: ProjectionRunner;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hs-deadline-'));
    store = new SqliteEventStore(join(dir, 'events.sqlite'));
    runner = new ProjectionRunner(store, openReadModelDatabase(join(dir, 'rm.sqlite')), undefined, {
      waitTimeoutMs: 30,
    });
    runner.register(new NoopProjection());
    runner.start();
  });
  afterEach(async () => {
    await runner.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects with a 503 SERVICE_UNAVAILABLE HubSpotError when the position is never reached', async () => {
    // Position 5 does not exist in an empty store: no projection can ever reach it.
    const error = (await runner.waitFor(5).catch((e: unknown) => e)) as HubSpotError;
    expect(error).toBeInstanceOf(HubSpotError);
    expect({ status: error.httpStatus, category: error.category }).toEqual({
      status: 503,
      category: 'SERVICE_UNAVAILABLE',
    });
  });

  it('resolves a position reached in time, and null waits without a deadline', async () => {
    const meta = { correlationId: 'c', causationId: null, actor: 't', occurredAt: 0 };
    const waiting = runner.waitFor(2, null);
    const { position } = await store.append(
      's',
      [
        { type: 't.A', data: {}, metadata: { ...meta, eventId: `a-${process.pid}` } },
        { type: 't.A', data: {}, metadata: { ...meta, eventId: `b-${process.pid}` } },
      ],
      'no_stream',
    );
    expect(position).toBe(2);
    await expect(waiting).resolves.toBeUndefined();
    await expect(runner.waitFor(2)).resolves.toBeUndefined();
  });
});
