/**
 * What search needs to know per object type: the names of the system values every record has (its
 * id, create and last-modified dates — the records module shows the same names), the properties a
 * result shows when none are asked for, and HubSpot's default searchable properties, which `query`
 * looks in (HubSpot's search guide, "Search default searchable properties").
 */
export interface SearchTypeTraits {
  createdProperty: string;
  modifiedProperty: string;
  defaultProperties: readonly string[];
  searchableProperties: readonly string[];
}

const STANDARD: Record<string, SearchTypeTraits> = {
  '0-1': {
    createdProperty: 'createdate',
    modifiedProperty: 'lastmodifieddate',
    defaultProperties: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
    searchableProperties: [
      'firstname',
      'lastname',
      'email',
      'phone',
      'hs_additional_emails',
      'fax',
      'mobilephone',
      'company',
      'hs_marketable_until_renewal',
    ],
  },
  '0-2': {
    createdProperty: 'createdate',
    modifiedProperty: 'hs_lastmodifieddate',
    defaultProperties: ['createdate', 'domain', 'hs_lastmodifieddate', 'hs_object_id', 'name'],
    searchableProperties: ['website', 'phone', 'name', 'domain'],
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
    searchableProperties: ['dealname', 'pipeline', 'dealstage', 'description', 'dealtype'],
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
    searchableProperties: ['subject', 'content', 'hs_pipeline_stage', 'hs_ticket_category', 'hs_ticket_id'],
  },
};

const CUSTOM: SearchTypeTraits = {
  createdProperty: 'hs_createdate',
  modifiedProperty: 'hs_lastmodifieddate',
  defaultProperties: ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  // A custom object's primary display property is searchable too; the schema names it (added by the caller).
  searchableProperties: [],
};

export function searchTypeTraits(objectTypeId: string): SearchTypeTraits {
  return STANDARD[objectTypeId] ?? CUSTOM;
}

/** The system values of a record, as HubSpot shows them (strings). */
export function systemValuesOf(objectTypeId: string, id: number, createdAt: number, updatedAt: number) {
  const traits = searchTypeTraits(objectTypeId);
  return {
    hs_object_id: String(id),
    [traits.createdProperty]: new Date(createdAt).toISOString(),
    [traits.modifiedProperty]: new Date(updatedAt).toISOString(),
  };
}

/** The kinds of the system values: the id is a number, the dates are date-times. */
export function systemPropertyTypes(objectTypeId: string): Record<string, string> {
  const traits = searchTypeTraits(objectTypeId);
  return { hs_object_id: 'number', [traits.createdProperty]: 'datetime', [traits.modifiedProperty]: 'datetime' };
}

/** The scopes a search of the type accepts (any of): the type's read scopes, as for reading records. */
export function searchScopes(family: 'contacts' | 'companies' | 'deals' | 'tickets' | 'custom'): readonly string[] {
  if (family === 'tickets') {
    return [
      'tickets',
      'crm.objects.tickets.sensitive.read',
      'crm.objects.tickets.highly_sensitive.read',
      'tickets.sensitive.v2',
      'tickets.highly_sensitive.v2',
    ];
  }
  return [
    `crm.objects.${family}.read`,
    `crm.objects.${family}.sensitive.read.v2`,
    `crm.objects.${family}.highly_sensitive.read.v2`,
  ];
}
