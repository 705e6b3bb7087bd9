import { DEFAULT_TIER_LIMITS, Tier } from '../../src/platform/tiers';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import {
  AccountLimitsCommand,
  accountLimitsDecider,
  CommandFacts,
} from '../../src/crm-schema/domain/account-limits.decider';
import { initialAccountLimitsState } from '../../src/crm-schema/domain/account-limits.state';
import { associationLabelUsage } from '../../src/crm-schema/domain/association-definitions';
import { fold } from '../../src/platform/commands/decider';
import { LimitsEvent, LimitsEventType } from '../../src/crm-schema/domain/limits-events';
import { DeciderSpecification } from '../support/decider-specification';

const HUB = 4343;
const NOW = Date.UTC(2026, 0, 1);
const facts = (
  tier: Tier = 'enterprise',
  limits: Partial<typeof DEFAULT_TIER_LIMITS.enterprise> = {},
): CommandFacts => ({
  hubId: HUB,
  tier,
  tierLimits: { ...DEFAULT_TIER_LIMITS[tier], ...limits },
  userId: 7,
  now: NOW,
});
const spec = DeciderSpecification.for(accountLimitsDecider);

/** cars (2-1, with an unnamed association to contacts) and bikes (2-2), as a create decides them. */
function history(): LimitsEvent[] {
  const events: LimitsEvent[] = [];
  for (const [name, associatedObjects] of [
    ['cars', ['CONTACT']],
    ['bikes', []],
  ] as const) {
    const state = fold(accountLimitsDecider.evolve, initialAccountLimitsState(), events);
    events.push(
      ...accountLimitsDecider.decide(
        {
          type: 'CreateCustomObjectSchema',
          facts: facts(),
          schema: {
            name,
            labels: { singular: name, plural: `${name}s` },
            requiredProperties: [],
            properties: [
              { name: 'title', label: 'Title', type: 'string', fieldType: 'text' },
              { name: 'price', label: 'Price', type: 'number', fieldType: 'number' },
            ],
            associatedObjects: [...associatedObjects],
          },
        },
        state,
      ),
    );
  }
  return events;
}

const label = (
  name: string | undefined,
  to = '0-1',
  tier: Tier = 'enterprise',
  limit?: number,
): AccountLimitsCommand => ({
  type: 'CreateAssociationDefinition',
  facts: facts(tier, limit === undefined ? {} : { associationLabels: limit }),
  objectType: 'cars',
  association: { fromObjectTypeId: '2-1', toObjectTypeId: to, name },
});

describe('UpdateCustomObjectSchema', () => {
  it('records only the fields given, deduplicated lists, in one small event', () => {
    spec
      .given(history())
      .when({
        type: 'UpdateCustomObjectSchema',
        facts: facts(),
        objectType: 'p4343_cars',
        patch: {
          labels: { singular: ' Car ', plural: 'Cars' },
          requiredProperties: ['title', 'title'],
          clearDescription: true,
        },
      })
      .then([
        {
          type: LimitsEventType.CustomObjectSchemaUpdated,
          data: {
            hubId: HUB,
            objectTypeId: '2-1',
            changes: { labels: { singular: 'Car', plural: 'Cars' }, requiredProperties: ['title'], description: null },
            updatedUserId: 7,
            updatedAt: NOW,
          },
        },
      ]);
  });

  it('an empty patch decides nothing; unknown properties, archived or standard types are refused', () => {
    spec
      .given(history())
      .when({ type: 'UpdateCustomObjectSchema', facts: facts(), objectType: 'cars', patch: {} })
      .thenNothing();
    const error = spec
      .given(history())
      .when({
        type: 'UpdateCustomObjectSchema',
        facts: facts(),
        objectType: 'cars',
        patch: { searchableProperties: ['nope'] },
      })
      .thenThrows(HubSpotError);
    expect(error.extras.errors).toEqual([expect.objectContaining({ in: 'searchableProperties[0]' })]);
    const archived: LimitsEvent = {
      type: LimitsEventType.CustomObjectSchemaArchived,
      data: { hubId: HUB, objectTypeId: '2-1', archivedAt: NOW },
    };
    for (const objectType of ['contacts', 'nope']) {
      expect(
        spec
          .given(history())
          .when({ type: 'UpdateCustomObjectSchema', facts: facts(), objectType, patch: { description: 'x' } })
          .thenThrows(HubSpotError).httpStatus,
      ).toBe(404);
    }
    expect(
      spec
        .given([...history(), archived])
        .when({ type: 'UpdateCustomObjectSchema', facts: facts(), objectType: 'cars', patch: { description: 'x' } })
        .thenThrows(HubSpotError).httpStatus,
    ).toBe(404);
  });
});

