import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';

/**
 * Event types of associations between CRM records. One stream per record pair, named in a fixed
 * order of its two ends (`crm.association-{hubId}-{typeA}-{idA}-{typeB}-{idB}`, A before B), so
 * both directions of one association are one stream; its types are stored as seen from A.
 */
export const AssociationEventType = {
  AssociationTypesAdded: 'crm.AssociationTypesAdded',
  AssociationTypesRemoved: 'crm.AssociationTypesRemoved',
} as const;

/** One end of an association. */
export interface RecordRef {
  objectTypeId: string;
  id: number;
}

/** A type as stored: its category and id, seen from `a`. */
export interface StoredType {
  category: string;
  typeId: number;
  /** The same association seen from `b`. */
  inverseTypeId: number;
}

interface PairData {
  hubId: number;
  a: RecordRef;
  b: RecordRef;
  at: number;
  appId: number | null;
  userId: number | null;
}

export interface AssociationTypesAdded {
  type: typeof AssociationEventType.AssociationTypesAdded;
  data: PairData & { types: StoredType[] };
}

export interface AssociationTypesRemoved {
  type: typeof AssociationEventType.AssociationTypesRemoved;
  data: PairData & { types: StoredType[] };
}

export type AssociationEvent = AssociationTypesAdded | AssociationTypesRemoved;

const compareRefs = (x: RecordRef, y: RecordRef) =>
  x.objectTypeId < y.objectTypeId ? -1 : x.objectTypeId > y.objectTypeId ? 1 : x.id - y.id;

/** The pair in its stored order, and whether `from` is its first end. */
export function orderedPair(from: RecordRef, to: RecordRef): { a: RecordRef; b: RecordRef; fromIsA: boolean } {
  return compareRefs(from, to) <= 0 ? { a: from, b: to, fromIsA: true } : { a: to, b: from, fromIsA: false };
}

export const associationStream = (hubId: number, a: RecordRef, b: RecordRef) =>
  `crm.association-${hubId}-${a.objectTypeId}-${a.id}-${b.objectTypeId}-${b.id}`;

const asIs: EventDecoder | null = null;

export const associationEvents: EventDefinitions = {
  [AssociationEventType.AssociationTypesAdded]: asIs,
  [AssociationEventType.AssociationTypesRemoved]: asIs,
};
