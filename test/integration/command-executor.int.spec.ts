import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/platform/clock';
import { CommandExecutor } from '../../src/platform/commands/command-executor';
import { ConcurrencyConflictError } from '../../src/platform/commands/concurrency-conflict-error';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import type { DomainEvent } from '../../src/platform/events/envelope';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';

/**
 * The executor's give-up: a competing writer that appends between every load and append makes
 * each attempt lose the expected-revision race, deterministically (no timing involved).
 */
describe('CommandExecutor conflicts on a real SQLite event store', () => {
  let dir: string;
  let store: SqliteEventStore;
  let executor: CommandExecutor;
  const clock = new ManualClock();
  const ctx = { correlationId: '00000000-0000-4000-8000-000000000001', actor: 'test:executor' };
  const counter = { initialState: () => 0, evolve: (n: number) => n + 1 };
  const tick: DomainEvent = { type: 'test.Ticked', data: {} };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'executor-int-'));
    store = new SqliteEventStore(join(dir, 'events.db'));
    executor = new CommandExecutor(store, clock);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A decide that lets another writer in first on its first `losses` calls. */
  function contested(streamId: string, losses: number) {
    const calls = { n: 0 };
    const decide = (state: number): DomainEvent[] => {
      calls.n++;
      if (calls.n <= losses) {
        // The competitor appends with the revision this attempt loaded: ours is now stale.
        void store.append(streamId, [executor.envelope(tick, ctx)], state === 0 ? 'no_stream' : state - 1);
      }
      return [tick];
    };
    return { calls, decide };
  }

  it('gives up after its default attempts with ConcurrencyConflictError: a HubSpot 409 CONFLICT', async () => {
    const { calls, decide } = contested('test-default', 100);
    const error = await executor.execute('test-default', counter, decide, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrencyConflictError);
    expect(error).toBeInstanceOf(HubSpotError);
    expect(error).toMatchObject({ httpStatus: 409, category: 'CONFLICT', streamId: 'test-default', attempts: 5 });
    expect((error as HubSpotError).extras.subCategory).toBeUndefined();
    expect(calls.n).toBe(5);
  });

  it('maxAttempts per call: more attempts win through seven lost races', async () => {
    const { calls, decide } = contested('test-more', 7);
    const result = await executor.execute('test-more', counter, decide, ctx, { maxAttempts: 8 });
    expect(calls.n).toBe(8);
    expect(result.events).toHaveLength(1);
    // seven competitor events, then ours
    expect(result.state).toBe(8);
    expect(await store.readStream('test-more')).toHaveLength(8);
  });

  it('maxAttempts per call: fewer attempts give up sooner', async () => {
    const { calls, decide } = contested('test-fewer', 100);
    await expect(executor.execute('test-fewer', counter, decide, ctx, { maxAttempts: 2 })).rejects.toMatchObject({
      attempts: 2,
    });
    expect(calls.n).toBe(2);
  });

  it('refuses a maxAttempts that is not a positive integer', async () => {
    await expect(executor.execute('test-bad', counter, () => [tick], ctx, { maxAttempts: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});
