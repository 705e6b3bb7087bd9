import type { ApiVersion } from '../../platform/http/api-versions';
import {
  anyVersion,
  arrayOf,
  bool,
  dateTime,
  int32,
  mapOf,
  num,
  object,
  str,
  strEnum,
  type WireOperation,
  type WireSchema,
  wireOperations,
} from '../../platform/http/wire-schema';
import { DATA_SENSITIVITIES, NUMBER_DISPLAY_HINTS, TEXT_DISPLAY_HINTS } from '../domain/property-rules';

/**
 * What the limits, properties, property-groups and object-schemas endpoints send, by HubSpot's
 * names (limitsTracking.json, properties.json, schemas.json of v3, 2026-03 and 2026-09). Every field
 * listed as required is always sent. Counts are int32 (2026-09's format; v3 says int64: ours fit both).
 */
const CURRENT = ['v3', '2026-03', '2026-09'] as const;
const results = (items: WireSchema) => object({ results: arrayOf(items) });
const objectTypeLabels = () => ({ objectTypeId: str(), singularLabel: str(), pluralLabel: str() });

export const CALCULATED_PROPERTY_LIMITS_SCHEMA = object({
  overallLimit: int32(),
  overallUsage: int32(),
  overallPercentage: num(),
  byObjectType: arrayOf(object({ ...objectTypeLabels(), usage: int32() })),
});

export const CUSTOM_OBJECT_TYPE_LIMITS_SCHEMA = object({ limit: int32(), usage: int32(), percentage: num() });

export const CUSTOM_PROPERTY_LIMITS_SCHEMA = object({
  overallLimit: int32(),
  overallUsage: int32(),
  overallPercentage: num(),
  byObjectType: arrayOf(object({ ...objectTypeLabels(), usage: int32(), limit: int32(), percentage: num() })),
});

export const ASSOCIATION_LABEL_LIMITS_SCHEMA = object({
  results: arrayOf(
    object({
      fromObjectType: object(objectTypeLabels()),
      toObjectType: object(objectTypeLabels()),
      limit: int32(),
      usage: int32(),
      percentage: num(),
      allLabels: arrayOf(str()),
    }),
  ),
});

/**
 * HubSpot's Property, as toPropertyView writes it. The display hints are sent once set, at every
 * version: v3's and 2026-03's Property declare all four; 2026-09's declares only showCurrencySymbol
 * (its objects are open, so clients of 2026-09 read past the other three).
 */
