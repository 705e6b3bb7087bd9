import { HubSpotError } from '../errors/hubspot-error';

/**
 * The executor lost the expected-revision race on every attempt it was allowed. Over HTTP it is
 * HubSpot's plain 409 CONFLICT; callers that want to know "gave up on conflicts" test the class,
 * never the shape of the error.
 */
export class ConcurrencyConflictError extends HubSpotError {
  constructor(
    readonly streamId: string,
    readonly attempts: number,
  ) {
    super(409, 'CONFLICT', 'The resource was changed by other requests at the same time; retry.');
    this.name = 'ConcurrencyConflictError';
  }
}
