/** Bounds that keep one request (and the event it becomes) reasonably small. */
export const MAX_INT32 = 2_147_483_647;
export const MAX_OPTIONS = 1000;
export const MAX_TEXT = 3000;

/**
 * HubSpot's batch endpoints (properties and schemas) take at most 100 inputs (its documented batch
 * size for the CRM APIs); a longer batch is refused whole with a 400, nothing recorded.
 */
export const MAX_BATCH_INPUTS = 100;
