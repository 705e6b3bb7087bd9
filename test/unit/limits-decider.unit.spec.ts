import { DEFAULT_TIER_LIMITS, Tier } from '../../src/platform/tiers';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import {
  AccountLimitsCommand,
  accountLimitsDecider,
  CommandFacts,
} from '../../src/crm-schema/domain/account-limits.decider';
import { usageOf } from '../../src/crm-schema/domain/account-limits.state';
import { effectiveLimits, mergeOverrides, percentage } from '../../src/crm-schema/domain/ceilings';
import { LimitsEvent, LimitsEventType } from '../../src/crm-schema/domain/limits-events';
import { isHubSpotDefinedProperty, resolveObjectType } from '../../src/crm-schema/domain/object-types';
import type { PropertyInput } from '../../src/crm-schema/domain/property-rules';
import type { SchemaInput } from '../../src/crm-schema/domain/schema-rules';
import { DeciderSpecification } from '../support/decider-specification';

const HUB = 4242;
const NOW = Date.UTC(2026, 0, 1);

const facts = (tier: Tier = 'enterprise'): CommandFacts => ({
  hubId: HUB,
  tier,
  tierLimits: DEFAULT_TIER_LIMITS[tier],
  userId: 7,
  now: NOW,
});

const spec = DeciderSpecification.for(accountLimitsDecider);

/** given events / when command / then the HubSpotError it is refused with. */
const refused = (events: LimitsEvent[], command: AccountLimitsCommand) =>
  spec.given(events).when(command).thenThrows(HubSpotError);

const calc = (name: string, formula = 'hs_object_id * 2'): PropertyInput => ({
  name,
  label: name,
  type: 'number',
  fieldType: 'calculation_equation',
  calculationFormula: formula,
});
const text = (name: string): PropertyInput => ({
  name,
  label: name,
  type: 'string',
  fieldType: 'text',
});

const createProperty = (
  objectType: string,
  property: PropertyInput,
  tier: Tier = 'enterprise',
): AccountLimitsCommand => ({
  type: 'CreateProperty',
  facts: facts(tier),
  objectType,
  property,
});

const schema = (name: string, extra: Partial<SchemaInput> = {}): SchemaInput => ({
  name,
  labels: { singular: `${name} one`, plural: `${name} many` },
  primaryDisplayProperty: 'title',
  requiredProperties: ['title'],
  properties: [{ name: 'title', label: 'Title', type: 'string', fieldType: 'text' }],
  associatedObjects: ['CONTACT'],
  ...extra,
});

/** Runs commands in order, each decided on the events before it, as the command handler does. */
function history(commands: AccountLimitsCommand[]): LimitsEvent[] {
  const all: LimitsEvent[] = [];
  for (const c of commands) all.push(...spec.given(all).when(c).events());
  return all;
}

