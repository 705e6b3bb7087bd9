import type { PropertyDefinition } from './limits-events';

/**
 * HubSpot's standard object types that carry properties here, and how a path segment names an
 * object type: by id (`0-1`), by name (`contacts`, `contact`, `CONTACT`), or, for custom objects,
 * by `2-<n>`, by fully qualified name `p<hubId>_<name>` or by the schema's name.
 */
export interface StandardObjectType {
  objectTypeId: string;
  /** The scope family: `crm.schemas.<scopeName>.write` and friends. */
  scopeName: 'contacts' | 'companies' | 'deals' | 'tickets';
  names: readonly string[];
  singularLabel: string;
  pluralLabel: string;
  defaultGroupName: string;
  /** HubSpot-defined properties (hubspotDefined: true); their names are taken. */
  defaultProperties: readonly PropertyDefinition[];
}

const builtIn = (
  name: string,
  label: string,
  type: string,
  fieldType: string,
  groupName: string,
  displayOrder: number,
): PropertyDefinition => ({
  name,
  label,
  type,
  fieldType,
  groupName,
  description: '',
  options: [],
  displayOrder,
  hasUniqueValue: false,
  hidden: false,
  formField: fieldType !== 'calculation_equation',
  externalOptions: false,
  referencedObjectType: null,
  calculationFormula: null,
});

/** A HubSpot-defined enumeration with its fixed options (value, label), in HubSpot's order. */
const builtInEnum = (
  name: string,
  label: string,
  fieldType: string,
  groupName: string,
  displayOrder: number,
  options: ReadonlyArray<readonly [string, string]>,
): PropertyDefinition => ({
  ...builtIn(name, label, 'enumeration', fieldType, groupName, displayOrder),
  options: options.map(([value, optionLabel], i) => ({
    label: optionLabel,
    value,
    description: '',
    displayOrder: i,
    hidden: false,
  })),
});

/** HubSpot's lifecycle stages (contacts and companies share the property). */
const LIFECYCLE_STAGES = [
  ['subscriber', 'Subscriber'],
  ['lead', 'Lead'],
  ['marketingqualifiedlead', 'Marketing Qualified Lead'],
  ['salesqualifiedlead', 'Sales Qualified Lead'],
  ['opportunity', 'Opportunity'],
  ['customer', 'Customer'],
  ['evangelist', 'Evangelist'],
  ['other', 'Other'],
] as const;

/**
 * The owner: an enumeration whose options are the account's users, which this service does not
 * list, so with no options here (any value is taken, as for the pipeline properties).
 */
const owner = (label: string, group: string) => builtIn('hubspot_owner_id', label, 'enumeration', 'select', group, 20);

/** The address and contact fields contacts and companies share, in `group` from `order` on. */
const addressFields = (group: string, order: number) => [
  builtIn('phone', 'Phone Number', 'string', 'text', group, order),
  builtIn('address', 'Street Address', 'string', 'text', group, order + 1),
  builtIn('city', 'City', 'string', 'text', group, order + 2),
  builtIn('state', 'State/Region', 'string', 'text', group, order + 3),
  builtIn('zip', 'Postal Code', 'string', 'text', group, order + 4),
  builtIn('country', 'Country/Region', 'string', 'text', group, order + 5),
];

