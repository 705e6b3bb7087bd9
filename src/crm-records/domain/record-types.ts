/**
 * What differs between object types for records: the names of HubSpot's system values (the
 * record id, its create and last-modified dates, which every read shows and no write may set) and
 * the properties a read returns when it names none (HubSpot's defaults per object type).
 */
export interface RecordTypeTraits {
  createdProperty: string;
  modifiedProperty: string;
  defaultProperties: readonly string[];
}

const STANDARD: Record<string, RecordTypeTraits> = {
  '0-1': {
    createdProperty: 'createdate',
    modifiedProperty: 'lastmodifieddate',
    defaultProperties: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
  },
  '0-2': {
    createdProperty: 'createdate',
    modifiedProperty: 'hs_lastmodifieddate',
    defaultProperties: ['createdate', 'domain', 'hs_lastmodifieddate', 'hs_object_id', 'name'],
  },
  '0-3': {
    createdProperty: 'createdate',
    modifiedProperty: 'hs_lastmodifieddate',
    defaultProperties: [
      'amount',
      'closedate',
      'createdate',
      'dealname',
      'dealstage',
      'hs_lastmodifieddate',
      'hs_object_id',
      'pipeline',
    ],
  },
  '0-5': {
    createdProperty: 'createdate',
    modifiedProperty: 'hs_lastmodifieddate',
    defaultProperties: [
      'content',
      'createdate',
      'hs_lastmodifieddate',
      'hs_object_id',
      'hs_pipeline',
      'hs_pipeline_stage',
      'hs_ticket_category',
      'hs_ticket_priority',
      'subject',
    ],
  },
};

const CUSTOM: RecordTypeTraits = {
  createdProperty: 'hs_createdate',
  modifiedProperty: 'hs_lastmodifieddate',
  defaultProperties: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
};

export function recordTypeTraits(objectTypeId: string): RecordTypeTraits {
  return STANDARD[objectTypeId] ?? CUSTOM;
}

/** HubSpot's system values of every type: shown on reads, refused on writes. */
export const SYSTEM_PROPERTIES: ReadonlySet<string> = new Set([
  'hs_object_id',
  'createdate',
  'lastmodifieddate',
  'hs_createdate',
  'hs_lastmodifieddate',
  'hs_merged_object_ids',
]);

/** The system values of one record, as strings (HubSpot sends every value as a string). */
export function systemValues(objectTypeId: string, id: number, createdAt: number, updatedAt: number) {
  const traits = recordTypeTraits(objectTypeId);
  return {
    hs_object_id: String(id),
    [traits.createdProperty]: new Date(createdAt).toISOString(),
    [traits.modifiedProperty]: new Date(updatedAt).toISOString(),
  };
}

/** The key a unique value is claimed by: e-mails are compared without case or surrounding space. */
export function uniqueValueKey(property: string, value: string): string {
  return property === 'email' ? value.trim().toLowerCase() : value;
}
