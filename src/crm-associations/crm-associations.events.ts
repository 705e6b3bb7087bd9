/**
 * The events of associations that other modules may read (webhooks' `associationChange`): their type
 * strings and data shapes, and HubSpot's defined types (which of them is a Primary label).
 */
export {
  AssociationEventType,
  type AssociationEvent,
  type AssociationTypesAdded,
  type AssociationTypesRemoved,
  type RecordRef,
  type StoredType,
  associationEvents,
} from './domain/association-events';
export { HUBSPOT_DEFINED_TYPES } from './domain/association-types';
