import { DEFAULT_TIER_LIMITS, Tier } from '../../src/platform/tiers';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import {
  AccountLimitsCommand,
  accountLimitsDecider,
  CommandFacts,
} from '../../src/crm-schema/domain/account-limits.decider';
import {
  evolveAccountLimits,
  initialAccountLimitsState,
  usageOf,
} from '../../src/crm-schema/domain/account-limits.state';
import { LimitsEvent, LimitsEventType } from '../../src/crm-schema/domain/limits-events';
import { planBatchCreate } from '../../src/crm-schema/domain/property-decisions';
import type { PropertyInput } from '../../src/crm-schema/domain/property-rules';
import { DeciderSpecification } from '../support/decider-specification';

const HUB = 4343;
const NOW = Date.UTC(2026, 0, 1);
const facts = (tier: Tier = 'enterprise', overrides = {}): CommandFacts => ({
  hubId: HUB,
  tier,
  tierLimits: { ...DEFAULT_TIER_LIMITS[tier], ...overrides },
  userId: 7,
  now: NOW,
});
const spec = DeciderSpecification.for(accountLimitsDecider);
const refused = (events: LimitsEvent[], command: AccountLimitsCommand) =>
  spec.given(events).when(command).thenThrows(HubSpotError);

const text = (name: string, groupName?: string): PropertyInput => ({
  name,
  label: name,
  type: 'string',
  fieldType: 'text',
  ...(groupName ? { groupName } : {}),
});
const calc = (name: string): PropertyInput => ({
  name,
  label: name,
  type: 'number',
  fieldType: 'calculation_equation',
  calculationFormula: 'amount * 2',
});

function history(commands: AccountLimitsCommand[]): LimitsEvent[] {
  const all: LimitsEvent[] = [];
  for (const c of commands) all.push(...spec.given(all).when(c).events());
  return all;
}
const create = (objectType: string, property: PropertyInput, f = facts()): AccountLimitsCommand => ({
  type: 'CreateProperty',
  facts: f,
  objectType,
  property,
});
const patch = (name: string, p: Record<string, unknown>, f = facts(), objectType = 'deals'): AccountLimitsCommand => ({
  type: 'UpdateProperty',
  facts: f,
  objectType,
  name,
  patch: p,
});

/** Whether `needle` appears anywhere in a value, Maps and Sets included (JSON.stringify skips them). */
function mentions(value: unknown, needle: string): boolean {
  if (typeof value === 'string') return value.includes(needle);
  if (value instanceof Map) return [...value].some(([k, v]) => mentions(k, needle) || mentions(v, needle));
  if (value instanceof Set || Array.isArray(value)) return [...value].some((v) => mentions(v, needle));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => k.includes(needle) || mentions(v, needle));
  }
  return false;
}

describe('the account limits fold', () => {
  it('folds in place: evolve returns the state it was given, so replay does not copy the account per event', () => {
    const [created] = history([create('contacts', text('first_prop'))]);
    const state = initialAccountLimitsState();
    expect(evolveAccountLimits(state, created!)).toBe(state);
  });

  it('keeps no archived property in the state', () => {
    const events = history([
      create('contacts', text('gone_prop_xyz')),
      { type: 'ArchiveProperty', facts: facts(), objectType: 'contacts', name: 'gone_prop_xyz' },
      create('contacts', text('kept_prop_abc')),
    ]);
    const state = events.reduce(evolveAccountLimits, initialAccountLimitsState());
    expect(mentions(state, 'kept_prop_abc')).toBe(true);
    expect(mentions(state, 'gone_prop_xyz')).toBe(false);
  });
});

