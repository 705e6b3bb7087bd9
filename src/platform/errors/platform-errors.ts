import { HubSpotError } from './hubspot-error';

/**
 * The service's own refusals that belong to no module (node-oidc-provider's errors.js, for the
 * platform): the storage, the read models, the framework's HTTP errors. Modules keep theirs in their
 * own `*-errors.ts`; HubSpot's general categories are HubSpotError's static factories.
 */

/** HubSpot's category for a framework status (Fastify and Nest answer some requests themselves). */
const HTTP_CATEGORY: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'INVALID_AUTHENTICATION',
  403: 'FORBIDDEN',
  404: 'OBJECT_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITS',
};

/** A status the framework chose (an HttpException, a Fastify client error), with HubSpot's category for it. */
export const frameworkError = (status: number, message: string): HubSpotError =>
  new HubSpotError(status, HTTP_CATEGORY[status] ?? 'ERROR', message);

/**
 * A path no route serves: often a HubSpot API this service does not implement. Said so, with where
 * the served ones are listed, so it is not mistaken for a record that does not exist (whose 404
 * names the record).
 */
export const routeNotServed = (): HubSpotError =>
  new HubSpotError(
    404,
    'OBJECT_NOT_FOUND',
    'This path is not served by this service: it implements the HubSpot APIs listed in its OpenAPI document (/docs). A record that does not exist answers a 404 of its own.',
    { subCategory: 'ROUTE_NOT_SERVED', links: { docs: '/docs' } },
  );

/** A genuine bug: 500 with the same shape and no stack trace (the stack goes to the log). */
export const internalError = (): HubSpotError => new HubSpotError(500, 'INTERNAL_ERROR', 'An internal error occurred.');

/** A path segment longer than the router accepts (414). */
export const pathSegmentTooLong = (): HubSpotError =>
  new HubSpotError(414, 'URI_TOO_LONG', 'A segment of the request path is longer than this service accepts.');

/** A body past the route's limit (413). */
export const payloadTooLarge = (): HubSpotError =>
  new HubSpotError(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than this endpoint accepts.');

/** A body of a content type the route does not read (415). */
export const unsupportedMediaType = (): HubSpotError =>
  new HubSpotError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type for this endpoint.');

/** The event store cannot be read (damaged): not cured by waiting; readiness says so too. */
export const storageCorrupt = (): HubSpotError =>
  new HubSpotError(
    503,
    'SERVICE_UNAVAILABLE',
    "The service's event store is damaged and cannot be read; an operator must restore it from a backup.",
    { subCategory: 'STORAGE_CORRUPT' },
  );

/** The event store did not answer in time; the request may be retried as is (appends are idempotent). */
export const storeUnavailable = (retryAfterSeconds: number): HubSpotError =>
  new HubSpotError(503, 'SERVICE_UNAVAILABLE', 'The event store did not answer in time; retry the request.', {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });

/** Seconds a client should wait before retrying a write the storage refused. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

const STORAGE_STATE = { full: 'full', read_only: 'read-only', io: 'failing', corrupt: 'damaged' } as const;

/**
 * A write the storage refused (disk full, read-only, I/O errors): 507 Insufficient Storage with
 * Retry-After. Nothing of the request was stored, so the same request may simply be sent again.
 */
export function storageRefused(reason: keyof typeof STORAGE_STATE): HubSpotError {
  return new HubSpotError(
    507,
    'INSUFFICIENT_STORAGE',
    `The service cannot store data now (its storage is ${STORAGE_STATE[reason]}); nothing was recorded. Retry later.`,
    {
      subCategory: `STORAGE_${reason.toUpperCase()}`,
      headers: { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) },
    },
  );
}

/** A request whose own events are not in the read models within the deadline: HubSpot's 503 body. */
export function readModelsBehind(position: number, timeoutMs: number): HubSpotError {
  return new HubSpotError(
    503,
    'SERVICE_UNAVAILABLE',
    `The read models did not reach position ${position} within ${timeoutMs} ms. Please retry.`,
  );
}

/** A request whose read models cannot catch up now (a projection failed, or retries a storage fault): 503. */
export function readModelFailed(projection: string): HubSpotError {
  return new HubSpotError(
    503,
    'SERVICE_UNAVAILABLE',
    `The read models are not available now: projection ${projection} failed. Please retry.`,
    { headers: { 'Retry-After': '5' } },
  );
}

/** A 5xx answer with the category HubSpot sends with it (the test controls' injected errors). */
export const serverError = (status: number, category: string, message: string): HubSpotError =>
  new HubSpotError(status, category, message);
