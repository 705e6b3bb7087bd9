import Database from 'better-sqlite3';
import { DispatchLeases } from '../../src/app-webhooks/application/dispatch-leases';
import { OutboxQueries } from '../../src/app-webhooks/application/outbox-queries';
import { WebhookDispatcher } from '../../src/app-webhooks/application/webhook-dispatcher';
import type { DispatcherBridge, DispatcherCommand } from '../../src/app-webhooks/delivery-thread/thread-protocol';
import { WebhooksEventType } from '../../src/app-webhooks/domain/webhook-events';
import { WebhookOutboxProjection } from '../../src/app-webhooks/projections/webhook-outbox.projection';
import { CrmRecordEventType } from '../../src/crm-records/crm-records.events';
import { OAuthEventType } from '../../src/oauth/oauth.events';
import type { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { recordedEvent } from '../support/recorded-events';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The dispatcher as the delivery thread runs it, against its outbox and a loopback receiver, with
 * the API's thread played by a bridge whose clock readings take a while (as a message round trip does,
 * under load longer). A request that ends while a later pass waits for the clocks must not have its
 * items sent again: each of 2,000 creations arrives exactly once, in requests of at most 100, never
 * more than `maxConcurrentRequests` at a time.
 */
const APP = 7;
const HUB = 40;
const T0 = Date.UTC(2026, 10, 1);

describe('the webhook dispatcher with a slow bridge', () => {
  it('sends each item once while its requests end during other passes’ waits', async () => {
    const receiver = await new WebhookReceiver().start();
    const db = new Database(':memory:');
    const projection = new WebhookOutboxProjection();
    projection.setup(db);
    let position = 0;
    const apply = (type: string, data: unknown) =>
      projection.apply(recordedEvent<Parameters<WebhookOutboxProjection['apply']>[0]>(type, data, ++position, T0), db);
    apply(WebhooksEventType.SettingsConfigured, {
      appId: APP,
      targetUrl: receiver.url,
      maxConcurrentRequests: 2,
      configuredAt: T0,
    });
    apply(OAuthEventType.AppInstalled, {
      appId: APP,
      hubId: HUB,
      installId: 'i',
      installingUserId: 1,
      scopes: ['oauth', 'crm.objects.contacts.read'],
      installedAt: T0,
    });
    apply(WebhooksEventType.SubscriptionCreated, {
      appId: APP,
      subscriptionId: 1,
      eventType: 'contact.creation',
      propertyName: null,
      objectTypeId: null,
      active: true,
      createdAt: T0,
    });
    for (let id = 1; id <= 2000; id++)
      apply(CrmRecordEventType.RecordCreated, {
        hubId: HUB,
        objectTypeId: '0-1',
        id,
        properties: { email: `c${id}@example.com` },
        createdAt: T0,
        appId: null,
        userId: null,
      });

    // Each clock reading answers after 0, 5 or 10 ms in turn (a test's clock is asked of the API's
    // thread); an attempt is applied at once.
    let readings = 0;
    const bridge: DispatcherBridge = {
      execute: (command: DispatcherCommand) => {
        if (command.type === 'RecordDeliveryAttempt') apply(WebhooksEventType.DeliveryAttempted, command.attempt);
        return Promise.resolve({ position });
      },
      now: () => new Promise((resolve) => setTimeout(() => resolve(T0), (readings++ % 3) * 5)),
      installOffsetMs: () => 0,
      secret: () => Promise.resolve(null),
      log: () => undefined,
    };
    const runner = { readModelsReached: () => Promise.resolve(true) } as unknown as ProjectionRunner;
    const config = { enabled: true, timeoutMs: 2000, pollMs: 1, leaseMs: 5000, retentionDays: 30, threadNice: 0 };
    const monotonic = { elapsedMs: () => performance.now() };
    const leases = new DispatchLeases(bridge, runner, false, monotonic, config);
    const dispatcher = new WebhookDispatcher(new OutboxQueries(db), runner, bridge, leases, monotonic, config);
    try {
      dispatcher.start();
      await receiver.waitFor(() => new Set(receiver.items().map((i) => i.objectId)).size === 2000, '2,000 creations');
      await dispatcher.stop();
      const ids = receiver.items().map((i) => i.objectId);
      expect(ids).toHaveLength(2000);
      expect(new Set(ids).size).toBe(2000);
      expect(Math.max(...receiver.requests.map((r) => r.items.length))).toBeLessThanOrEqual(100);
      expect(receiver.maxInFlight).toBeLessThanOrEqual(2);
      const statuses = db.prepare('SELECT status, count(*) AS n FROM wh_outbox GROUP BY status').all();
      expect(statuses).toEqual([{ status: 'delivered', n: 2000 }]);
    } finally {
      await dispatcher.stop();
      await receiver.stop();
      db.close();
    }
  });
});
