import fc from 'fast-check';
import { checkFormula, type FormulaCheck } from '../../src/crm-schema/domain/calculation-formula';

/** The properties of a made-up object: name → HubSpot type. */
const PROPERTIES: Record<string, string> = {
  amount: 'number',
  discount: 'number',
  closedate: 'datetime',
  dealname: 'string',
  dealstage: 'enumeration',
  is_won: 'bool',
};
const lookup = (name: string) => PROPERTIES[name];
const check = (formula: string): FormulaCheck => checkFormula(formula, lookup);
const typeOf = (formula: string) => {
  const r = check(formula);
  if (!r.ok) throw new Error(`${formula}: ${r.message}`);
  return r.type;
};
const errorOf = (formula: string) => {
  const r = check(formula);
  if (r.ok) throw new Error(`${formula} was accepted as a ${r.type}`);
  return r;
};

describe('calculated-property formulas (HubSpot formula language)', () => {
  it.each([
    ['1005', 'number'],
    ['1.5589', 'number'],
    ['.5', 'number'],
    ['"constant"', 'string'],
    ["'constant'", 'string'],
    ['true', 'bool'],
    ['FALSE', 'bool'],
    ['amount', 'number'],
    ['closedate', 'number'],
    ['amount * 2 - discount / 4 + -1', 'number'],
    ['(amount + discount) * (1 - 0.2)', 'number'],
    ['string(dealname)', 'string'],
    ['string(dealstage)', 'string'],
    ['bool(is_won)', 'bool'],
    ['amount > 1000 and not bool(is_won) or discount <= 0', 'bool'],
    ['string(dealname) = "x"', 'bool'],
    ['amount != discount', 'bool'],
    ['max(amount, discount, 3)', 'number'],
    ['min(amount, 1)', 'number'],
    ['round(amount)', 'number'],
    ['round_nearest(amount * 1.2, 2)', 'number'],
    ['is_present(string(dealname))', 'bool'],
    ['contains(string(dealname), "big")', 'bool'],
    ['concatenate(string(dealname), " - ", number_to_string(amount))', 'string'],
    ['string_to_number("12") + 1', 'number'],
    ['if(amount > 10, "big", "small")', 'string'],
    ['IF(bool(is_won), amount, 0)', 'number'],
    ['if amount > 1000 then "large" elseif amount > 100 then "medium" else "small" endif', 'string'],
    ['if bool(is_won) then amount endif', 'number'],
    ['if (amount > 1) then 1 else 2 endif', 'number'],
  ])('%s is a %s', (formula, type) => {
    expect(typeOf(formula)).toBe(type);
  });

  it('reports the properties it reads', () => {
    expect(check('amount + max(discount, amount) + string_to_number(string(dealname))')).toEqual({
      ok: true,
      type: 'number',
      references: ['amount', 'discount', 'dealname'],
    });
  });

  it.each([
    [')))( not a formula +', /unexpected '\)'/],
    ['', /empty/],
    ['   ', /empty/],
    ['amount +', /ends too early/],
    ['(amount', /expected '\)'/],
    ['amount amount', /unexpected 'amount'/],
    ['"open', /not closed/],
    ['amount # 2', /unexpected character '#'/],
    ['12abc', /after the number/],
    ['no_such_property * 2', /property 'no_such_property' does not exist/],
    ['string(no_such)', /property 'no_such' does not exist/],
    ['dealname * 2', /property 'dealname' is of type string.*string\(dealname\)/],
    ['string(amount)', /property 'amount' is of type number/],
    ['bool(dealname)', /property 'dealname' is of type string/],
    ['amount + "x"', /'\+' needs numbers, not a string/],
    ['"a" < "b"', /'<' compares numbers/],
    ['amount = "x"', /'=' compares a number with a string/],
    ['amount and true', /'and' needs booleans, not a number/],
    ['not amount', /'not' needs a boolean/],
    ['-"x"', /unary '-' needs a number/],
    ['nope(1)', /unknown function 'nope'/],
    ['max(1)', /max\(\) takes at least 2 argument/],
    ['round(1, 2, 3)', /round\(\) takes 1 or 2 argument/],
    ['contains(amount, "x")', /argument 1 of contains\(\) must be a string/],
    ['if(amount, 1, 2)', /argument 1 of if\(\) must be a bool/],
    ['if(true, 1, "x")', /branches of if\(\) mix number and string/],
    ['if amount then 1 endif', /if condition must be a boolean/],
    ['if true then 1 else "x" endif', /branches mix number and string/],
    ['if true then 1', /expected 'endif'/],
    ['string(1)', /takes a property name/],
    ['then', /unexpected 'then'/],
  ])('%j is refused: %s', (formula, message) => {
    expect(errorOf(formula).message).toMatch(message);
  });

  it('says where the problem is', () => {
    expect(errorOf('amount + nope').position).toBe(9);
    expect(errorOf(')))( not a formula +').position).toBe(0);
  });

  it('refuses nesting deeper than it can check, without overflowing the stack', () => {
    expect(errorOf(`${'('.repeat(5000)}1${')'.repeat(5000)}`).message).toMatch(/nests deeper/);
    expect(errorOf(`${'not '.repeat(2000)}true`).message).toMatch(/nests deeper/);
    expect(errorOf(`${'-'.repeat(3000)}1`).message).toMatch(/nests deeper/);
    expect(typeOf(Array.from({ length: 1000 }, () => 'amount').join(' + '))).toBe('number');
    // Read in one pass: nested if( in the first argument costs linear time, not exponential.
    const nestedIf = `${'if('.repeat(60)}true${', true, false)'.repeat(60)}`;
    const started = performance.now();
    expect(typeOf(nestedIf)).toBe('bool');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('never throws on any input: it answers a type or a problem', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const r = check(s);
        expect(typeof r.ok).toBe('boolean');
        if (!r.ok) expect(r.position).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
  });
});
