import type { ResolvedObjectType } from './object-types';

/** A property group as stored: HubSpot's PropertyGroup without `archived` (the state holds active ones only). */
export interface PropertyGroupDefinition {
  name: string;
  label: string;
  displayOrder: number;
}

const group = (name: string, label: string, displayOrder: number): PropertyGroupDefinition => ({
  name,
  label,
  displayOrder,
});

/**
 * The groups HubSpot defines for each standard object type (a subset: the ones apps put their
 * properties in). They always exist, cannot be changed or archived, and the default properties
 * live in the first of each list.
 */
export const DEFAULT_PROPERTY_GROUPS: Readonly<Record<string, readonly PropertyGroupDefinition[]>> = {
  '0-1': [
    group('contactinformation', 'Contact information', 0),
    group('contact_activity', 'Contact activity', 1),
    group('conversioninformation', 'Conversion information', 2),
    group('emailinformation', 'Email information', 3),
    group('socialmediainformation', 'Social media information', 4),
    group('analyticsinformation', 'Web analytics history', 5),
  ],
  '0-2': [
    group('companyinformation', 'Company information', 0),
    group('company_activity', 'Company activity', 1),
    group('socialmediainformation', 'Social media information', 2),
    group('analyticsinformation', 'Web analytics history', 3),
  ],
  '0-3': [
    group('dealinformation', 'Deal information', 0),
    group('deal_activity', 'Deal activity', 1),
    group('analyticsinformation', 'Web analytics history', 2),
  ],
  '0-5': [group('ticketinformation', 'Ticket information', 0), group('ticket_activity', 'Ticket activity', 1)],
};

/** A custom object type's one default group (its schema's properties are created in it). */
export const customDefaultGroupName = (schemaName: string) => `${schemaName.toLowerCase()}_information`;

/** HubSpot-defined groups of an object type: fixed for standard types, `<name>_information` for custom ones. */
export function defaultGroupsOf(resolved: ResolvedObjectType): readonly PropertyGroupDefinition[] {
  if (resolved.kind === 'standard') return DEFAULT_PROPERTY_GROUPS[resolved.objectTypeId] ?? [];
  return [group(customDefaultGroupName(resolved.name), `${resolved.name} information`, 0)];
}

export const GROUP_NAME = /^[a-z0-9][a-z0-9_]*$/;
export const MAX_GROUP_NAME_LENGTH = 100;
