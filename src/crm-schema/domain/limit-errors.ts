import type { Tier } from '../../platform/tiers';
import { ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';
import type { LimitName } from './ceilings';

/** HubSpot's subCategory for each ceiling: clients branch on it, so it never changes. */
export const LIMIT_SUBCATEGORY = {
  calculatedProperties: 'LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED',
  customObjectTypes: 'LIMITS.CUSTOM_OBJECT_TYPES_LIMIT_EXCEEDED',
  customProperties: 'LIMITS.CUSTOM_PROPERTIES_LIMIT_EXCEEDED',
  associationLabels: 'LIMITS.ASSOCIATION_LABELS_LIMIT_EXCEEDED',
  // Refused by the CRM records module (its record-errors.ts), named here so every ceiling has one.
  records: 'LIMITS.RECORDS_LIMIT_EXCEEDED',
  customObjectRecords: 'LIMITS.CUSTOM_OBJECT_RECORDS_LIMIT_EXCEEDED',
} as const;

const LIMIT_WORDS: Record<LimitName, [string, string]> = {
  calculatedProperties: ['calculated property', 'calculated properties'],
  customObjectTypes: ['custom object type', 'custom object types'],
  customProperties: ['custom property', 'custom properties'],
  associationLabels: ['association label', 'association labels'],
  records: ['record', 'records'],
  customObjectRecords: ['custom object record', 'custom object records'],
};

/** 400 VALIDATION_ERROR naming the limit, where it comes from and the usage, as the issue asks. */
export function limitExceeded(
  name: LimitName,
  limit: number,
  usage: number,
  tier: Tier,
  overridden: boolean,
  adding = 1,
  scope = '',
): HubSpotError {
  const [one, many] = LIMIT_WORDS[name];
  const source = overridden ? `set for this account` : `of the ${tier} tier`;
  const what = adding === 1 ? `another ${one}` : `${adding} more ${many}`;
  const message =
    `You have reached your limit of ${many}${scope}: ${usage} of ${limit} in use (limit ${source}). ` +
    `Cannot create ${what}; archive unused ${many} or ask for a higher limit.`;
  const subCategory = LIMIT_SUBCATEGORY[name];
  const context = { limit: [String(limit)], usage: [String(usage)], tier: [tier] };
  return new HubSpotError(400, 'VALIDATION_ERROR', message, {
    subCategory,
    context,
    errors: [{ message, code: 'LIMIT_EXCEEDED', subCategory, context }],
  });
}

/**
 * 400 for an object type in a path, body or query field that is neither standard nor an active
 * custom schema; the echoed value is cut at `maxChars` (callers' inputs are at most 200 long).
 */
export function unknownObjectType(raw: string, field = 'objectType', maxChars = 200): HubSpotError {
  const message = `Unable to infer object type from: ${raw.slice(0, maxChars)}`;
  return HubSpotError.validation(message, [{ message, in: field, code: 'INVALID_OBJECT_TYPE' }]);
}

/** HubSpot's wording for a body with broken fields: one entry per field in `errors[]`. */
export function invalidInput(errors: ErrorDetail[]): HubSpotError {
  return HubSpotError.validation(
    `Invalid input (details will vary based on the error): ${[...new Set(errors.map((e) => e.in))].join(', ')}`,
    errors,
  );
}

/**
 * 400 VALIDATION_ERROR for a ceiling other than the four limits (unique-value properties), in their
 * shape: the subCategory, the context with limit and usage, one `errors[]` entry naming the field.
 */
export function limitExceededOn(
  field: string,
  subCategory: string,
  message: string,
  limit: number,
  usage: number,
  tier: Tier,
): HubSpotError {
  const context = { limit: [String(limit)], usage: [String(usage)], tier: [tier] };
  return new HubSpotError(400, 'VALIDATION_ERROR', message, {
    subCategory,
    context,
    errors: [{ message, in: field, code: 'LIMIT_EXCEEDED', subCategory, context }],
  });
}

/** 404 for a batch read of schemas naming object types the account does not have, one entry each. */
export function objectTypesNotFound(missing: ErrorDetail[], requested: number): HubSpotError {
  return new HubSpotError(404, 'OBJECT_NOT_FOUND', `Object types not found: ${missing.length} of ${requested}`, {
    errors: missing,
  });
}