export const STANDARD_OBJECT_TYPES: readonly StandardObjectType[] = [
  {
    objectTypeId: '0-1',
    scopeName: 'contacts',
    names: ['contacts', 'contact'],
    singularLabel: 'Contact',
    pluralLabel: 'Contacts',
    defaultGroupName: 'contactinformation',
    defaultProperties: [
      builtIn('email', 'Email', 'string', 'text', 'contactinformation', 1),
      builtIn('firstname', 'First Name', 'string', 'text', 'contactinformation', 2),
      builtIn('lastname', 'Last Name', 'string', 'text', 'contactinformation', 3),
      ...addressFields('contactinformation', 4),
      builtIn('mobilephone', 'Mobile Phone Number', 'string', 'text', 'contactinformation', 10),
      builtIn('company', 'Company Name', 'string', 'text', 'contactinformation', 11),
      builtIn('jobtitle', 'Job Title', 'string', 'text', 'contactinformation', 12),
      builtIn('website', 'Website URL', 'string', 'text', 'contactinformation', 13),
      builtInEnum('lifecyclestage', 'Lifecycle Stage', 'radio', 'contactinformation', 14, LIFECYCLE_STAGES),
      builtInEnum('hs_lead_status', 'Lead Status', 'radio', 'contactinformation', 15, [
        ['NEW', 'New'],
        ['OPEN', 'Open'],
        ['IN_PROGRESS', 'In Progress'],
        ['OPEN_DEAL', 'Open Deal'],
        ['UNQUALIFIED', 'Unqualified'],
        ['ATTEMPTED_TO_CONTACT', 'Attempted to Contact'],
        ['CONNECTED', 'Connected'],
        ['BAD_TIMING', 'Bad Timing'],
      ]),
      owner('Contact owner', 'contactinformation'),
      builtIn('hs_object_id', 'Record ID', 'number', 'number', 'contactinformation', -1),
      builtIn('createdate', 'Create Date', 'datetime', 'date', 'contactinformation', -1),
      builtIn('lastmodifieddate', 'Last Modified Date', 'datetime', 'date', 'contactinformation', -1),
    ],
  },
  {
    objectTypeId: '0-2',
    scopeName: 'companies',
    names: ['companies', 'company'],
    singularLabel: 'Company',
    pluralLabel: 'Companies',
    defaultGroupName: 'companyinformation',
    defaultProperties: [
      builtIn('name', 'Company name', 'string', 'text', 'companyinformation', 1),
      builtIn('domain', 'Company Domain Name', 'string', 'text', 'companyinformation', 2),
      builtIn('industry', 'Industry', 'string', 'text', 'companyinformation', 3),
      ...addressFields('companyinformation', 4),
      builtIn('website', 'Website URL', 'string', 'text', 'companyinformation', 10),
      builtIn('description', 'Description', 'string', 'textarea', 'companyinformation', 11),
      builtIn('numberofemployees', 'Number of Employees', 'number', 'number', 'companyinformation', 12),
      builtIn('annualrevenue', 'Annual Revenue', 'number', 'number', 'companyinformation', 13),
      builtInEnum('lifecyclestage', 'Lifecycle Stage', 'radio', 'companyinformation', 14, LIFECYCLE_STAGES),
      owner('Company owner', 'companyinformation'),
      builtIn('hs_object_id', 'Record ID', 'number', 'number', 'companyinformation', -1),
      builtIn('createdate', 'Create Date', 'datetime', 'date', 'companyinformation', -1),
      builtIn('hs_lastmodifieddate', 'Last Modified Date', 'datetime', 'date', 'companyinformation', -1),
    ],
  },
  {
    objectTypeId: '0-3',
    scopeName: 'deals',
    names: ['deals', 'deal'],
    singularLabel: 'Deal',
    pluralLabel: 'Deals',
    defaultGroupName: 'dealinformation',
    defaultProperties: [
      builtIn('dealname', 'Deal Name', 'string', 'text', 'dealinformation', 1),
      builtIn('amount', 'Amount', 'number', 'number', 'dealinformation', 2),
      builtIn('pipeline', 'Pipeline', 'enumeration', 'select', 'dealinformation', 3),
      builtIn('dealstage', 'Deal Stage', 'enumeration', 'select', 'dealinformation', 4),
      builtIn('closedate', 'Close Date', 'datetime', 'date', 'dealinformation', 5),
      builtInEnum('dealtype', 'Deal Type', 'radio', 'dealinformation', 6, [
        ['newbusiness', 'New Business'],
        ['existingbusiness', 'Existing Business'],
      ]),
      builtIn('description', 'Deal Description', 'string', 'textarea', 'dealinformation', 7),
      owner('Deal owner', 'dealinformation'),
      // read by HubSpot's own amount_in_home_currency formula (multi-currency accounts)
      builtIn('hs_exchange_rate', 'Exchange rate', 'number', 'number', 'dealinformation', -1),
      builtIn('hs_object_id', 'Record ID', 'number', 'number', 'dealinformation', -1),
      builtIn('createdate', 'Create Date', 'datetime', 'date', 'dealinformation', -1),
      builtIn('hs_lastmodifieddate', 'Last Modified Date', 'datetime', 'date', 'dealinformation', -1),
    ],
  },
  {
    objectTypeId: '0-5',
    scopeName: 'tickets',
    names: ['tickets', 'ticket'],
    singularLabel: 'Ticket',
    pluralLabel: 'Tickets',
    defaultGroupName: 'ticketinformation',
    defaultProperties: [
      builtIn('subject', 'Ticket name', 'string', 'text', 'ticketinformation', 1),
      builtIn('content', 'Ticket description', 'string', 'textarea', 'ticketinformation', 2),
      builtIn('hs_pipeline', 'Pipeline', 'enumeration', 'select', 'ticketinformation', 3),
      builtIn('hs_pipeline_stage', 'Ticket status', 'enumeration', 'select', 'ticketinformation', 4),
      builtInEnum('hs_ticket_priority', 'Priority', 'select', 'ticketinformation', 5, [
        ['LOW', 'Low'],
        ['MEDIUM', 'Medium'],
        ['HIGH', 'High'],
        ['URGENT', 'Urgent'],
      ]),
      builtInEnum('hs_ticket_category', 'Category', 'checkbox', 'ticketinformation', 6, [
        ['PRODUCT_ISSUE', 'Product issue'],
        ['BILLING_ISSUE', 'Billing issue'],
        ['FEATURE_REQUEST', 'Feature request'],
        ['GENERAL_INQUIRY', 'General inquiry'],
      ]),
      owner('Ticket owner', 'ticketinformation'),
      builtIn('hs_object_id', 'Record ID', 'number', 'number', 'ticketinformation', -1),
      builtIn('createdate', 'Create Date', 'datetime', 'date', 'ticketinformation', -1),
      builtIn('hs_lastmodifieddate', 'Last Modified Date', 'datetime', 'date', 'ticketinformation', -1),
    ],
  },
];

