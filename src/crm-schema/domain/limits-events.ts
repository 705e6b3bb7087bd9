import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';

/** A property group as stored: HubSpot's PropertyGroup without `archived` (the state holds active ones only). */
export interface PropertyGroupDefinition {
  name: string;
  label: string;
  displayOrder: number;
}

/**
 * Event types of the limits module. Stable strings: they are what storage holds.
 * Every event of one account lives in that account's own stream, so the ceilings are checked
 * against a consistent count (expected revision) and never against a lagging read model.
 */
export const LimitsEventType = {
  PropertyCreated: 'limits.PropertyCreated',
  PropertyArchived: 'limits.PropertyArchived',
  CustomObjectSchemaCreated: 'limits.CustomObjectSchemaCreated',
  CustomObjectSchemaArchived: 'limits.CustomObjectSchemaArchived',
  CustomObjectSchemaPurged: 'limits.CustomObjectSchemaPurged',
  AccountLimitsOverridden: 'limits.AccountLimitsOverridden',
  CustomObjectSchemaUpdated: 'limits.CustomObjectSchemaUpdated',
  AssociationDefinitionCreated: 'limits.AssociationDefinitionCreated',
  AssociationDefinitionDeleted: 'limits.AssociationDefinitionDeleted',
  PropertyUpdated: 'limits.PropertyUpdated',
  PropertyGroupCreated: 'limits.PropertyGroupCreated',
  PropertyGroupUpdated: 'limits.PropertyGroupUpdated',
  PropertyGroupArchived: 'limits.PropertyGroupArchived',
} as const;

export const limitsAccountStream = (hubId: number) => `limits.account-${hubId}`;

export interface PropertyOption {
  label: string;
  value: string;
  description: string;
  displayOrder: number;
  hidden: boolean;
}

/** A property definition as stored: every optional field of HubSpot's PropertyCreate resolved to its default. */
export interface PropertyDefinition {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  description: string;
  options: PropertyOption[];
  displayOrder: number;
  hasUniqueValue: boolean;
  hidden: boolean;
  formField: boolean;
  externalOptions: boolean;
  referencedObjectType: string | null;
  /** Only for fieldType `calculation_equation`. */
  calculationFormula: string | null;
  /** Display hints and sensitivity: absent when not given (and in events older than them). */
  numberDisplayHint?: string;
  textDisplayHint?: string;
  showCurrencySymbol?: boolean;
  currencyPropertyName?: string;
  /** Absent means non_sensitive. */
  dataSensitivity?: 'sensitive' | 'highly_sensitive';
}

export interface PropertyCreated {
  type: typeof LimitsEventType.PropertyCreated;
  data: {
    hubId: number;
    objectTypeId: string;
    property: PropertyDefinition;
    /** fieldType calculation_equation: counts against the calculated-properties ceiling. */
    calculated: boolean;
    createdUserId: number | null;
    createdAt: number;
  };
}

export interface PropertyArchived {
  type: typeof LimitsEventType.PropertyArchived;
  data: { hubId: number; objectTypeId: string; name: string; archivedAt: number };
}

/** PATCH of one property: the whole new definition of that property (not of the account). */
export interface PropertyUpdated {
  type: typeof LimitsEventType.PropertyUpdated;
  data: {
    hubId: number;
    objectTypeId: string;
    property: PropertyDefinition;
    /** Whether it counts against the calculated-properties ceiling after the change. */
    calculated: boolean;
    updatedUserId: number | null;
    updatedAt: number;
  };
}

export interface PropertyGroupCreated {
  type: typeof LimitsEventType.PropertyGroupCreated;
  data: { hubId: number; objectTypeId: string; group: PropertyGroupDefinition; createdAt: number };
}

/** The group's label and display order after a PATCH (its name never changes). */
export interface PropertyGroupUpdated {
  type: typeof LimitsEventType.PropertyGroupUpdated;
  data: { hubId: number; objectTypeId: string; group: PropertyGroupDefinition; updatedAt: number };
}

export interface PropertyGroupArchived {
  type: typeof LimitsEventType.PropertyGroupArchived;
  data: { hubId: number; objectTypeId: string; name: string; archivedAt: number };
}

export interface AssociationDefinition {
  id: string;
  fromObjectTypeId: string;
  toObjectTypeId: string;
  name: string | null;
  /** Set on definitions added after the schema (POST .../associations); the schema's own carry its date. */
  createdAt?: number;
}

