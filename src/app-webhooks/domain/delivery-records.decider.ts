import type { Decider } from '../../platform/commands/decider';
import { type DeliveryAttempted, type RedeliveryRequested, WebhooksEventType } from './webhook-events';

/**
 * A delivery attempt, or a redelivery asked for, each on a stream of its own named by a fresh id:
 * written once, never changed (the outbox read model folds them onto the items they name).
 */
export interface RecordDeliveryAttempt {
  type: 'RecordDeliveryAttempt';
  attempt: DeliveryAttempted['data'];
}
export interface RequestRedelivery {
  type: 'RequestRedelivery';
  appId: number;
  /** The item's account: whose install's clock makes it due. */
  hubId: number;
  eventId: string;
  now: number;
}
export type DeliveryRecordCommand = RecordDeliveryAttempt | RequestRedelivery;
type DeliveryRecordEvent = DeliveryAttempted | RedeliveryRequested;

export const deliveryRecordDecider: Decider<{ written: boolean }, DeliveryRecordCommand, DeliveryRecordEvent> = {
  initialState: () => ({ written: false }),
  evolve: () => ({ written: true }),
  decide: (c, s) => {
    if (s.written) return [];
    if (c.type === 'RecordDeliveryAttempt') return [{ type: WebhooksEventType.DeliveryAttempted, data: c.attempt }];
    return [
      { type: WebhooksEventType.RedeliveryRequested, data: { appId: c.appId, eventId: c.eventId, requestedAt: c.now } },
    ];
  },
};