const BY_ALIAS = new Map<string, StandardObjectType>();
for (const t of STANDARD_OBJECT_TYPES) {
  BY_ALIAS.set(t.objectTypeId, t);
  for (const n of t.names) BY_ALIAS.set(n, t);
}

export function standardObjectType(raw: string): StandardObjectType | null {
  return BY_ALIAS.get(raw.trim().toLowerCase()) ?? null;
}

export function standardObjectTypeById(objectTypeId: string): StandardObjectType | null {
  return STANDARD_OBJECT_TYPES.find((t) => t.objectTypeId === objectTypeId) ?? null;
}

/**
 * An object type's scope family: the `<family>` of `crm.objects.<family>.read`,
 * `crm.schemas.<family>.write` and friends (every custom object type shares `custom`).
 */
export type ScopeFamily = StandardObjectType['scopeName'] | 'custom';

/** Which scope family an object-type path segment needs, decided before anything is looked up. */
export function scopeFamilyOf(raw: string): ScopeFamily {
  return standardObjectType(raw)?.scopeName ?? 'custom';
}

/** A custom object type's one default group (its schema's properties are created in it). */
export const customDefaultGroupName = (schemaName: string) => `${schemaName.toLowerCase()}_information`;

export const CUSTOM_OBJECT_TYPE_ID = /^2-(\d{1,15})$/;

export const fullyQualifiedNameOf = (hubId: number, name: string) => `p${hubId}_${name}`;

/** A custom schema as the resolver needs it. */
export interface CustomTypeRef {
  objectTypeId: string;
  name: string;
  archived: boolean;
}

export type ResolvedObjectType =
  | { kind: 'standard'; objectTypeId: string; type: StandardObjectType }
  | { kind: 'custom'; objectTypeId: string; name: string };

