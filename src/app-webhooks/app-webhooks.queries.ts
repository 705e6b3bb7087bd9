/** The delivery log as other modules may read it (the lint allows this file). */
export {
  WebhooksQueries,
  type AttemptView,
  type DeliveryStatus,
  type DeliveryView,
} from './application/webhooks.queries';