describe('UpdateProperty', () => {
  it('turning a property into calculation_equation counts it; its type and fieldType are then frozen (HubSpot)', () => {
    const h = history([create('deals', text('score'))]);
    const toCalc = spec
      .given(h)
      .when(patch('score', { type: 'number', fieldType: 'calculation_equation', calculationFormula: 'amount * 3' }));
    const [updated] = toCalc.events();
    expect(updated).toMatchObject({
      type: LimitsEventType.PropertyUpdated,
      data: { calculated: true, property: { fieldType: 'calculation_equation', calculationFormula: 'amount * 3' } },
    });
    toCalc.thenState((s) => expect(usageOf(s).calculatedProperties).toBe(1));
    for (const change of [{ type: 'string', fieldType: 'text' }, { type: 'string' }, { fieldType: 'number' }]) {
      const error = refused([...h, updated!], patch('score', change));
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.errors!.map((e) => e.in).sort()).toEqual(Object.keys(change).sort());
      expect(error.extras.errors![0]).toMatchObject({ code: 'READ_ONLY' });
    }
    // The same type and fieldType restated, a new label and a new formula are fine.
    const relabeled = spec
      .given([...h, updated!])
      .when(
        patch('score', { type: 'number', fieldType: 'calculation_equation', label: 'S', calculationFormula: 'amount' }),
      )
      .events();
    expect(relabeled[0]).toMatchObject({
      data: { calculated: true, property: { label: 'S', calculationFormula: 'amount' } },
    });
  });

  it('a patch that would cross the calculated ceiling is refused with the limit error', () => {
    const f = facts('professional', { calculatedProperties: 1 });
    const h = history([create('deals', calc('c1'), f), create('deals', text('plain'), f)]);
    const error = refused(
      h,
      patch('plain', { type: 'number', fieldType: 'calculation_equation', calculationFormula: 'amount' }, f),
    );
    expect(error.extras.subCategory).toBe('LIMITS.CALCULATED_PROPERTIES_LIMIT_EXCEEDED');
  });

  it('label, options and group change; an unknown group, a HubSpot-defined or unknown property is refused; no change appends nothing', () => {
    const h = history([
      create('deals', {
        name: 'tier',
        label: 'Tier',
        type: 'enumeration',
        fieldType: 'select',
        options: [{ label: 'A', value: 'a' }],
      }),
      { type: 'CreatePropertyGroup', facts: facts(), objectType: 'deals', group: { name: 'myapp', label: 'My app' } },
    ]);
    const [e] = spec
      .given(h)
      .when(
        patch('tier', { label: 'Tier 2', groupName: 'myapp', options: [{ label: 'B', value: 'b', displayOrder: 3 }] }),
      )
      .events();
    expect(e).toMatchObject({
      data: { property: { label: 'Tier 2', groupName: 'myapp', options: [{ value: 'b', displayOrder: 3 }] } },
    });
    expect(refused(h, patch('tier', { groupName: 'nope' })).extras.subCategory).toBe('PROPERTY_GROUP_NOT_FOUND');
    expect(refused(h, patch('dealname', { label: 'x' })).httpStatus).toBe(400);
    expect(refused(h, patch('missing', { label: 'x' })).httpStatus).toBe(404);
    spec
      .given(h)
      .when(patch('tier', { label: 'Tier' }))
      .thenNothing();
  });
});

describe('BatchCreateProperties', () => {
  const batch = (inputs: PropertyInput[], f = facts()) =>
    ({ type: 'BatchCreateProperties', facts: f, objectType: 'contacts', inputs }) as const;

  it('decides each input on its own: the ones under the ceiling pass, the rest are refused with the limit error', () => {
    const f = facts('professional', { customProperties: 3 });
    const h = history([create('contacts', text('existing'), f)]);
    const state = h.reduce(evolveAccountLimits, initialAccountLimitsState());
    const plan = planBatchCreate(batch([text('p1'), text('p2'), text('p3'), text('p4')], f), state);
    expect(plan.events.map((e) => e.data.property.name)).toEqual(['p1', 'p2']);
    expect(plan.rejected.map((r) => [r.index, r.error.extras.subCategory])).toEqual([
      [2, 'LIMITS.CUSTOM_PROPERTIES_LIMIT_EXCEEDED'],
      [3, 'LIMITS.CUSTOM_PROPERTIES_LIMIT_EXCEEDED'],
    ]);
    expect(
      spec
        .given(h)
        .when(batch([text('p1'), text('p2'), text('p3')], f))
        .events(),
    ).toHaveLength(2);
  });

  it('a duplicate name in the batch, an existing name and an unknown group are refused one by one', () => {
    const h = history([create('contacts', text('taken'))]);
    const state = h.reduce(evolveAccountLimits, initialAccountLimitsState());
    const plan = planBatchCreate(
      batch([
        text('a'),
        text('a'),
        text('taken'),
        text('email'),
        text('b', 'no_such_group'),
        { ...text('c'), name: 'Bad Name' },
      ]),
      state,
    );
    expect(plan.events.map((e) => e.data.property.name)).toEqual(['a']);
    expect(plan.rejected.map((r) => [r.index, r.error.httpStatus])).toEqual([
      [1, 409],
      [2, 409],
      [3, 409],
      [4, 400],
      [5, 400],
    ]);
    expect(plan.rejected[3]!.error.extras.errors).toEqual([expect.objectContaining({ in: 'inputs[4].groupName' })]);
  });

  it('an unknown object type refuses the whole batch', () => {
    expect(refused([], { ...batch([text('a')]), objectType: 'widgets' }).httpStatus).toBe(400);
  });
});

