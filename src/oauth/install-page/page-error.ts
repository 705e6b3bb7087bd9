/** Thrown by a step of the install page to answer with the HTML error page (never a redirect). */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    /** Sent as Retry-After (a 429 page). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const CANNOT_CONNECT = 'This app cannot be connected';

/** A Hub ID from the path (404 page when malformed) or a form field (400 page). */
export function parsePortalId(raw: unknown, status: 400 | 404): number {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw new PageError(
      status,
      status === 404 ? 'Page not found' : CANNOT_CONNECT,
      'The account id must be a Hub ID (a positive number).',
    );
  }
  return Number(raw);
}