describe('account limits decider', () => {
  describe('CreateProperty', () => {
    it('creates a calculated property on a standard type by name or id', () => {
      const events = spec
        .given([])
        .when(createProperty('deals', calc('double_amount')))
        .events();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: LimitsEventType.PropertyCreated,
        data: { hubId: HUB, objectTypeId: '0-3', calculated: true, createdAt: NOW, createdUserId: 7 },
      });
      const byId = spec
        .given([])
        .when(createProperty('0-1', text('favourite_colour')))
        .events();
      expect(byId[0]).toMatchObject({ data: { objectTypeId: '0-1', calculated: false } });
    });

    it('fills HubSpot defaults and keeps the formula only on calculated properties', () => {
      const events = spec
        .given([])
        .when(createProperty('contacts', calc('score', '  hs_object_id + 1  ')))
        .events();
      const data = (events[0] as Extract<LimitsEvent, { type: 'limits.PropertyCreated' }>).data;
      expect(data.property).toMatchObject({
        calculationFormula: 'hs_object_id + 1',
        displayOrder: -1,
        formField: false,
        options: [],
      });
    });

    it('refuses a duplicate name with 409 CONFLICT, also against HubSpot-defined properties', () => {
      const first = history([createProperty('contacts', text('nickname'))]);
      expect(refused(first, createProperty('contacts', text('nickname')))).toMatchObject({
        httpStatus: 409,
        category: 'CONFLICT',
      });
      expect(refused([], createProperty('contacts', text('email'))).httpStatus).toBe(409);
      // same name on another object type is fine
      expect(
        spec
          .given(first)
          .when(createProperty('companies', text('nickname')))
          .events(),
      ).toHaveLength(1);
    });

    it('allows the name again once the property is archived', () => {
      const h = history([
        createProperty('contacts', text('nickname')),
        { type: 'ArchiveProperty', facts: facts(), objectType: 'contacts', name: 'nickname' },
      ]);
      expect(
        spec
          .given(h)
          .when(createProperty('contacts', text('nickname')))
          .events(),
      ).toHaveLength(1);
    });

    it('refuses a calculated property past the ceiling with the limit and the usage in the message', () => {
      const h = history([createProperty('contacts', calc('a')), createProperty('deals', calc('b'))]);
      const tight = {
        ...facts('professional'),
        tierLimits: { ...DEFAULT_TIER_LIMITS.professional, calculatedProperties: 2 },
      };
      const error = refused(h, { type: 'CreateProperty', facts: tight, objectType: 'deals', property: calc('c') });
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.subCategory).toBe('LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED');
      expect(error.message).toContain('2 of 2 in use');
      expect(error.message).toContain('professional tier');
      expect(error.extras.context).toMatchObject({ limit: ['2'], usage: ['2'] });
      // a plain custom property still fits
      expect(
        spec
          .given(h)
          .when({ type: 'CreateProperty', facts: tight, objectType: 'deals', property: text('d') })
          .events(),
      ).toHaveLength(1);
    });

    it('free and starter tiers have no calculated properties at all', () => {
      for (const tier of ['free', 'starter'] as const) {
        const error = refused([], createProperty('contacts', calc('x'), tier));
        expect(error.extras.subCategory).toBe('LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED');
        expect(error.message).toContain('0 of 0 in use');
      }
    });

    it('enforces the per-object-type custom property ceiling', () => {
      const tier = { ...facts('free'), tierLimits: { ...DEFAULT_TIER_LIMITS.free, customProperties: 1 } };
      const h = history([{ type: 'CreateProperty', facts: tier, objectType: 'contacts', property: text('one') }]);
      const error = refused(h, { type: 'CreateProperty', facts: tier, objectType: 'contacts', property: text('two') });
      expect(error.extras.subCategory).toBe('LIMITS.CUSTOM_PROPERTIES_LIMIT_EXCEEDED');
      expect(error.message).toContain('1 of 1 in use');
      expect(
        spec
          .given(h)
          .when({ type: 'CreateProperty', facts: tier, objectType: 'deals', property: text('two') })
          .events(),
      ).toHaveLength(1);
    });

    it('an override in the stream beats the tier table', () => {
      const h = history([
        { type: 'OverrideAccountLimits', facts: facts('free'), overrides: { calculatedProperties: 1 } },
        createProperty('contacts', calc('a'), 'free'),
      ]);
      const error = refused(h, createProperty('contacts', calc('b'), 'free'));
      expect(error.message).toContain('1 of 1 in use (limit set for this account)');
    });

    it.each([
      [{ ...text('Bad-Name') }, 'name'],
      [{ ...text('hs_mine') }, 'name'],
      [{ ...text('x'), fieldType: 'number' }, 'fieldType'],
      [{ ...calc('y'), calculationFormula: '   ' }, 'calculationFormula'],
      [{ ...text('z'), calculationFormula: 'a+b' }, 'calculationFormula'],
      [{ name: 'e', label: 'E', type: 'enumeration', fieldType: 'select', groupName: 'g' }, 'options'],
      [{ ...text('o'), options: [{ label: 'a', value: 'a' }] }, 'options'],
      [
        {
          name: 'd',
          label: 'D',
          type: 'enumeration',
          fieldType: 'select',
          groupName: 'contactinformation',
          options: [
            { label: 'a', value: 'a' },
            { label: 'b', value: 'a' },
          ],
        },
        'options[1].value',
      ],
    ] as Array<[PropertyInput, string]>)('refuses invalid definitions (%#) naming the field', (property, field) => {
      const error = refused([], createProperty('contacts', property));
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.errors!.map((e) => e.in)).toContain(field);
    });

    it('refuses an unknown object type with 400', () => {
      const error = refused([], createProperty('widgets', text('a')));
      expect(error).toMatchObject({ httpStatus: 400, message: 'Unable to infer object type from: widgets' });
    });
  });

  describe('ArchiveProperty', () => {
    it('archives once; an archived property is gone (a second archive is 404); unknown is 404; HubSpot-defined is refused', () => {
      const h = history([createProperty('contacts', calc('a'))]);
      const archive = (name: string): AccountLimitsCommand => ({
        type: 'ArchiveProperty',
        facts: facts(),
        objectType: '0-1',
        name,
      });
      expect(spec.given(h).when(archive('a')).events()).toMatchObject([{ type: LimitsEventType.PropertyArchived }]);
      const after = history([createProperty('contacts', calc('a')), archive('a')]);
      expect(refused(after, archive('a')).httpStatus).toBe(404);
      spec
        .given(after)
        .when(createProperty('contacts', calc('a')))
        .thenState((state) => expect(usageOf(state).calculatedProperties).toBe(1));
      expect(refused(h, archive('nope')).httpStatus).toBe(404);
      expect(refused(h, archive('email')).httpStatus).toBe(400);
    });
  });

  describe('custom object schemas', () => {
    const create = (s: SchemaInput, tier: Tier = 'enterprise'): AccountLimitsCommand => ({
      type: 'CreateCustomObjectSchema',
      facts: facts(tier),
      schema: s,
    });

    it('a schema with more than 10 unique-value properties is refused with the unique-value ceiling', () => {
      const properties = Array.from({ length: 11 }, (_, i) => ({
        name: `code_${i}`,
        label: `Code ${i}`,
        type: 'string',
        fieldType: 'text',
        hasUniqueValue: true,
      }));
      const error = refused(
        [],
        create(schema('parts', { primaryDisplayProperty: 'code_0', requiredProperties: [], properties })),
      );
      expect(error.extras).toMatchObject({
        subCategory: 'LIMITS.UNIQUE_VALUE_PROPERTIES_LIMIT_EXCEEDED',
        context: { limit: ['10'], usage: ['0'] },
      });
      const ten = properties.slice(0, 10);
      expect(
        spec
          .given([])
          .when(create(schema('parts', { primaryDisplayProperty: 'code_0', requiredProperties: [], properties: ten })))
          .events(),
      ).toHaveLength(11);
    });

    it('creates 2-1, then 2-2, with the properties as PropertyCreated events and associations', () => {
      const events = history([create(schema('cars')), create(schema('boats', { associatedObjects: ['cars', '0-2'] }))]);
      const created = events.filter((e) => e.type === LimitsEventType.CustomObjectSchemaCreated);
      expect(created.map((e) => e.data)).toMatchObject([
        {
          objectTypeId: '2-1',
          id: '1',
          fullyQualifiedName: `p${HUB}_cars`,
          associations: [{ id: '1', toObjectTypeId: '0-1' }],
        },
        {
          objectTypeId: '2-2',
          associations: [
            { id: '2', fromObjectTypeId: '2-2', toObjectTypeId: '2-1' },
            { id: '3', toObjectTypeId: '0-2' },
          ],
        },
      ]);
      expect(events.filter((e) => e.type === LimitsEventType.PropertyCreated)).toHaveLength(2);
    });

    it('professional has no custom object types: refused with a clear message', () => {
      const error = refused([], create(schema('cars'), 'professional'));
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.subCategory).toBe('LIMITS.CUSTOM_OBJECT_TYPES_LIMIT_EXCEEDED');
      expect(error.message).toContain('custom object types: 0 of 0 in use (limit of the professional tier)');
    });

    it('the last slot goes to one schema; archiving frees it; the archived name stays reserved until purged', () => {
      const two = { ...facts(), tierLimits: { ...DEFAULT_TIER_LIMITS.enterprise, customObjectTypes: 1 } };
      const createWithTwo = (name: string): AccountLimitsCommand => ({
        type: 'CreateCustomObjectSchema',
        facts: two,
        schema: schema(name),
      });
      const h = history([createWithTwo('cars')]);
      expect(refused(h, createWithTwo('boats')).extras.subCategory).toBe('LIMITS.CUSTOM_OBJECT_TYPES_LIMIT_EXCEEDED');

      const archived = [
        ...h,
        ...spec.given(h).when({ type: 'ArchiveCustomObjectSchema', facts: two, objectType: 'cars' }).events(),
      ];
      expect(spec.given(archived).when(createWithTwo('boats')).events()[0]).toMatchObject({
        data: { objectTypeId: '2-2' },
      });
      expect(refused(archived, createWithTwo('cars')).httpStatus).toBe(409);

      const purged = [
        ...archived,
        ...spec.given(archived).when({ type: 'PurgeCustomObjectSchema', facts: two, objectType: '2-1' }).events(),
      ];
      expect(spec.given(purged).when(createWithTwo('cars')).events()[0]).toMatchObject({
        data: { objectTypeId: '2-2', name: 'cars' },
      });
    });

    it('archiving a schema drops its properties from the usage, calculated ones included', () => {
      const calculatedOnCars: AccountLimitsCommand = {
        type: 'CreateProperty',
        facts: facts(),
        objectType: `p${HUB}_cars`,
        property: calc('price_x2', 'hs_object_id * 2'),
      };
      spec
        .given(history([create(schema('cars'))]))
        .when(calculatedOnCars)
        .thenState((state) =>
          expect(usageOf(state)).toMatchObject({
            calculatedProperties: 1,
            customObjectTypes: 1,
            customPropertiesByType: { '2-1': 2 },
          }),
        );
      const h = history([create(schema('cars')), calculatedOnCars]);
      const archive: AccountLimitsCommand = { type: 'ArchiveCustomObjectSchema', facts: facts(), objectType: '2-1' };
      spec
        .given(h)
        .when(archive)
        .thenState((state) =>
          expect(usageOf(state)).toEqual({
            calculatedProperties: 0,
            customObjectTypes: 0,
            customPropertiesByType: {},
          }),
        );
      // and an archived type cannot take new properties
      const after = [...h, ...spec.given(h).when(archive).events()];
      expect(
        refused(after, { type: 'CreateProperty', facts: facts(), objectType: '2-1', property: text('x') }).httpStatus,
      ).toBe(400);
    });

    it.each([
      [schema('contacts'), 'name'],
      [schema('1cars'), 'name'],
      [schema('cars', { labels: { singular: ' ', plural: 'Cars' } }), 'labels.singular'],
      [schema('cars', { requiredProperties: ['missing'] }), 'requiredProperties[0]'],
      [schema('cars', { primaryDisplayProperty: 'missing' }), 'primaryDisplayProperty'],
      [schema('cars', { associatedObjects: ['widgets'] }), 'associatedObjects[0]'],
      [
        schema('cars', {
          properties: [{ name: 'p', label: 'P', type: 'number', fieldType: 'calculation_equation' }],
          requiredProperties: [],
          primaryDisplayProperty: undefined,
        }),
        'properties[0].fieldType',
      ],
    ] as Array<[SchemaInput, string]>)('refuses invalid schemas (%#) naming the field', (s, field) => {
      const error = refused([], create(s));
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.errors!.map((e) => e.in)).toContain(field);
    });

    it('purging needs an archived schema; deleting an unknown one is 404', () => {
      const h = history([create(schema('cars'))]);
      expect(refused(h, { type: 'PurgeCustomObjectSchema', facts: facts(), objectType: 'cars' }).httpStatus).toBe(400);
      expect(refused(h, { type: 'ArchiveCustomObjectSchema', facts: facts(), objectType: '2-9' }).httpStatus).toBe(404);
    });
  });

  describe('OverrideAccountLimits', () => {
    it('records the merged overrides; null clears; an unchanged override appends nothing', () => {
      const h = history([
        { type: 'OverrideAccountLimits', facts: facts(), overrides: { calculatedProperties: 5, customObjectTypes: 2 } },
      ]);
      const cleared = spec
        .given(h)
        .when({ type: 'OverrideAccountLimits', facts: facts(), overrides: { customObjectTypes: null } })
        .events();
      expect(cleared).toMatchObject([{ data: { overrides: { calculatedProperties: 5 } } }]);
      spec
        .given(h)
        .when({ type: 'OverrideAccountLimits', facts: facts(), overrides: { calculatedProperties: 5 } })
        .thenNothing();
    });
  });
});

