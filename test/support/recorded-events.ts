import type { RecordedEvent } from '../../src/platform/events/envelope';

/**
 * A recorded event as the feed hands it to projections, for unit specs that apply events by hand:
 * the event id follows the position; the stream and revision are placeholders.
 * `T`: the projection's own event union (its `apply` parameter), which the spec vouches for.
 */
export function recordedEvent<T = RecordedEvent>(type: string, data: unknown, position: number, occurredAt: number): T {
  const event: RecordedEvent = {
    type,
    data,
    position,
    streamId: `test-${position}`,
    revision: 0,
    metadata: {
      eventId: `e-${position}`,
      correlationId: 'c',
      causationId: null,
      actor: 'test',
      occurredAt,
    },
  };
  return event as unknown as T;
}
