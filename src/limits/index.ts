/** The Limits module's public surface. Everything else under src/limits is internal (lint enforces it). */
export { LimitsModule } from './limits.module';
// For CRM records: object types resolved, and the account's property definitions.
export { LimitsQueries } from './application/limits.queries';
export { PropertiesQueries } from './application/properties.queries';
export type { PropertyView } from './application/limits.views';
export type { ResolvedObjectType } from './domain/object-types';
export { crmLimitsReadScopes } from './domain/scopes';