describe('CreateAssociationDefinition / DeleteAssociationDefinition', () => {
  it('a named definition takes the next id and counts as a label of its pair; the unnamed one does not', () => {
    const events = spec
      .given(history())
      .when(label('driver'))
      .then([
        {
          type: LimitsEventType.AssociationDefinitionCreated,
          data: {
            hubId: HUB,
            association: { id: '2', fromObjectTypeId: '2-1', toObjectTypeId: '0-1', name: 'driver', createdAt: NOW },
            createdAt: NOW,
          },
        },
      ]);
    const state = fold(accountLimitsDecider.evolve, initialAccountLimitsState(), [...history(), ...events]);
    expect(associationLabelUsage(state, '2-1', '0-1')).toBe(1);
    expect(associationLabelUsage(state, '2-1', '2-2')).toBe(0);
  });

  it('the ceiling is per pair, from the tier or the override', () => {
    const withTwo = [...history()];
    for (const n of ['a', 'b']) {
      const state = fold(accountLimitsDecider.evolve, initialAccountLimitsState(), withTwo);
      withTwo.push(...accountLimitsDecider.decide(label(n, '0-1', 'enterprise', 2), state));
    }
    const error = spec
      .given(withTwo)
      .when(label('c', '0-1', 'enterprise', 2))
      .thenThrows(HubSpotError);
    expect(error.extras.subCategory).toBe('LIMITS.ASSOCIATION_LABELS_LIMIT_EXCEEDED');
    expect(error.message).toContain('2 of 2 in use (limit of the enterprise tier)');
    expect(
      spec
        .given(withTwo)
        .when(label('c', '2-2', 'enterprise', 2))
        .events(),
    ).toHaveLength(1);
    const overridden: LimitsEvent = {
      type: LimitsEventType.AccountLimitsOverridden,
      data: { hubId: HUB, overrides: { associationLabels: 3 }, overriddenAt: NOW },
    };
    expect(
      spec
        .given([...withTwo, overridden])
        .when(label('c', '0-1', 'enterprise', 2))
        .events(),
    ).toHaveLength(1);
    expect(
      spec
        .given(history())
        .when(label('x', '0-1', 'starter'))
        .thenThrows(HubSpotError).message,
    ).toContain('0 of 0 in use (limit of the starter tier)');
  });

  it('duplicates: a name once per account, one unnamed definition per pair', () => {
    const named = spec.given(history()).when(label('driver')).events();
    expect(
      spec
        .given([...history(), ...named])
        .when(label('DRIVER', '2-2'))
        .thenThrows(HubSpotError).httpStatus,
    ).toBe(409);
    expect(spec.given(history()).when(label(undefined, '0-1')).thenThrows(HubSpotError).httpStatus).toBe(409);
    expect(spec.given(history()).when(label(undefined, '2-2')).events()).toHaveLength(1);
  });

  it('delete by id or name; another type’s definition or an unknown one is 404; purging the type drops its definitions', () => {
    const named = spec.given(history()).when(label('driver')).events();
    const given = [...history(), ...named];
    const del = (objectType: string, associationIdentifier: string): AccountLimitsCommand => ({
      type: 'DeleteAssociationDefinition',
      facts: facts(),
      objectType,
      associationIdentifier,
    });
    const deleted = {
      type: LimitsEventType.AssociationDefinitionDeleted,
      data: { hubId: HUB, fromObjectTypeId: '2-1', associationId: '2', deletedAt: NOW },
    } as const;
    spec.given(given).when(del('cars', '2')).then([deleted]);
    spec.given(given).when(del('2-1', 'Driver')).then([deleted]);
    expect(spec.given(given).when(del('bikes', '2')).thenThrows(HubSpotError).httpStatus).toBe(404);
    expect(
      spec
        .given([...given, deleted])
        .when(del('cars', '2'))
        .thenThrows(HubSpotError).httpStatus,
    ).toBe(404);
    const purged: LimitsEvent[] = [
      { type: LimitsEventType.CustomObjectSchemaArchived, data: { hubId: HUB, objectTypeId: '2-1', archivedAt: NOW } },
      { type: LimitsEventType.CustomObjectSchemaPurged, data: { hubId: HUB, objectTypeId: '2-1', purgedAt: NOW } },
    ];
    const state = fold(accountLimitsDecider.evolve, initialAccountLimitsState(), [...given, ...purged]);
    expect(Object.values(state.associations).filter((a) => a.fromObjectTypeId === '2-1')).toEqual([]);
    expect(state.lastAssociationId).toBe(2); // ids are never reused
  });
});