describe('BatchArchiveProperties', () => {
  it('archives the active ones once, ignores unknown and repeated names, refuses HubSpot-defined ones whole', () => {
    const h = history([create('contacts', text('a')), create('contacts', text('b'))]);
    const archive = (names: string[]): AccountLimitsCommand => ({
      type: 'BatchArchiveProperties',
      facts: facts(),
      objectType: 'contacts',
      names,
    });
    const events = spec
      .given(h)
      .when(archive(['a', 'a', 'nope', 'b']))
      .events();
    expect(events.map((e) => [e.type, 'name' in e.data ? e.data.name : null])).toEqual([
      [LimitsEventType.PropertyArchived, 'a'],
      [LimitsEventType.PropertyArchived, 'b'],
    ]);
    expect(refused(h, archive(['a', 'email'])).extras.subCategory).toBe('PROPERTY_NOT_ARCHIVABLE');
  });
});

describe('property groups', () => {
  const group = (name: string): AccountLimitsCommand => ({
    type: 'CreatePropertyGroup',
    facts: facts(),
    objectType: 'contacts',
    group: { name, label: `Group ${name}` },
  });
  const archive = (name: string): AccountLimitsCommand => ({
    type: 'ArchivePropertyGroup',
    facts: facts(),
    objectType: 'contacts',
    name,
  });

  it('creates a group (a default or existing name is 409), properties may then use it', () => {
    const h = history([group('myapp')]);
    expect(refused(h, group('myapp')).httpStatus).toBe(409);
    expect(refused([], group('contactinformation')).httpStatus).toBe(409);
    expect(refused([], group('Bad Name')).httpStatus).toBe(400);
    expect(
      spec
        .given(h)
        .when(create('contacts', text('x', 'myapp')))
        .events(),
    ).toHaveLength(1);
    expect(refused([], create('contacts', text('x', 'myapp'))).extras.subCategory).toBe('PROPERTY_GROUP_NOT_FOUND');
  });

  it('a group holding properties cannot be archived; once empty it can; default groups cannot be changed', () => {
    const h = history([group('myapp'), create('contacts', text('x', 'myapp'))]);
    expect(refused(h, archive('myapp')).extras.subCategory).toBe('PROPERTY_GROUP_NOT_EMPTY');
    const moved = history([
      ...[group('myapp'), create('contacts', text('x', 'myapp'))],
      patch('x', { groupName: 'contactinformation' }, facts(), 'contacts'),
    ]);
    expect(spec.given(moved).when(archive('myapp')).events()).toMatchObject([
      { type: LimitsEventType.PropertyGroupArchived },
    ]);
    expect(refused(h, archive('contactinformation')).httpStatus).toBe(400);
    expect(refused(h, archive('nope')).httpStatus).toBe(404);
    expect(
      refused(h, {
        type: 'UpdatePropertyGroup',
        facts: facts(),
        objectType: 'contacts',
        name: 'contactinformation',
        patch: { label: 'x' },
      }).httpStatus,
    ).toBe(400);
    const [updated] = spec
      .given(h)
      .when({
        type: 'UpdatePropertyGroup',
        facts: facts(),
        objectType: 'contacts',
        name: 'myapp',
        patch: { displayOrder: 4 },
      })
      .events();
    expect(updated).toMatchObject({ data: { group: { name: 'myapp', label: 'Group myapp', displayOrder: 4 } } });
  });
});