describe('ceilings', () => {
  it('percentages are in percent, two decimals, and 0 when the limit is 0', () => {
    expect(percentage(1, 200)).toBe(0.5);
    expect(percentage(1, 3)).toBe(33.33);
    expect(percentage(5, 0)).toBe(0);
    expect(percentage(3, 2)).toBe(150);
  });

  it('effective limits take overrides over the tier table', () => {
    expect(effectiveLimits(DEFAULT_TIER_LIMITS.professional, { customObjectTypes: 3 })).toEqual({
      ...DEFAULT_TIER_LIMITS.professional,
      customObjectTypes: 3,
    });
    expect(
      mergeOverrides({ calculatedProperties: 1 }, { calculatedProperties: undefined, customProperties: 9 }),
    ).toEqual({
      calculatedProperties: 1,
      customProperties: 9,
    });
  });

  it('the default table: free and starter have neither, professional calculated properties, enterprise both', () => {
    expect(DEFAULT_TIER_LIMITS.free).toMatchObject({ calculatedProperties: 0, customObjectTypes: 0 });
    expect(DEFAULT_TIER_LIMITS.starter).toMatchObject({ calculatedProperties: 0, customObjectTypes: 0 });
    expect(DEFAULT_TIER_LIMITS.professional.calculatedProperties).toBeGreaterThan(0);
    expect(DEFAULT_TIER_LIMITS.professional.customObjectTypes).toBe(0);
    expect(DEFAULT_TIER_LIMITS.enterprise.calculatedProperties).toBeGreaterThan(0);
    expect(DEFAULT_TIER_LIMITS.enterprise.customObjectTypes).toBeGreaterThan(0);
  });
});

