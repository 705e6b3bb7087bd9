import { type ErrorDetail, HubSpotError } from '../errors/hubspot-error';

/**
 * Findings about a body its DTO has already validated (what the service cannot honour): one
 * `errors[]` entry each (`in` is the field's dotted path), all at once, as the validation pipe reports them.
 */
export function refuseIfAny(details: ErrorDetail[]): void {
  if (details.length === 0) return;
  throw HubSpotError.validation(
    `Invalid input (details will vary based on the error): ${details.map((d) => d.in).join(', ')}`,
    details,
  );
}
