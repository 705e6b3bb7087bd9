/**
 * The CRM schema module's public surface: its module; the object types (HubSpot's standard types,
 * custom `2-<n>` ids and `p<hubId>_<name>` names, and how a path segment resolves to one); and the
 * scopes per object type family, so a module that serves records of these types asks the same
 * questions the same way. Everything else under src/crm-schema is internal (lint enforces it).
 */
export { CrmSchemaModule } from './crm-schema.module';
export {
  CUSTOM_OBJECT_TYPE_ID,
  STANDARD_OBJECT_TYPES,
  fullyQualifiedNameOf,
  hubSpotDefinedPropertiesOf,
  resolveObjectType,
  scopeFamilyOf,
  standardObjectType,
  standardObjectTypeById,
  type CustomTypeRef,
  type ResolvedObjectType,
  type ScopeFamily,
  type StandardObjectType,
} from './domain/object-types';
export { propertyScopes, SCHEMA_READ_SCOPES, SCHEMA_WRITE_SCOPES, type ScopesVersion } from './domain/scopes';
// For CRM records: a path's object type resolved, the account's property definitions, the limits GETs' scopes.
export { LimitsQueries, type TypeLabels } from './application/limits.queries';
export { PropertiesQueries } from './application/properties.queries';
export type { PropertyView } from './application/property.views';
export { crmLimitsReadScopes } from './domain/scopes';
// For CRM associations: the account's association labels are kept with the schemas' definitions.
export { AccountLimitsBusCommand } from './application/account-limits.commands';
