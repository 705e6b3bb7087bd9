import { type ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';

/** The associations module's errors, one named factory each. */

/** HubSpot's text for a PUT whose body is missing (apps that send none get it from HubSpot). */
export function requestBodyExpected(): HubSpotError {
  return HubSpotError.validation('Invalid JSON input: a request body was expected, but none found', [
    { message: 'a request body was expected, but none found', in: 'body', code: 'REQUIRED' },
  ]);
}

export function invalidAssociationInput(message: string, details: ErrorDetail[]): HubSpotError {
  return HubSpotError.validation(message, details);
}

/** A type id the pair does not have (HubSpot's, or one of the account's labels). */
export function unknownAssociationType(from: string, to: string, category: string, typeId: number): HubSpotError {
  return HubSpotError.validation(`${category} association type ${typeId} does not exist between ${from} and ${to}.`, [
    {
      message: `no association type ${typeId} (${category}) from ${from} to ${to}`,
      in: 'associationTypeId',
      code: 'INVALID',
    },
  ]);
}

/** No default (unlabeled) type between the two object types. */
export function noDefaultType(from: string, to: string): HubSpotError {
  return HubSpotError.validation(`There is no default association type between ${from} and ${to}.`, [
    { message: `no default association from ${from} to ${to}`, in: 'toObjectType', code: 'INVALID' },
  ]);
}

/** One end of the association is not a record of the account (or is archived). */
export function recordsNotFound(objectTypeId: string, ids: readonly string[]): HubSpotError {
  return new HubSpotError(404, 'OBJECT_NOT_FOUND', `No ${objectTypeId} objects with ids: ${ids.join(', ')}`, {
    context: { ids: [...ids] },
  });
}

/** A record may hold at most `limit` associations of this kind (HubSpot's, or the account's configuration). */
export function associationLimitExceeded(
  fromObjectTypeId: string,
  fromId: number,
  what: string,
  limit: number,
): HubSpotError {
  return HubSpotError.validation(
    `${fromObjectTypeId} ${fromId} has reached its limit of ${limit} ${what}.`,
    [{ message: `at most ${limit} ${what}`, in: 'toObjectId', code: 'ASSOCIATION_LIMIT_EXCEEDED' }],
    'ASSOCIATION_LIMIT_EXCEEDED',
  );
}
