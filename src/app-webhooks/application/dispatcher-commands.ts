import { randomUUID } from 'node:crypto';
import { StreamAccess } from '../../platform/commands/stream-access';
import { ConcurrencyError } from '../../platform/event-store/concurrency-error';
import type { StreamStore } from '../../platform/event-store/event-store.port';
import type { CommandContext } from '../../platform/events/envelope';
import type { DispatcherCommand, DispatchLeaseAnswer } from '../delivery-thread/thread-protocol';
import { deliveryRecordDecider } from '../domain/delivery-records.decider';
import { leaseReleased, leaseTaken } from '../domain/dispatch-lease';
import {
  deliveriesPrunedStream,
  deliveryAttemptStream,
  dispatchLeaseStream,
  WebhooksEventType,
} from '../domain/webhook-events';

const ACTOR = 'system:webhooks-dispatcher';

/**
 * What the dispatcher records, appended from the delivery thread (its own store connection, or on
 * SQLite its port to the writer thread): a delivery attempt, a dispatch lease taken or released,
 * delivered items pruned from the log. Not through the API's thread, so a delivered request costs
 * the API's event loop no message, no decision and no serialization (issue 42's p99s).
 */
export class DispatcherCommands {
  constructor(private readonly store: StreamStore) {}

  async execute(command: DispatcherCommand): Promise<{ position: number } | DispatchLeaseAnswer> {
    // The envelope's time is the one the command was decided at (the service's clock, read by the API).
    const streams = new StreamAccess(this.store, { now: () => command.now });
    const context: CommandContext = { correlationId: randomUUID(), causationId: null, actor: ACTOR };
    switch (command.type) {
      case 'RecordDeliveryAttempt': {
        // A stream named by a fresh id: written once, never read first.
        const stream = deliveryAttemptStream(command.attempt.appId, command.attempt.requestId);
        const { position } = await streams.forDecider(deliveryRecordDecider).handleNew(stream, command, context);
        return { position };
      }
      case 'TakeDispatchLease':
      case 'ReleaseDispatchLease':
        return this.lease(streams, command, context);
      case 'PruneDeliveries': {
        // Appended whatever the stream holds: pruning again at the same edge removes nothing more.
        const { appId, deliveredBefore, now } = command;
        return streams.append(
          deliveriesPrunedStream(appId),
          [{ type: WebhooksEventType.DeliveriesPruned, data: { appId, deliveredBefore, prunedAt: now } }],
          'any',
          context,
        );
      }
    }
  }

  /**
   * The lease is a fence, not a decision on state: the append at the expected revision is the whole
   * check (of two instances taking at once one is refused), so nothing is retried on a conflict.
   */
  private async lease(
    streams: StreamAccess,
    command: Extract<DispatcherCommand, { type: 'TakeDispatchLease' | 'ReleaseDispatchLease' }>,
    context: CommandContext,
  ): Promise<DispatchLeaseAnswer> {
    const event =
      command.type === 'TakeDispatchLease'
        ? leaseTaken(command.appId, command.owner, command.leaseMs, command.now)
        : leaseReleased(command.appId, command.owner, command.now);
    const { expected } = command;
    try {
      const { position } = await streams.append(dispatchLeaseStream(command.appId), [event], expected, context);
      return { appended: true, revision: typeof expected === 'number' ? expected + 1 : 0, position };
    } catch (error) {
      if (error instanceof ConcurrencyError) return { appended: false, actual: error.actual };
      throw error;
    }
  }
}