export const PROPERTY_SCHEMA = object(
  {
    name: str(),
    label: str(),
    type: str(),
    fieldType: str(),
    description: str(),
    groupName: str(),
    options: arrayOf(object({ label: str(), value: str(), description: str(), displayOrder: int32(), hidden: bool() })),
    displayOrder: int32(),
    calculated: bool(),
    externalOptions: bool(),
    hasUniqueValue: bool(),
    hidden: bool(),
    formField: bool(),
    dataSensitivity: strEnum(...DATA_SENSITIVITIES),
    modificationMetadata: object({ archivable: bool(), readOnlyDefinition: bool(), readOnlyValue: bool() }),
    archived: bool(),
  },
  {
    hubspotDefined: bool(),
    calculationFormula: str(),
    numberDisplayHint: strEnum(...NUMBER_DISPLAY_HINTS),
    textDisplayHint: strEnum(...TEXT_DISPLAY_HINTS),
    showCurrencySymbol: bool(),
    currencyPropertyName: str(),
    referencedObjectType: str(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
    archivedAt: dateTime(),
    createdUserId: str(),
    updatedUserId: str(),
  },
);

const stringLists = () => mapOf(arrayOf(str()));

/** HubSpot's StandardError: one per failed item of a batch. */
const STANDARD_ERROR = object(
  {
    status: str(),
    category: str(),
    message: str(),
    context: stringLists(),
    errors: arrayOf(object({ message: str() }, { in: str(), code: str(), subCategory: str(), context: stringLists() })),
    links: mapOf(str()),
  },
  {},
);

/** BatchResponseProperty, with `errors` and `numErrors` when some items failed (207, or 200 at 2026-09). */
export const PROPERTY_BATCH_SCHEMA = object(
  { status: strEnum('COMPLETE'), results: arrayOf(PROPERTY_SCHEMA), startedAt: dateTime(), completedAt: dateTime() },
  { errors: arrayOf(STANDARD_ERROR), numErrors: int32(), requestedAt: dateTime() },
);

export const PROPERTY_GROUP_SCHEMA = object({ name: str(), label: str(), displayOrder: int32(), archived: bool() });

const labels = () => object({ singular: str(), plural: str() });
const schemaFields = () => ({
  id: str(),
  objectTypeId: str(),
  fullyQualifiedName: str(),
  name: str(),
  labels: labels(),
  secondaryDisplayProperties: arrayOf(str()),
  searchableProperties: arrayOf(str()),
  requiredProperties: arrayOf(str()),
  archived: bool(),
});

export const ASSOCIATION_DEFINITION_SCHEMA = object(
  { id: str(), fromObjectTypeId: str(), toObjectTypeId: str() },
  { name: str(), createdAt: dateTime(), updatedAt: dateTime() },
);

/** The schema fields from 2026-03 on: `allowsSensitiveProperties` always (false: none here). */
const sensitive = (v: ApiVersion): Record<string, WireSchema> =>
  v === 'v3' ? {} : { allowsSensitiveProperties: alwaysFalse() };
const alwaysFalse = (): WireSchema => ({ type: 'boolean', enum: [false] });

/** HubSpot's ObjectSchema; the audit fields are left out with includeAuditMetadata=false. */
function objectSchema(v: ApiVersion): WireSchema {
  return object(
    {
      ...schemaFields(),
      ...sensitive(v),
      properties: arrayOf(PROPERTY_SCHEMA),
      associations: arrayOf(ASSOCIATION_DEFINITION_SCHEMA),
    },
    {
      description: str(),
      primaryDisplayProperty: str(),
      createdAt: dateTime(),
      updatedAt: dateTime(),
      createdByUserId: int32(),
      updatedByUserId: int32(),
    },
  );
}

/** HubSpot's ObjectTypeDefinition (the PATCH answer). */
function objectTypeDefinition(v: ApiVersion): WireSchema {
  return object(
    { ...schemaFields(), ...sensitive(v), portalId: int32(), createdAt: dateTime(), updatedAt: dateTime() },
    { description: str(), primaryDisplayProperty: str() },
  );
}

const byVersion = (make: (v: ApiVersion) => WireSchema) =>
  Object.fromEntries(CURRENT.map((v) => [v, make(v)])) as Record<(typeof CURRENT)[number], WireSchema>;
export const OBJECT_SCHEMA_SCHEMAS = byVersion(objectSchema);
const OBJECT_SCHEMA_LISTS = byVersion((v) => results(objectSchema(v)));
export const OBJECT_TYPE_DEFINITION_SCHEMAS = byVersion(objectTypeDefinition);

const api = (prefix: (v: ApiVersion) => string, file: string) =>
  Object.fromEntries(CURRENT.map((v) => [v, { prefix: prefix(v), specFile: `${v}/${file}` }]));

/** Every success answer of the limits module's HubSpot endpoints. */
export const LIMITS_WIRE_OPERATIONS: WireOperation[] = [
  ...wireOperations(
    {
      ...api((v) => `/crm/limits/${v}`, 'limitsTracking.json'),
      v3: { prefix: '/crm/v3/limits', specFile: 'limitsTracking.json' },
    },
    [
      {
        method: 'GET',
        path: '/calculated-properties',
        status: 200,
        name: 'CalculatedPropertyLimitResponse',
        schema: CALCULATED_PROPERTY_LIMITS_SCHEMA,
      },
      {
        method: 'GET',
        path: '/custom-object-types',
        status: 200,
        name: 'CustomObjectLimitResponse',
        schema: CUSTOM_OBJECT_TYPE_LIMITS_SCHEMA,
      },
      {
        method: 'GET',
        path: '/custom-properties',
        status: 200,
        name: 'CustomPropertyLimitResponse',
        schema: CUSTOM_PROPERTY_LIMITS_SCHEMA,
      },
      {
        method: 'GET',
        path: '/associations/labels',
        status: 200,
        name: 'CollectionResponseAssociationLabelLimitResponseNoPaging',
        schema: ASSOCIATION_LABEL_LIMITS_SCHEMA,
      },
    ],
  ),
  ...wireOperations(
    {
      ...api((v) => `/crm/properties/${v}`, 'properties.json'),
      v3: { prefix: '/crm/v3/properties', specFile: 'v3/properties.json' },
    },
    [
      {
        method: 'GET',
        path: '/{objectType}',
        status: 200,
        name: 'CollectionResponsePropertyNoPaging',
        schema: results(PROPERTY_SCHEMA),
      },
      { method: 'POST', path: '/{objectType}', status: 201, name: 'Property', schema: PROPERTY_SCHEMA },
      { method: 'GET', path: '/{objectType}/{propertyName}', status: 200, name: 'Property', schema: PROPERTY_SCHEMA },
      { method: 'PATCH', path: '/{objectType}/{propertyName}', status: 200, name: 'Property', schema: PROPERTY_SCHEMA },
      {
        method: 'POST',
        path: '/{objectType}/batch/create',
        status: 201,
        name: 'BatchResponseProperty',
        schema: PROPERTY_BATCH_SCHEMA,
        versions: ['v3', '2026-03'],
      },
      {
        method: 'POST',
        path: '/{objectType}/batch/create',
        status: 207,
        name: 'BatchResponsePropertyWithErrors',
        schema: PROPERTY_BATCH_SCHEMA,
        versions: ['v3', '2026-03'],
      },
      {
        method: 'POST',
        path: '/{objectType}/batch/create',
        status: 200,
        name: 'BatchResponseProperty',
        schema: PROPERTY_BATCH_SCHEMA,
        versions: ['2026-09'],
      },
      {
        method: 'POST',
        path: '/{objectType}/batch/read',
        status: 200,
        name: 'BatchResponseProperty',
        schema: PROPERTY_BATCH_SCHEMA,
      },
      {
        method: 'POST',
        path: '/{objectType}/batch/read',
        status: 207,
        name: 'BatchResponsePropertyWithErrors',
        schema: PROPERTY_BATCH_SCHEMA,
        versions: ['v3', '2026-03'],
      },
      {
        method: 'GET',
        path: '/{objectType}/groups',
        status: 200,
        name: 'CollectionResponsePropertyGroupNoPaging',
        schema: results(PROPERTY_GROUP_SCHEMA),
      },
      {
        method: 'POST',
        path: '/{objectType}/groups',
        status: 201,
        name: 'PropertyGroup',
        schema: PROPERTY_GROUP_SCHEMA,
      },
      {
        method: 'GET',
        path: '/{objectType}/groups/{groupName}',
        status: 200,
        name: 'PropertyGroup',
        schema: PROPERTY_GROUP_SCHEMA,
      },
      {
        method: 'PATCH',
        path: '/{objectType}/groups/{groupName}',
        status: 200,
        name: 'PropertyGroup',
        schema: PROPERTY_GROUP_SCHEMA,
      },
    ],
  ),
  ...wireOperations(
    api((v) => `/crm-object-schemas/${v}/schemas`, 'schemas.json'),
    [
      {
        method: 'GET',
        path: '',
        status: 200,
        name: 'CollectionResponseObjectSchemaNoPaging',
        schema: OBJECT_SCHEMA_LISTS,
      },
      { method: 'POST', path: '', status: 201, name: 'ObjectSchema', schema: OBJECT_SCHEMA_SCHEMAS },
      {
        method: 'POST',
        path: '/batch/read',
        status: 200,
        name: 'CollectionResponseObjectSchemaNoPaging',
        schema: OBJECT_SCHEMA_LISTS,
      },
      { method: 'GET', path: '/{objectType}', status: 200, name: 'ObjectSchema', schema: OBJECT_SCHEMA_SCHEMAS },
      {
        method: 'PATCH',
        path: '/{objectType}',
        status: 200,
        name: 'ObjectTypeDefinition',
        schema: OBJECT_TYPE_DEFINITION_SCHEMAS,
      },
      {
        method: 'POST',
        path: '/{objectType}/associations',
        status: 201,
        name: 'AssociationDefinition',
        schema: ASSOCIATION_DEFINITION_SCHEMA,
      },
    ],
  ),
];

/** Component schemas by HubSpot's names (for lookups by name). */
export const LIMITS_WIRE_COMPONENTS: Record<string, WireSchema> = {
  CustomObjectLimitResponse: CUSTOM_OBJECT_TYPE_LIMITS_SCHEMA,
  StandardError: STANDARD_ERROR,
  Property: PROPERTY_SCHEMA,
  PropertyGroup: PROPERTY_GROUP_SCHEMA,
};

/** What /docs shows for each handler (one handler serves every version). */
export const LIMITS_DOCS = {
  properties: results(PROPERTY_SCHEMA),
  groups: results(PROPERTY_GROUP_SCHEMA),
  objectSchema: anyVersion(OBJECT_SCHEMA_SCHEMAS),
  objectSchemas: anyVersion(OBJECT_SCHEMA_LISTS),
  objectTypeDefinition: anyVersion(OBJECT_TYPE_DEFINITION_SCHEMAS),
};
