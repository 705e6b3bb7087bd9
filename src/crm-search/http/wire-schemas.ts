import {
  arrayOf,
  bool,
  dateTime,
  int32,
  mapOf,
  nullableStr,
  object,
  str,
  type WireOperation,
  type WireSchema,
  wireOperations,
} from '../../platform/http/wire-schema';

/**
 * SimplePublicObject as search sends it (values as strings, null for a property without a value; no
 * history, no associations).
 */
const SEARCH_RESULT = object(
  { id: str(), properties: mapOf(nullableStr()), createdAt: dateTime(), updatedAt: dateTime(), archived: bool() },
  { archivedAt: dateTime() },
);

/** CollectionResponseWithTotalSimplePublicObject: `paging.next.after` is the next page's offset. */
export const SEARCH_ANSWER_SCHEMA: WireSchema = object(
  { total: int32(), results: arrayOf(SEARCH_RESULT) },
  { paging: object({}, { next: object({ after: str() }, { link: str() }) }) },
);

export const CRM_SEARCH_WIRE_OPERATIONS: WireOperation[] = wireOperations(
  {
    v3: { prefix: '/crm/v3/objects', specFile: 'v3/objects.json' },
    '2026-03': { prefix: '/crm/objects/2026-03', specFile: '2026-03/objects.json' },
    '2026-09': { prefix: '/crm/objects/2026-09', specFile: '2026-09/objects.json' },
  },
  [
    {
      method: 'POST',
      path: '/{objectType}/search',
      status: 200,
      name: 'CollectionResponseWithTotalSimplePublicObject',
      schema: SEARCH_ANSWER_SCHEMA,
    },
  ],
);
