import { arrayOf, mapOf, object, str, uuid, type WireSchema } from '../http/wire-schema';

const stringLists = () => mapOf(arrayOf(str()));

/** HubSpot's ErrorDetail: one entry per bad field (`in` names it). */
export const ERROR_DETAIL_WIRE_SCHEMA: WireSchema = object(
  { message: str() },
  { in: str(), code: str(), subCategory: str(), context: stringLists() },
);

/**
 * HubSpot's Error object, the body of every non-2xx answer (toErrorBody). `status` is always sent
 * (`error`, or the OAuth token endpoint's own codes); the token endpoint adds RFC 6749's `error` and
 * `error_description`, a 429 HubSpot's `errorType`, `policyName` and `groupName`.
 */
export const ERROR_WIRE_SCHEMA: WireSchema = object(
  { status: str(), message: str(), correlationId: uuid(), category: str() },
  {
    subCategory: str(),
    errors: arrayOf(ERROR_DETAIL_WIRE_SCHEMA),
    context: stringLists(),
    links: mapOf(str()),
    error: str(),
    error_description: str(),
    errorType: str(),
    policyName: str(),
    groupName: str(),
  },
);
