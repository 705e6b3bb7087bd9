import { HubSpotError } from '../../platform/errors/hubspot-error';

/** The search module's errors, one named factory each (HubSpot's 400 VALIDATION_ERROR unless said). */

/** Past HubSpot's caps on filter groups and filters (its 2024-08-26 texts say the same). */
export function tooManyFilters(message: string, field: string): HubSpotError {
  return HubSpotError.validation(message, [{ message, in: field, code: 'TOO_MANY' }]);
}

export function tooManyQueryWords(max: number): HubSpotError {
  return HubSpotError.validation(`Invalid search request: query`, [
    { message: `query may have at most ${max} distinct words`, in: 'query', code: 'TOO_MANY' },
  ]);
}

/** HubSpot answers no result past the 10,000th. */
export function pastResultWindow(after: number, limit: number, window: number): HubSpotError {
  return HubSpotError.validation(
    `Paging past the first ${window} results is not supported: after (${after}) + limit (${limit}) must be at most ${window}. Narrow the filters (e.g. hs_object_id GT the last id, sorted by hs_object_id) instead.`,
    [{ message: `after + limit must be at most ${window}`, in: 'after', code: 'OUT_OF_RANGE' }],
  );
}

export function blankToken(operator: string): HubSpotError {
  return HubSpotError.validation(`${operator} needs a value with at least one character`, [
    { message: 'blank token', in: 'filterGroups.filters.value', code: 'INVALID' },
  ]);
}

/** A value of a number or date property that reads as neither. */
export function notANumberOrDate(value: string, property: string): HubSpotError {
  return HubSpotError.validation(
    `${JSON.stringify(value.slice(0, 100))} is not a valid value for ${property}: a number, or a date as epoch milliseconds or ISO 8601`,
    [{ message: 'not a number or a date', in: 'filterGroups.filters.value', code: 'INVALID' }],
  );
}

export function searchLagOutOfRange(max: number): HubSpotError {
  return HubSpotError.validation(`searchLagMs must be an integer from 0 to ${max}`, [
    { message: `an integer from 0 to ${max}`, in: 'searchLagMs', code: 'OUT_OF_RANGE' },
  ]);
}

export function noSuchAccount(hubId: number): HubSpotError {
  return HubSpotError.notFound(`No account with hubId ${hubId}`);
}

/** A path segment that cannot be an object type. */
export function invalidObjectTypeSegment(): HubSpotError {
  return HubSpotError.validation('Invalid objectType', [
    { message: 'not an object type', in: 'objectType', code: 'INVALID' },
  ]);
}

/** Filters or sorts on properties the object type does not have (one errors[] entry each). */
export function unknownSearchProperties(named: ReadonlyArray<{ name: string; in: string }>): HubSpotError {
  const says = (name: string) => `Property "${name}" does not exist`;
  return HubSpotError.validation(
    `There was a problem with the request: ${named.map((n) => says(n.name)).join('; ')}`,
    named.map((n) => ({
      message: says(n.name),
      in: n.in,
      code: 'PROPERTY_DOESNT_EXIST',
      context: { propertyName: [n.name] },
    })),
  );
}

/** `associations.{type}` takes the operators of a set of record ids only. */
export function unsupportedAssociationOperator(operator: string, property: string): HubSpotError {
  const message = `${operator} is not supported on ${property}: use EQ, NEQ, IN, NOT_IN, HAS_PROPERTY or NOT_HAS_PROPERTY with record ids`;
  return HubSpotError.validation(message, [{ message, in: 'filterGroups.filters.operator', code: 'INVALID' }]);
}

/** A value of `associations.{type}` that is not a record id. */
export function notARecordId(value: string, property: string): HubSpotError {
  return HubSpotError.validation(`${JSON.stringify(value.slice(0, 100))} is not a record id (${property})`, [
    { message: 'not a record id', in: 'filterGroups.filters.value', code: 'INVALID' },
  ]);
}
