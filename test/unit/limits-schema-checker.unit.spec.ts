import { validateComponent, validateResponse } from '../support/limits-schema';

/** The checker itself must be able to fail, or the e2e checks prove nothing. */
describe('limits schema checker', () => {
  const good = {
    overallLimit: 10,
    overallUsage: 1,
    overallPercentage: 10,
    byObjectType: [{ objectTypeId: '0-1', singularLabel: 'Contact', pluralLabel: 'Contacts', usage: 1 }],
  };

  it('accepts a conforming body', () => {
    expect(validateResponse('limitsTracking.json', 'GET', '/crm/v3/limits/calculated-properties', good)).toEqual([]);
  });

  it.each([
    [{ ...good, overallLimit: undefined }, '$.overallLimit: required'],
    [{ ...good, overallUsage: 1.5 }, '$.overallUsage: expected integer'],
    [{ ...good, overallPercentage: '10' }, '$.overallPercentage: expected number'],
    [
      { ...good, byObjectType: [{ objectTypeId: 1, singularLabel: 'a', pluralLabel: 'b', usage: 1 }] },
      '$.byObjectType[0].objectTypeId: expected string',
    ],
    [
      { ...good, byObjectType: [{ objectTypeId: '0-1', pluralLabel: 'b', usage: 1 }] },
      '$.byObjectType[0].singularLabel: required',
    ],
    [{ ...good, byObjectType: {} }, '$.byObjectType: expected array'],
  ])('rejects a broken body (%#)', (body, error) => {
    const errors = validateResponse(
      'limitsTracking.json',
      'GET',
      '/crm/v3/limits/calculated-properties',
      JSON.parse(JSON.stringify(body)),
    );
    expect(errors.join('\n')).toContain(error);
  });

  it('checks components by name and unknown operations', () => {
    expect(
      validateComponent('limitsTracking.json', 'CustomObjectLimitResponse', { limit: 1, usage: 0, percentage: 0 }),
    ).toEqual([]);
    expect(validateComponent('limitsTracking.json', 'CustomObjectLimitResponse', { limit: 1, usage: 0 })).toEqual([
      '$.percentage: required',
    ]);
    expect(validateResponse('limitsTracking.json', 'GET', '/crm/v3/limits/nope', {})).toHaveLength(1);
  });
});
