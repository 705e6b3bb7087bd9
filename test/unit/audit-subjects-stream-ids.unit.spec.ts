import '../../src/app-webhooks/application/attempt-stream-ids';
import { accountAndAppSubjects, indexSubjectsOf, subjectsOf } from '../../src/console/application/audit-subjects';
import { matches } from '../../src/console/application/audit-trail';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import {
  appIdOfAttemptStream,
  deliveryAttemptStream,
  WebhooksEventType,
} from '../../src/app-webhooks/domain/webhook-events';

const attemptData = {
  appId: 4242,
  requestId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  url: 'https://127.0.0.1/hooks',
  sentAt: 1_700_000_000_000,
  requestHeaders: {},
  statusCode: 204,
  error: null,
  responseBody: null,
  durationMs: 3,
  items: [{ eventId: 'e1', attemptNumber: 1, portalId: 77, objectId: 5 }],
};

/** An attempt event whose data counts its reads, as the store's lazily parsed events would parse them. */
function attempt(streamId: string): { event: RecordedEvent; reads: () => number } {
  let reads = 0;
  const event = {
    type: WebhooksEventType.DeliveryAttempted,
    streamId,
    revision: 0,
    position: 9,
    metadata: { eventId: 'x', correlationId: 'corr-1', causationId: null, actor: 'webhooks', occurredAt: 0 },
    get data() {
      reads++;
      return attemptData;
    },
  } as RecordedEvent;
  return { event, reads: () => reads };
}

describe('audit subjects of a webhook delivery attempt (stream-named ids)', () => {
  const stream = deliveryAttemptStream(4242, attemptData.requestId);

  it('files the attempt under its app from the stream id, without reading its data', () => {
    const { event, reads } = attempt(stream);
    expect(indexSubjectsOf(event)).toEqual([
      'a4242',
      `s:${stream}`,
      `t:${WebhooksEventType.DeliveryAttempted}`,
      'c:corr-1',
    ]);
    expect(matches(event, { appId: 4242 })).toBe(true);
    expect(matches(event, { appId: 4243 })).toBe(false);
    expect(reads()).toBe(0);
  });

  it('gives what the data gives (its top-level appId; the items’ portalIds are not the event’s account)', () => {
    const { event } = attempt(stream);
    expect(accountAndAppSubjects(event)).toEqual(subjectsOf(attemptData));
  });

  it('reads the data when the stream does not name the app', () => {
    const { event, reads } = attempt('webhooks.something-else');
    expect(accountAndAppSubjects(event)).toEqual(['a4242']);
    expect(reads()).toBe(1);
  });

  it('parses only its own stream names', () => {
    expect(appIdOfAttemptStream(stream)).toBe(4242);
    expect(appIdOfAttemptStream('webhooks.request-x-1')).toBeNull();
    expect(appIdOfAttemptStream('webhooks.redelivery-4242-1')).toBeNull();
    expect(appIdOfAttemptStream('webhooks.request-1234567890123456-1')).toBeNull();
  });
});
