/**
 * The CRM schema module's events that other modules' read models follow: the account's association
 * definitions (the schemas' and the associations v4 labels, one id sequence), a schema's own with it.
 */
export {
  LimitsEventType,
  type AssociationDefinition,
  type AssociationDefinitionCreated,
  type AssociationDefinitionDeleted,
  type AssociationDefinitionUpdated,
  type CustomObjectSchemaCreated,
} from './domain/limits-events';
