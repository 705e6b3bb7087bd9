import fc from 'fast-check';
import { compareCardIds, INT64_MAX, toCardId, toInt32Id } from '../../src/cards/domain/card-ids';
import { viewsForObjectTypes } from '../../src/cards/domain/card-views';
import { migrationResponse } from '../../src/cards/domain/migration-progress';

describe('card ids', () => {
  it('accepts positive int64 integers and digit strings, canonically', () => {
    expect(toCardId(1)).toBe('1');
    expect(toCardId('0042')).toBe('42');
    expect(toCardId('9223372036854775807')).toBe('9223372036854775807');
    expect(toCardId(2 ** 60)).toBe((2n ** 60n).toString());
  });

  it.each([0, -1, 1.5, NaN, Infinity, 1e20, '9223372036854775808', '-3', '1e3', ' 1', '', '12a', true, null, {}, []])(
    'refuses %p',
    (v) => expect(toCardId(v)).toBeNull(),
  );

  it('any int64 digit string round-trips without a double', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: INT64_MAX }), (n) => {
        expect(toCardId(n.toString())).toBe(n.toString());
      }),
    );
  });

  it('orders decimal ids numerically', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: INT64_MAX }), fc.bigInt({ min: 1n, max: INT64_MAX }), (a, b) => {
        expect(Math.sign(compareCardIds(a.toString(), b.toString()))).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
    );
  });

  it('int32 path ids', () => {
    expect(toInt32Id('2147483647')).toBe(2147483647);
    expect(toInt32Id('2147483648')).toBeNull();
    expect(toInt32Id('0')).toBeNull();
    expect(toInt32Id('x')).toBeNull();
  });
});

describe('views of a card', () => {
  it('record views of its object types, help desk for tickets', () => {
    expect(viewsForObjectTypes(['contacts'])).toEqual(['contacts']);
    expect(viewsForObjectTypes(['tickets', 'deals'])).toEqual(['deals', 'tickets', 'helpdesk']);
    expect(viewsForObjectTypes([])).toEqual([]);
  });
});

describe('migration response', () => {
  const base = {
    legacyCardId: '1000001',
    appCardId: '1000002',
    helpdeskAppCardId: null,
    startedAt: 10,
    endedAt: null,
    totalPortalCount: 5,
    remainingPortalCount: 5,
  };
  it('started, in progress, completed', () => {
    expect(migrationResponse(base, true)).toEqual({
      message: expect.stringContaining('has started: 5 portal(s)'),
      startedAt: 10,
      totalPortalCount: 5,
      remainingPortalCount: 5,
    });
    expect(migrationResponse({ ...base, remainingPortalCount: 2 }, false).message).toContain(
      '2 of 5 portal(s) remaining',
    );
    const done = migrationResponse({ ...base, remainingPortalCount: 0, endedAt: 20 }, false);
    expect(done.endedAt).toBe(20);
    expect(done.message).toContain('has completed');
  });
});
