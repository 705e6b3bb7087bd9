/** The delivery log as other modules may read it (the lint allows this file): asked of the delivery thread. */
export { type AttemptView, type DeliveryStatus, type DeliveryView } from './application/outbox-queries';
export { WebhooksQueries } from './application/webhooks.queries';
export { DeliveryThread } from './delivery-thread/delivery-thread';
