import { HttpException } from '@nestjs/common';
import { ConcurrencyError } from '../event-store/concurrency-error';
import { storageFaultOf } from '../event-store/storage-fault';
import { InvalidPositionError, StoreUnavailableError } from '../event-store/store-errors';
import { HubSpotError } from './hubspot-error';

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
}

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

/**
 * Maps anything thrown while serving a request to a HubSpotError. Framework and parser errors
 * (bad JSON, wrong content type, body too large, unknown route) become 4xx; only a genuine bug
 * becomes a 500, and even then the body carries no stack trace.
 */
export function toHubSpotError(error: unknown): { error: HubSpotError; isBug: boolean } {
  if (error instanceof HubSpotError) return { error, isBug: false };
  if (error instanceof ConcurrencyError) {
    return {
      error: HubSpotError.conflict('The resource was changed by another request at the same time; retry.'),
      isBug: false,
    };
  }
  const storageFault = storageFaultOf(error);
  if (storageFault?.reason === 'corrupt') {
    // Not the request's fault and not cured by waiting: readiness says so too (storageDamage).
    const message =
      "The service's event store is damaged and cannot be read; an operator must restore it from a backup.";
    return {
      error: new HubSpotError(503, 'SERVICE_UNAVAILABLE', message, { subCategory: 'STORAGE_CORRUPT' }),
      isBug: false,
    };
  }
  if (storageFault) return { error: storageRefused(storageFault.reason), isBug: false };
  if (error instanceof StoreUnavailableError) {
    // The request may be retried as is: appends are idempotent, and its outcome is not known.
    const retryAfter = String(error.retryAfterSeconds);
    const message = 'The event store did not answer in time; retry the request.';
    return {
      error: new HubSpotError(503, 'SERVICE_UNAVAILABLE', message, { headers: { 'retry-after': retryAfter } }),
      isBug: false,
    };
  }
  if (error instanceof InvalidPositionError) {
    return {
      error: HubSpotError.validation('after is not a position of this event store', [
        { message: 'use a position returned by this endpoint', in: 'after', code: 'INVALID' },
      ]),
      isBug: false,
    };
  }
  if (error instanceof HttpException) {
    // Nest's own exception layer (unknown routes) wraps Fastify's 4xx errors in an HttpException.
    if (isFastifyClientError(error.cause) && error.cause.code?.startsWith('FST_'))
      return { error: fromFastifyError(error.cause), isBug: false };
    const status = error.getStatus();
    if (status === 404) return { error: routeNotServed(), isBug: false };
    const message = status >= 500 ? 'internal error' : plainMessage(error);
    return { error: new HubSpotError(status, HTTP_CATEGORY[status] ?? 'ERROR', message), isBug: status >= 500 };
  }
  if (isFastifyClientError(error)) return { error: fromFastifyError(error), isBug: false };
  return { error: new HubSpotError(500, 'INTERNAL_ERROR', 'An internal error occurred.'), isBug: true };
}

/**
 * A path no route serves: often a HubSpot API this service does not implement. Said so, with where
 * the served ones are listed, so it is not mistaken for a record that does not exist (whose 404
 * names the record).
 */
function routeNotServed(): HubSpotError {
  return new HubSpotError(
    404,
    'OBJECT_NOT_FOUND',
    'This path is not served by this service: it implements the HubSpot APIs listed in its OpenAPI document (/docs). A record that does not exist answers a 404 of its own.',
    { subCategory: 'ROUTE_NOT_SERVED', links: { docs: '/docs' } },
  );
}

/** Seconds a client should wait before retrying a write the storage refused. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

const STORAGE_STATE = { full: 'full', read_only: 'read-only', io: 'failing', corrupt: 'damaged' } as const;

/**
 * A write the storage refused (disk full, read-only, I/O errors): 507 Insufficient Storage with
 * Retry-After. Nothing of the request was stored, so the same request may simply be sent again.
 */
function storageRefused(reason: keyof typeof STORAGE_STATE): HubSpotError {
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

function isFastifyClientError(error: unknown): error is FastifyLikeError {
  const f = error as FastifyLikeError;
  return !!f && typeof f === 'object' && typeof f.statusCode === 'number' && f.statusCode >= 400 && f.statusCode < 500;
}

function plainMessage(error: HttpException): string {
  const r = error.getResponse();
  if (typeof r === 'string') return r;
  const m = (r as { message?: unknown }).message;
  if (Array.isArray(m)) return m.join('; ');
  return typeof m === 'string' ? m : error.message;
}

function fromFastifyError(f: FastifyLikeError): HubSpotError {
  const status = f.statusCode!;
  switch (f.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HubSpotError(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than this endpoint accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HubSpotError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type for this endpoint.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return HubSpotError.validation('The request body is empty but Content-Type is application/json.', [
        { message: 'A JSON body is required', in: 'body', code: 'REQUIRED' },
      ]);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return HubSpotError.validation('Content-Length does not match the body.');
    // The router's refusals of the path itself. Fixed texts: Fastify's quote the path, which may
    // hold an access or refresh token (GET /oauth/v1/access-tokens/{token}).
    case 'FST_ERR_BAD_URL':
      return HubSpotError.validation('Invalid input: the request path is not valid percent-encoded UTF-8.', [
        { message: 'Malformed percent-encoding in the path', in: 'path', code: 'INVALID_ENCODING' },
      ]);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new HubSpotError(
        414,
        'URI_TOO_LONG',
        'A segment of the request path is longer than this service accepts.',
      );
    default:
      if (status === 400) {
        // Never the parser's own message: JSON.parse quotes the input around the error, which may
        // be a password or a secret. A fixed text, with the parser's error code only.
        return HubSpotError.validation('Invalid input: the request body could not be parsed.', [
          { message: 'The body is not valid for its Content-Type', in: 'body', code: 'INVALID_BODY' },
        ]);
      }
      return new HubSpotError(status, HTTP_CATEGORY[status] ?? 'ERROR', sanitize(f.message ?? 'Bad request'));
  }
}

/** Parser messages can echo input; keep them short and printable. */
function sanitize(message: string): string {
  // eslint-disable-next-line no-control-regex
  return message.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 200);
}
