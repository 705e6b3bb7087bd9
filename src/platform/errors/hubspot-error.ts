/**
 * HubSpot's Error object (see the `Error` schema of every official spec), as an exception
 * that any layer may throw. The HTTP layer turns it into the response body.
 */
export interface ErrorDetail {
  message: string;
  in?: string;
  code?: string;
  subCategory?: string;
  context?: Record<string, string[]>;
}

export interface HubSpotErrorExtras {
  subCategory?: string;
  context?: Record<string, string[]>;
  errors?: ErrorDetail[];
  links?: Record<string, string>;
  /** HubSpot's `status` field; `error` unless an endpoint (OAuth) uses its own codes. */
  status?: string;
  /** Extra top-level fields some endpoints add (RFC 6749 `error`, `error_description`, rate-limit fields). */
  fields?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class HubSpotError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly category: string,
    message: string,
    readonly extras: HubSpotErrorExtras = {},
  ) {
    super(message);
    this.name = 'HubSpotError';
  }

  static validation(message: string, errors: ErrorDetail[] = [], subCategory?: string): HubSpotError {
    return new HubSpotError(400, 'VALIDATION_ERROR', message, { errors, subCategory });
  }

  static notFound(message: string): HubSpotError {
    return new HubSpotError(404, 'OBJECT_NOT_FOUND', message);
  }

  static conflict(message: string, subCategory?: string): HubSpotError {
    return new HubSpotError(409, 'CONFLICT', message, { subCategory });
  }

  static invalidAuthentication(message: string): HubSpotError {
    return new HubSpotError(401, 'INVALID_AUTHENTICATION', message);
  }

  static expiredAuthentication(message: string, extras: HubSpotErrorExtras = {}): HubSpotError {
    return new HubSpotError(401, 'EXPIRED_AUTHENTICATION', message, extras);
  }

  static missingScopes(requiredScopes: string[], message?: string): HubSpotError {
    return new HubSpotError(
      403,
      'MISSING_SCOPES',
      message ?? "This app hasn't been granted all required scopes to make this call.",
      { context: { requiredScopes } },
    );
  }

  static forbidden(message: string): HubSpotError {
    return new HubSpotError(403, 'FORBIDDEN', message);
  }

  /** HubSpot's 429 (`RATE_LIMITS`); the policy's fields and headers in `extras`. */
  static rateLimits(message: string, extras: HubSpotErrorExtras): HubSpotError {
    return new HubSpotError(429, 'RATE_LIMITS', message, extras);
  }
}

export interface HubSpotErrorBody {
  status: string;
  message: string;
  correlationId: string;
  category: string;
  subCategory?: string;
  errors?: ErrorDetail[];
  context?: Record<string, string[]>;
  links?: Record<string, string>;
  [extra: string]: unknown;
}

export function toErrorBody(error: HubSpotError, correlationId: string): HubSpotErrorBody {
  const e = error.extras;
  const body: HubSpotErrorBody = {
    status: e.status ?? 'error',
    message: error.message,
    correlationId,
    category: error.category,
  };
  if (e.subCategory) body.subCategory = e.subCategory;
  if (e.errors && e.errors.length > 0) body.errors = e.errors;
  if (e.context) body.context = e.context;
  if (e.links) body.links = e.links;
  return { ...body, ...e.fields };
}
