import { type ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';

/**
 * The CRM records module's errors, one named factory each (the module's catalogue): every
 * HubSpotError the module throws is made here.
 */

/** One refused property value, as HubSpot describes it inside "Property values were not valid". */
export interface PropertyValueProblem {
  /** HubSpot's code: PROPERTY_DOESNT_EXIST, INVALID_OPTION, INVALID_FLOAT, INVALID_DATE, ... */
  error: string;
  name: string;
  message: string;
}

/**
 * HubSpot's 400 for bad property values: its message embeds the list of problems as JSON (apps
 * parse it); `errors[]` names each property, as every validation error of this service does.
 */
export function propertyValuesNotValid(hubId: number, problems: readonly PropertyValueProblem[]): HubSpotError {
  const listed = problems.map((p) => ({
    isValid: false,
    message: p.message,
    error: p.error,
    name: p.name,
    localizedErrorMessage: p.message,
    portalId: hubId,
  }));
  const details: ErrorDetail[] = problems.map((p) => ({ message: p.message, in: p.name, code: p.error }));
  return HubSpotError.validation(`Property values were not valid: ${JSON.stringify(listed)}`, details);
}

/** HubSpot's 409 for a second contact with an e-mail: apps parse the id out of it. */
export function contactAlreadyExists(existingId: number): HubSpotError {
  return HubSpotError.conflict(`Contact already exists. Existing ID: ${existingId}`);
}

/** A second record with the value of a property that has unique values. */
export function uniqueValueTaken(property: string, existingId: number): HubSpotError {
  return HubSpotError.conflict(
    `A record with the same value of the unique property ${property} already exists. Existing ID: ${existingId}`,
  );
}

/** A record this account does not have (or another account's, or archived when not asked for). */
export function recordNotFound(): HubSpotError {
  return HubSpotError.notFound('Object not found.  objectId are usually numeric.');
}

/** HubSpot's one error of a batch read for the ids it did not find (their list goes in its context). */
export function recordsNotFoundInBatch(objectTypeId: string): HubSpotError {
  return HubSpotError.notFound(
    `Could not get some ${objectTypeId} objects, they may be deleted or not exist. Check that ids are valid.`,
  );
}

/** A body or query value of the wrong shape: one entry per bad field. */
export function invalidInput(message: string, details: ErrorDetail[]): HubSpotError {
  return HubSpotError.validation(message, details);
}

export function tooManyInputs(count: number, max: number): HubSpotError {
  return HubSpotError.validation(`Too many inputs: ${count}. A batch takes at most ${max} inputs.`, [
    { message: `inputs holds ${count} entries; at most ${max} are allowed`, in: 'inputs', code: 'TOO_MANY_INPUTS' },
  ]);
}

export function tooManyInputsWithHistory(count: number, max: number): HubSpotError {
  return HubSpotError.validation(
    `Too many inputs: ${count}. A batch read with propertiesWithHistory takes at most ${max} inputs.`,
    [
      {
        message: `inputs holds ${count} entries; at most ${max} are allowed with propertiesWithHistory`,
        in: 'inputs',
        code: 'TOO_MANY_INPUTS',
      },
    ],
  );
}

/** An `idProperty` that is not a unique property of the type (HubSpot looks records up only by those). */
export function notAUniqueProperty(name: string): HubSpotError {
  return HubSpotError.validation(`${name} is not a unique property and cannot be used as idProperty.`, [
    { message: `${name} does not have unique values`, in: 'idProperty', code: 'INVALID_ID_PROPERTY' },
  ]);
}

export function cannotMergeIntoItself(): HubSpotError {
  return HubSpotError.validation('A record cannot be merged into itself.', [
    { message: 'objectIdToMerge must differ from primaryObjectId', in: 'objectIdToMerge', code: 'INVALID' },
  ]);
}

/** Two inputs of one batch name the same record or unique value. */
export function duplicateInputs(what: string): HubSpotError {
  return HubSpotError.validation(`Duplicate ${what} found in batch input.`, [
    { message: `each input must name a different ${what}`, in: 'inputs', code: 'DUPLICATE_INPUT' },
  ]);
}

/**
 * A create past the account's record ceiling (its tier's, or the override an admin set): HubSpot's
 * limits error in the style of the CRM schema module's (400, `subCategory`, `context`).
 */
export function recordLimitExceeded(ceiling: {
  what: string;
  subCategory: string;
  limit: number;
  usage: number;
  tier: string;
  overridden: boolean;
}): HubSpotError {
  const { what, subCategory, limit, usage, tier, overridden } = ceiling;
  const source = overridden ? 'set for this account' : `of the ${tier} tier`;
  const message =
    `You have reached your limit of ${what}: ${usage} of ${limit} in use (limit ${source}). ` +
    `Cannot create another record; archive or delete unused ${what} or ask for a higher limit.`;
  const context = { limit: [String(limit)], usage: [String(usage)], tier: [tier] };
  return new HubSpotError(400, 'VALIDATION_ERROR', message, {
    subCategory,
    context,
    errors: [{ message, code: 'LIMIT_EXCEEDED', subCategory, context }],
  });
}

/** A create's association whose type id does not start at the created record's type (HubSpot's 400). */
export function invalidCreateAssociationType(fromObjectTypeId: string, category: string, typeId: number): HubSpotError {
  return HubSpotError.validation(`${category} association type ${typeId} does not exist from ${fromObjectTypeId}.`, [
    {
      message: `no association type ${typeId} (${category}) from ${fromObjectTypeId}`,
      in: 'associations.types.associationTypeId',
      code: 'INVALID',
    },
  ]);
}

/** The types of one association of a create lead to different object types. */
export function mixedCreateAssociationTargets(): HubSpotError {
  return HubSpotError.validation('The types of one association must all lead to the same object type.', [
    { message: 'types lead to different object types', in: 'associations.types', code: 'INVALID' },
  ]);
}

/** A create's association target that is not a live record of the account (HubSpot's 404, as the associations API answers it). */
export function associationTargetsNotFound(objectTypeId: string, ids: readonly string[]): HubSpotError {
  return new HubSpotError(404, 'OBJECT_NOT_FOUND', `No ${objectTypeId} objects with ids: ${ids.join(', ')}`, {
    context: { ids: [...ids] },
  });
}

/**
 * HubSpot keeps an archived record restorable for 90 days (its knowledge base, "Restore deleted
 * records"); later it is gone from the recycle bin. The days and the archive time go in `context`.
 */
export function restoreWindowPassed(archivedAt: number, windowDays: number): HubSpotError {
  const message = `The record was archived more than ${windowDays} days ago and can no longer be restored.`;
  const context = { archivedAt: [new Date(archivedAt).toISOString()], windowDays: [String(windowDays)] };
  return new HubSpotError(400, 'VALIDATION_ERROR', message, {
    subCategory: 'RESTORE_WINDOW_PASSED',
    context,
    errors: [{ message, in: 'objectId', code: 'RESTORE_WINDOW_PASSED', context }],
  });
}