export interface CustomObjectSchemaCreated {
  type: typeof LimitsEventType.CustomObjectSchemaCreated;
  /** The schema's properties follow as PropertyCreated events in the same append. */
  data: {
    hubId: number;
    objectTypeId: string;
    id: string;
    name: string;
    fullyQualifiedName: string;
    labels: { singular: string; plural: string };
    description: string | null;
    primaryDisplayProperty: string | null;
    secondaryDisplayProperties: string[];
    searchableProperties: string[];
    requiredProperties: string[];
    associations: AssociationDefinition[];
    createdUserId: number | null;
    createdAt: number;
  };
}

export interface CustomObjectSchemaArchived {
  type: typeof LimitsEventType.CustomObjectSchemaArchived;
  data: { hubId: number; objectTypeId: string; archivedAt: number };
}

/** Hard delete of an archived schema: its name can be used again. */
export interface CustomObjectSchemaPurged {
  type: typeof LimitsEventType.CustomObjectSchemaPurged;
  data: { hubId: number; objectTypeId: string; purgedAt: number };
}

/** Per-account ceilings; null clears an override (back to the tier's value). */
export interface LimitOverrides {
  calculatedProperties?: number | null;
  customObjectTypes?: number | null;
  customProperties?: number | null;
  associationLabels?: number | null;
  /** Checked by the CRM records module. */
  records?: number | null;
  customObjectRecords?: number | null;
}

export interface AccountLimitsOverridden {
  type: typeof LimitsEventType.AccountLimitsOverridden;
  data: { hubId: number; overrides: LimitOverrides; overriddenAt: number };
}

/** The fields a PATCH of a schema changed, each with its new value (null clears the description). */
export interface SchemaChanges {
  labels?: { singular: string; plural: string };
  description?: string | null;
  primaryDisplayProperty?: string;
  secondaryDisplayProperties?: string[];
  searchableProperties?: string[];
  requiredProperties?: string[];
}

/** PATCH /crm/v3/schemas/{objectType}: only the changed fields, never a copy of the whole schema. */
export interface CustomObjectSchemaUpdated {
  type: typeof LimitsEventType.CustomObjectSchemaUpdated;
  data: {
    hubId: number;
    objectTypeId: string;
    changes: SchemaChanges;
    updatedUserId: number | null;
    updatedAt: number;
  };
}

/** POST /crm/v3/schemas/{objectType}/associations: a named one is an association label of its pair. */
export interface AssociationDefinitionCreated {
  type: typeof LimitsEventType.AssociationDefinitionCreated;
  data: { hubId: number; association: AssociationDefinition; createdAt: number };
}

export interface AssociationDefinitionDeleted {
  type: typeof LimitsEventType.AssociationDefinitionDeleted;
  data: { hubId: number; fromObjectTypeId: string; associationId: string; deletedAt: number };
}

export type LimitsEvent =
  | CustomObjectSchemaUpdated
  | AssociationDefinitionCreated
  | AssociationDefinitionDeleted
  | PropertyCreated
  | PropertyArchived
  | CustomObjectSchemaCreated
  | CustomObjectSchemaArchived
  | CustomObjectSchemaPurged
  | AccountLimitsOverridden
  | PropertyUpdated
  | PropertyGroupCreated
  | PropertyGroupUpdated
  | PropertyGroupArchived;

/**
 * The module's event types for the registry. Every type is still stored in the one shape it was
 * first written in, so none needs a decoder yet; a type whose data changes shape gets an upcaster
 * here (old shape -> current), never a second type string.
 */
export const limitsEvents: EventDefinitions = {
  [LimitsEventType.PropertyCreated]: null,
  [LimitsEventType.PropertyArchived]: null,
  [LimitsEventType.CustomObjectSchemaCreated]: null,
  [LimitsEventType.CustomObjectSchemaArchived]: null,
  [LimitsEventType.CustomObjectSchemaPurged]: null,
  [LimitsEventType.AccountLimitsOverridden]: null,
  [LimitsEventType.CustomObjectSchemaUpdated]: null,
  [LimitsEventType.AssociationDefinitionCreated]: null,
  [LimitsEventType.AssociationDefinitionDeleted]: null,
  [LimitsEventType.PropertyUpdated]: null,
  [LimitsEventType.PropertyGroupCreated]: null,
  [LimitsEventType.PropertyGroupUpdated]: null,
  [LimitsEventType.PropertyGroupArchived]: null,
} satisfies Record<LimitsEvent['type'], EventDecoder | null>;