/**
 * The properties HubSpot defines on every custom object (a subset of its documented defaults: the
 * record id, audit dates and users, owners and source fields), in the schema's default group. All
 * carry the reserved hs_ prefix, so no property an account created can share a name with them.
 */
const CUSTOM_DEFAULT_PROPERTIES: ReadonlyArray<[string, string, string, string]> = [
  ['hs_object_id', 'Record ID', 'number', 'number'],
  // Every custom object has them (HubSpot's custom object pipelines put records in stages with them);
  // a value must name one of the account's pipelines of the type and one of its stages.
  ['hs_pipeline', 'Pipeline', 'enumeration', 'select'],
  ['hs_pipeline_stage', 'Pipeline stage', 'enumeration', 'select'],
  ['hs_createdate', 'Object create date/time', 'datetime', 'date'],
  ['hs_lastmodifieddate', 'Object last modified date/time', 'datetime', 'date'],
  ['hs_created_by_user_id', 'Created by user ID', 'number', 'number'],
  ['hs_updated_by_user_id', 'Updated by user ID', 'number', 'number'],
  ['hs_all_owner_ids', 'All owner IDs', 'enumeration', 'checkbox'],
  ['hs_object_source', 'Record source', 'string', 'text'],
  ['hs_object_source_id', 'Record source ID', 'string', 'text'],
  ['hs_object_source_label', 'Record source label', 'string', 'text'],
  ['hs_object_source_user_id', 'Record creation source user ID', 'number', 'number'],
  ['hs_merged_object_ids', 'Merged record IDs', 'enumeration', 'checkbox'],
  ['hs_unique_creation_key', 'Unique creation key', 'string', 'text'],
  ['hs_was_imported', 'Performed in an import', 'bool', 'booleancheckbox'],
  ['hs_read_only', 'Read only object', 'bool', 'booleancheckbox'],
];

const customDefaultsCache = new Map<string, readonly PropertyDefinition[]>();

/** HubSpot's own properties of an object type: fixed for standard types, the same set on every custom one. */
export function hubSpotDefinedPropertiesOf(resolved: ResolvedObjectType): readonly PropertyDefinition[] {
  if (resolved.kind === 'standard') return resolved.type.defaultProperties;
  const group = customDefaultGroupName(resolved.name);
  let found = customDefaultsCache.get(group);
  if (!found) {
    found = CUSTOM_DEFAULT_PROPERTIES.map(([name, label, type, fieldType]) => ({
      ...builtIn(name, label, type, fieldType, group, -1),
      ...(type === 'bool'
        ? {
            options: [
              { label: 'True', value: 'true', description: '', displayOrder: 0, hidden: false },
              { label: 'False', value: 'false', description: '', displayOrder: 1, hidden: false },
            ],
          }
        : {}),
    }));
    if (customDefaultsCache.size > 10_000) customDefaultsCache.clear();
    customDefaultsCache.set(group, found);
  }
  return found;
}

/** Whether `name` is one of HubSpot's own properties of the type. */
export function isHubSpotDefinedProperty(resolved: ResolvedObjectType, name: string): boolean {
  return hubSpotDefinedPropertiesOf(resolved).some((p) => p.name === name);
}

/**
 * Resolves a path segment against the standard types and the account's active custom schemas.
 * Archived schemas are not found (as HubSpot: an archived object type answers 404).
 */
export function resolveObjectType(
  raw: string,
  hubId: number,
  schemas: Iterable<CustomTypeRef>,
): ResolvedObjectType | null {
  const standard = standardObjectType(raw);
  if (standard) return { kind: 'standard', objectTypeId: standard.objectTypeId, type: standard };
  const key = raw.trim().toLowerCase();
  for (const s of schemas) {
    if (s.archived) continue;
    if (
      s.objectTypeId === key ||
      s.name.toLowerCase() === key ||
      fullyQualifiedNameOf(hubId, s.name).toLowerCase() === key
    ) {
      return { kind: 'custom', objectTypeId: s.objectTypeId, name: s.name };
    }
  }
  return null;
}
