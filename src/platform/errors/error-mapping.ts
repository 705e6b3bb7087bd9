import { HttpException } from '@nestjs/common';
import { ConcurrencyError } from '../event-store/concurrency-error';
import { storageFaultOf } from '../event-store/storage-fault';
import { InvalidPositionError, StoreUnavailableError } from '../event-store/store-errors';
import { HubSpotError } from './hubspot-error';
import {
  frameworkError,
  internalError,
  routeNotServed,
  pathSegmentTooLong,
  payloadTooLarge,
  storageCorrupt,
  storageRefused,
  storeUnavailable,
  unsupportedMediaType,
} from './platform-errors';

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
}

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
    return { error: storageCorrupt(), isBug: false };
  }
  if (storageFault) return { error: storageRefused(storageFault.reason), isBug: false };
  if (error instanceof StoreUnavailableError) {
    // The request may be retried as is: appends are idempotent, and its outcome is not known.
    return { error: storeUnavailable(error.retryAfterSeconds), isBug: false };
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
    return { error: frameworkError(status, message), isBug: status >= 500 };
  }
  if (isFastifyClientError(error)) return { error: fromFastifyError(error), isBug: false };
  return { error: internalError(), isBug: true };
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
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType();
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
      return pathSegmentTooLong();
    default:
      if (status === 400) {
        // Never the parser's own message: JSON.parse quotes the input around the error, which may
        // be a password or a secret. A fixed text, with the parser's error code only.
        return HubSpotError.validation('Invalid input: the request body could not be parsed.', [
          { message: 'The body is not valid for its Content-Type', in: 'body', code: 'INVALID_BODY' },
        ]);
      }
      return frameworkError(status, sanitize(f.message ?? 'Bad request'));
  }
}

/** Parser messages can echo input; keep them short and printable. */
function sanitize(message: string): string {
  // eslint-disable-next-line no-control-regex
  return message.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 200);
}
