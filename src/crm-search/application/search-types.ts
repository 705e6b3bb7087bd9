import { type RecordTypeTraits, recordTypeTraits, systemValues } from '../../crm-records';

/**
 * What search needs to know per object type: the records module's traits (the system values' names,
 * the properties shown when none are asked for) and HubSpot's default searchable properties, which
 * `query` looks in (HubSpot's search guide, "Search default searchable properties").
 */
export interface SearchTypeTraits extends RecordTypeTraits {
  searchableProperties: readonly string[];
}

/** A custom object's primary display property is searchable too; the schema names it (added by the caller). */
const SEARCHABLE: Record<string, readonly string[]> = {
  '0-1': [
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
  '0-2': ['website', 'phone', 'name', 'domain'],
  '0-3': ['dealname', 'pipeline', 'dealstage', 'description', 'dealtype'],
  '0-5': ['subject', 'content', 'hs_pipeline_stage', 'hs_ticket_category', 'hs_ticket_id'],
};

export function searchTypeTraits(objectTypeId: string): SearchTypeTraits {
  return { ...recordTypeTraits(objectTypeId), searchableProperties: SEARCHABLE[objectTypeId] ?? [] };
}

/** The system values of a record, as HubSpot shows them (strings): the records module's. */
export const systemValuesOf = systemValues;

/** The kinds of the system values: the id is a number, the dates are date-times. */
export function systemPropertyTypes(objectTypeId: string): Record<string, string> {
  const traits = recordTypeTraits(objectTypeId);
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
