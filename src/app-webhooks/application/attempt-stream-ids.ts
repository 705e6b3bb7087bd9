import { streamNamedIds } from '../../platform/events/stream-named-ids';
import { appIdOfAttemptStream, WebhooksEventType } from '../domain/webhook-events';

// The console's audit index files every delivery attempt under its app: from the stream id, so the
// API's thread does not parse each attempt's items for it (about 8 µs of its event loop per delivered
// item, docs/webhooks.md). Imported by the module, registered once per process.
streamNamedIds.register(WebhooksEventType.DeliveryAttempted, (streamId) => {
  const appId = appIdOfAttemptStream(streamId);
  return appId === null ? null : { appId };
});