describe('calculated-property formulas in the decisions', () => {
  const formula = (name: string, calculationFormula: string, type = 'number'): PropertyInput => ({
    name,
    label: name,
    type,
    fieldType: 'calculation_equation',
    calculationFormula,
  });

  it('refuses a formula that does not parse or names a missing or ill-typed property, naming the problem', () => {
    const h = history([create('deals', text('region'))]);
    for (const [f, problem] of [
      [')))( not a formula +', /unexpected '\)'/],
      ['no_such_property * 2', /property 'no_such_property' does not exist/],
      ['region * 2', /property 'region' is of type string/],
      ['string(amount)', /property 'amount' is of type number/],
    ] as const) {
      const error = refused(h, create('deals', formula('calc_x', f)));
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.errors).toEqual([
        { message: expect.stringMatching(problem), in: 'calculationFormula', code: 'INVALID_FORMULA' },
      ]);
    }
    // The account's own properties and HubSpot's count; the result must fit the property's type.
    expect(
      spec
        .given(h)
        .when(create('deals', formula('ok_calc', 'amount + 1')))
        .events(),
    ).toHaveLength(1);
    expect(
      spec
        .given(h)
        .when(create('deals', formula('label_calc', 'concatenate(string(region), "!")', 'string')))
        .events(),
    ).toHaveLength(1);
    expect(refused(h, create('deals', formula('bad_result', 'string(region)'))).extras.errors![0]!.message).toMatch(
      /yields a string, but the property's type number needs a number/,
    );
  });

  it('a new formula in a PATCH is checked; it may not name its own property', () => {
    const h = history([create('deals', formula('calc_y', 'amount * 2'))]);
    expect(refused(h, patch('calc_y', { calculationFormula: 'calc_y + 1' })).extras.errors![0]!.message).toMatch(
      /cannot refer to itself/,
    );
    // Property names are case-insensitive in formulas: Calc_Y is calc_y.
    expect(refused(h, patch('calc_y', { calculationFormula: 'Calc_Y + 1' })).extras.errors![0]!.message).toMatch(
      /cannot refer to itself/,
    );
    expect(refused(h, patch('calc_y', { calculationFormula: '1 +' })).extras.errors![0]).toMatchObject({
      in: 'calculationFormula',
      code: 'INVALID_FORMULA',
    });
    expect(
      spec
        .given(h)
        .when(patch('calc_y', { calculationFormula: 'amount * 3' }))
        .events(),
    ).toHaveLength(1);
  });
});

describe('unique-value properties: at most 10 per object type', () => {
  const unique = (name: string): PropertyInput => ({ ...text(name), hasUniqueValue: true });

  it('the 11th is refused with the ceiling shape; other object types and plain properties are not affected', () => {
    const h = history(Array.from({ length: 10 }, (_, i) => create('deals', unique(`uid_${i}`))));
    const error = refused(h, create('deals', unique('uid_10')));
    expect(error).toMatchObject({
      httpStatus: 400,
      category: 'VALIDATION_ERROR',
      extras: {
        subCategory: 'LIMITS.UNIQUE_VALUE_PROPERTIES_LIMIT_EXCEEDED',
        context: { limit: ['10'], usage: ['10'] },
      },
    });
    expect(
      spec
        .given(h)
        .when(create('deals', text('plain')))
        .events(),
    ).toHaveLength(1);
    expect(
      spec
        .given(h)
        .when(create('contacts', unique('uid_10')))
        .events(),
    ).toHaveLength(1);
    // Archiving one frees its slot.
    const archived = [
      ...h,
      ...spec.given(h).when({ type: 'ArchiveProperty', facts: facts(), objectType: 'deals', name: 'uid_0' }).events(),
    ];
    expect(
      spec
        .given(archived)
        .when(create('deals', unique('uid_10')))
        .events(),
    ).toHaveLength(1);
  });

  it('a batch of 11 creates 10 and reports the 11th', () => {
    const inputs = Array.from({ length: 11 }, (_, i) => unique(`uid_${i}`));
    const state = initialAccountLimitsState();
    const plan = planBatchCreate({ type: 'BatchCreateProperties', facts: facts(), objectType: 'deals', inputs }, state);
    expect(plan.events).toHaveLength(10);
    expect(plan.rejected).toHaveLength(1);
    expect(plan.rejected[0]).toMatchObject({
      index: 10,
      error: { extras: { subCategory: 'LIMITS.UNIQUE_VALUE_PROPERTIES_LIMIT_EXCEEDED' } },
    });
  });
});
