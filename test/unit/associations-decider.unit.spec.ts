import { associationDecider, type AssociationCommand } from '../../src/crm-associations/domain/association.decider';
import { AssociationEventType, orderedPair } from '../../src/crm-associations/domain/association-events';
import { AssociationCatalogue } from '../../src/crm-associations/domain/association-types';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { DeciderSpecification } from '../support/decider-specification';

/** The record-pair decider, given/when/then: types added once, removed, limits from the facts. */
const spec = DeciderSpecification.for(associationDecider);
const a = { objectTypeId: '0-1', id: 5 };
const b = { objectTypeId: '0-2', id: 9 };
const facts = { now: 1_000, appId: 42, userId: 7 };
const unlabeled = { category: 'HUBSPOT_DEFINED', typeId: 279, inverseTypeId: 280 };
const primary = { category: 'HUBSPOT_DEFINED', typeId: 1, inverseTypeId: 2 };
const roomy = { pair: { usage: 0, limit: 10_000 }, byType: {} };
const add = (types = [unlabeled], usage = roomy): AssociationCommand => ({
  type: 'AddAssociationTypes',
  hubId: 1,
  a,
  b,
  fromIsA: true,
  types,
  usage,
  facts,
});
const data = { hubId: 1, a, b, at: 1_000, appId: 42, userId: 7 };
const added = (types = [unlabeled]) => ({ type: AssociationEventType.AssociationTypesAdded, data: { ...data, types } });

describe('association decider', () => {
  it('given nothing, when types are added, then they are recorded once (duplicates in the command too)', () => {
    spec
      .given([])
      .when(add([unlabeled, primary, unlabeled]))
      .then([added([unlabeled, primary])]);
  });

  it('given the types, adding them again decides nothing (idempotent, as HubSpot)', () => {
    spec.given([added()]).when(add()).thenNothing();
  });

  it('a record at its ceiling of associated records cannot take a new one', () => {
    spec
      .given([])
      .when(add([unlabeled], { pair: { usage: 10_000, limit: 10_000 }, byType: {} }))
      .thenThrows((e: unknown) => e instanceof HubSpotError && e.extras.subCategory === 'ASSOCIATION_LIMIT_EXCEEDED');
    // An existing pair taking another type does not count as a new associated record.
    spec
      .given([added()])
      .when(add([unlabeled, primary], { pair: { usage: 10_000, limit: 10_000 }, byType: {} }))
      .then([added([primary])]);
  });

  it('a type at its own ceiling (a configured label limit) is refused', () => {
    spec
      .given([])
      .when(add([primary], { pair: { usage: 0, limit: 10 }, byType: { 'HUBSPOT_DEFINED:1': { usage: 1, limit: 1 } } }))
      .thenThrows(HubSpotError);
  });

  it('removing all, or some types; nothing to remove decides nothing', () => {
    spec
      .given([added([unlabeled, primary])])
      .when({ type: 'RemoveAssociationTypes', hubId: 1, a, b, types: [primary], facts })
      .then([{ type: AssociationEventType.AssociationTypesRemoved, data: { ...data, types: [primary] } }]);
    spec
      .given([added([unlabeled, primary])])
      .when({ type: 'RemoveAssociationTypes', hubId: 1, a, b, types: 'all', facts })
      .then([{ type: AssociationEventType.AssociationTypesRemoved, data: { ...data, types: [unlabeled, primary] } }]);
    spec.given([]).when({ type: 'RemoveAssociationTypes', hubId: 1, a, b, types: 'all', facts }).thenNothing();
  });

  it('a pair has one order whichever end is named first; HubSpot’s types have their inverses', () => {
    expect(orderedPair(b, a)).toEqual({ a, b, fromIsA: false });
    const catalogue = AssociationCatalogue.hubspotDefined();
    for (const [from, to, typeId, inverse] of [
      ['0-1', '0-2', 279, 280],
      ['0-1', '0-2', 1, 2],
      ['0-3', '0-1', 3, 4],
      ['0-3', '0-2', 341, 342],
      ['0-5', '0-1', 16, 15],
    ] as const) {
      expect(catalogue.find(from, to, typeId)?.inverseTypeId).toBe(inverse);
      expect(catalogue.find(to, from, inverse)?.inverseTypeId).toBe(typeId);
    }
    expect(catalogue.defaultOf('0-1', '0-2')?.typeId).toBe(279);
  });
});
