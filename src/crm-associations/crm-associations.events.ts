/**
 * The association events other modules may read (the webhooks journal): their type strings and
 * data shapes. The definitions live in domain/, which is pure.
 */
export {
  AssociationEventType,
  type AssociationEvent,
  type AssociationTypesAdded,
  type AssociationTypesRemoved,
  type RecordRef,
} from './domain/association-events';
