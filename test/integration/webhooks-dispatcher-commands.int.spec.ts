import { DispatcherCommands } from '../../src/app-webhooks/application/dispatcher-commands';
import {
  deliveriesPrunedStream,
  dispatchLeaseStream,
  WebhooksEventType,
} from '../../src/app-webhooks/domain/webhook-events';
import type { DeliveryAttempted } from '../../src/app-webhooks/domain/webhook-events';
import { tempSqliteStore } from '../support/event-store-fixtures';

/**
 * What the delivery thread appends itself (no message to the API's thread): each command's event,
 * in its envelope, at the time the command carries (the service's clock as the API read it).
 */
describe('DispatcherCommands', () => {
  const T = Date.UTC(2026, 10, 28, 12);
  const attempt: DeliveryAttempted['data'] = {
    appId: 7,
    requestId: 'r-1',
    url: 'https://127.0.0.1/hook',
    sentAt: T - 40,
    requestHeaders: { 'Content-Type': 'application/json' },
    statusCode: 204,
    error: null,
    responseBody: null,
    durationMs: 12,
    items: [],
  };

  it('records an attempt once, on its own stream, stamped with the command’s time and the dispatcher as actor', async () => {
    const t = tempSqliteStore();
    try {
      const commands = new DispatcherCommands(t.store);
      const { position } = (await commands.execute({ type: 'RecordDeliveryAttempt', attempt, now: T })) as {
        position: number;
      };
      const [event] = await t.store.readAll({ after: 0, limit: 10 });
      expect(event).toMatchObject({
        position,
        streamId: 'webhooks.request-7-r-1',
        type: WebhooksEventType.DeliveryAttempted,
        data: attempt,
        metadata: { occurredAt: T, actor: 'system:webhooks-dispatcher', causationId: null },
      });
      // The same request id again is a collision of fresh ids, refused: never a second record.
      await expect(commands.execute({ type: 'RecordDeliveryAttempt', attempt, now: T + 1 })).rejects.toThrow();
      expect(await t.store.readAll({ after: 0, limit: 10 })).toHaveLength(1);
    } finally {
      await t.cleanup();
    }
  });

  it('takes and releases a lease at the expected revision, and answers a refusal with the stream’s revision', async () => {
    const t = tempSqliteStore();
    try {
      const commands = new DispatcherCommands(t.store);
      const take = { type: 'TakeDispatchLease' as const, appId: 7, owner: 'a', leaseMs: 30_000, now: T };
      expect(await commands.execute({ ...take, expected: 'no_stream' })).toMatchObject({ appended: true, revision: 0 });
      // Another instance that saw no lease loses the race: told where the stream is.
      expect(await commands.execute({ ...take, owner: 'b', expected: 'no_stream' })).toEqual({
        appended: false,
        actual: 0,
      });
      expect(
        await commands.execute({ type: 'ReleaseDispatchLease', appId: 7, owner: 'a', expected: 0, now: T + 5 }),
      ).toMatchObject({ appended: true, revision: 1 });
      const lease = await t.store.readStream(dispatchLeaseStream(7));
      expect(lease.map((e) => [e.type, e.data, e.metadata.occurredAt])).toEqual([
        [WebhooksEventType.DispatchLeaseTaken, { appId: 7, owner: 'a', leaseMs: 30_000, takenAt: T }, T],
        [WebhooksEventType.DispatchLeaseReleased, { appId: 7, owner: 'a', releasedAt: T + 5 }, T + 5],
      ]);
    } finally {
      await t.cleanup();
    }
  });

  it('prunes whatever the stream holds: the same edge twice is two records', async () => {
    const t = tempSqliteStore();
    try {
      const commands = new DispatcherCommands(t.store);
      const prune = { type: 'PruneDeliveries' as const, appId: 7, deliveredBefore: T - 86_400_000, now: T };
      await commands.execute(prune);
      await commands.execute({ ...prune, now: T + 1 });
      const pruned = await t.store.readStream(deliveriesPrunedStream(7));
      expect(pruned.map((e) => e.data)).toEqual([
        { appId: 7, deliveredBefore: T - 86_400_000, prunedAt: T },
        { appId: 7, deliveredBefore: T - 86_400_000, prunedAt: T + 1 },
      ]);
    } finally {
      await t.cleanup();
    }
  });
});