describe('object type resolution', () => {
  const schemas = [
    { objectTypeId: '2-1', name: 'cars', archived: false },
    { objectTypeId: '2-2', name: 'boats', archived: true },
  ];
  it.each([
    ['contacts', '0-1'],
    ['CONTACT', '0-1'],
    ['0-2', '0-2'],
    ['deal', '0-3'],
    ['tickets', '0-5'],
    ['2-1', '2-1'],
    ['cars', '2-1'],
    [`p${HUB}_cars`, '2-1'],
  ])('%s -> %s', (raw, id) => {
    expect(resolveObjectType(raw, HUB, schemas)?.objectTypeId).toBe(id);
  });
  it.each(['2-2', 'boats', 'p1_cars', '0-4', 'widgets', ''])('%s is not found', (raw) => {
    expect(resolveObjectType(raw, HUB, schemas)).toBeNull();
  });
  it('knows HubSpot-defined properties of standard types only', () => {
    const contacts = resolveObjectType('contacts', HUB, schemas)!;
    const cars = resolveObjectType('cars', HUB, schemas)!;
    expect(isHubSpotDefinedProperty(contacts, 'email')).toBe(true);
    expect(isHubSpotDefinedProperty(contacts, 'favourite_colour')).toBe(false);
    expect(isHubSpotDefinedProperty(cars, 'email')).toBe(false);
  });
});
