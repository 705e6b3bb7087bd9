import fc from 'fast-check';
import { checkFormula, type FormulaCheck, type FormulaType } from '../../src/crm-schema/domain/calculation-formula';

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
    ['if true then 1', 'number'],
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
    ['12abc', /property 'abc' does not exist/], // 12 * abc (HubSpot's prefix notation)
    ['no_such_property * 2', /property 'no_such_property' does not exist/],
    ['string(no_such)', /property 'no_such' does not exist/],
    ['dealname * 2', /property 'dealname' is of type string.*string\(dealname\)/],
    ['string(amount)', /property 'amount' is of type number/],
    ['bool(dealname)', /property 'dealname' is of type string/],
    ['amount + "x"', /'\+' needs numbers or strings on both sides, not a number and a string/],
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
    ['if true 1', /expected 'then'/],
    ['string(1)', /takes a property name/],
    ['then', /unexpected 'then'/],
  ])('%j is refused: %s', (formula, message) => {
    expect(errorOf(formula).message).toMatch(message);
  });

  it('says where the problem is', () => {
    expect(errorOf('amount + nope').position).toBe(9);
    expect(errorOf('12abc').position).toBe(2);
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

/**
 * Every formula example of HubSpot's "Calculation property syntax" (developers.hubspot.com, CRM
 * properties guide: /docs/api-reference/crm-properties-v3/guide#calculation-property-syntax, formerly
 * /docs/api/crm/properties) — literal and property syntax, the operators table, the functions table,
 * the parsing functions, the conditional statement and the example formulas — with the property
 * types each example needs on the object. docs/limits.md cites the same page and these examples.
 */
describe('calculated-property formulas: the examples of HubSpot\'s "Calculation property syntax" page', () => {
  const NUMBERS = ['property1', 'property2', 'property3', 'a', 'b', 'c', 'var1', 'num_cars'];
  const numbers = Object.fromEntries(NUMBERS.map((n) => [n, 'number']));
  const on = (types: Record<string, string>) => (name: string) => ({ ...numbers, ...types })[name];
  const sequences = { hs_latest_sequence_enrolled_date: 'datetime', hs_sequences_actively_enrolled_count: 'number' };

  it.each<[string, string, Record<string, string>, FormulaType]>([
    // Literal syntax
    ['string literal', "'constant'", {}, 'string'],
    ['string literal', '"constant"', {}, 'string'],
    ['number literal', '1005', {}, 'number'],
    ['number literal', '1.5589', {}, 'number'],
    ['boolean literal', 'true', {}, 'bool'],
    ['boolean literal', 'false', {}, 'bool'],
    // Property syntax
    ['string property', 'string(var1)', { var1: 'string' }, 'string'],
    ['number property', 'var1', {}, 'number'],
    ['boolean property', 'bool(var1)', { var1: 'bool' }, 'bool'],
    // "If A ThEn B is exactly the same as if a then b" (A read as a boolean: conditions are booleans)
    ['case-insensitive', 'If bool(A) ThEn B', { a: 'bool' }, 'number'],
    ['case-insensitive', 'if bool(a) then b', { a: 'bool' }, 'number'],
    // Operators
    ['+', 'property1 + 100', {}, 'number'],
    ['-', 'property1 + 100 - property2', {}, 'number'],
    ['* (prefix notation)', '10property1', {}, 'number'],
    ['*', '10 * property1', {}, 'number'],
    ['/', 'property1 * (100 - property2/(50 - property3))', {}, 'number'],
    ['<', 'a < 100', {}, 'bool'],
    ['>', 'a > 50', {}, 'bool'],
    ['<=', 'a <= b', {}, 'bool'],
    ['>=', 'b>= c', {}, 'bool'],
    ['=', '(a + b - 100c * 150.652) = 150-230b', {}, 'bool'],
    ['equals', 'a + b - 100.2c * 150 equals 150 - 230', {}, 'bool'],
    ['!=', "string(property1) != 'test_string'", { property1: 'string' }, 'bool'],
    ['or', 'a > b or b <= c', {}, 'bool'],
    ['and', 'bool(a) and bool(c)', { a: 'bool', c: 'bool' }, 'bool'],
    ['not', 'not (bool(a) and bool(c))', { a: 'bool', c: 'bool' }, 'bool'],
    // Functions
    ['max', 'max(a, b, c, 100)', {}, 'number'],
    ['max', 'max(a, b)', {}, 'number'],
    ['min', 'min(a, b, c, 100)', {}, 'number'],
    ['min', 'min(a, b)', {}, 'number'],
    ['is_present', 'is_present(bool(a))', { a: 'bool' }, 'bool'],
    ['contains', "contains('hello', 'ello')", {}, 'bool'],
    ['contains', "contains('ello', 'hello')", {}, 'bool'],
    ['concatenate', "concatenate('a', 'b', string(a), string(b))", { a: 'string', b: 'string' }, 'string'],
    ['number_to_string', '"Number of cars: " + number_to_string(num_cars)', {}, 'string'],
    ['string_to_number', "string_to_number('12') * 2", {}, 'number'],
    // Conditional statements: if boolean_expression then statement [elseif expression then statement]* [else statement | endif]
    ['if … then', 'if a > 1 then 1', {}, 'number'],
    ['if … then … elseif', 'if a > 1 then 1 elseif b > 1 then 2', {}, 'number'],
    ['if … then … else', 'if a > 1 then 1 else 2', {}, 'number'],
    ['if … then … endif', 'if a > 1 then 1 endif', {}, 'number'],
    ['else binds to the inner if', 'if a > 1 then if b > 1 then 1 else 2 else 3', {}, 'number'],
    ['endif closes the inner if', 'if a > 1 then if b > 1 then 1 endif elseif c > 1 then 3', {}, 'number'],
    // Example formulas
    ['example', 'closed - started', { closed: 'datetime', started: 'datetime' }, 'number'],
    [
      'advanced example (its "an" read as "and")',
      "if is_present(hs_latest_sequence_enrolled_date) then\n  if is_present(hs_sequences_actively_enrolled_count) and hs_sequences_actively_enrolled_count >= 1 then\n    true\n  else\n    false\nelse\n  ''",
      sequences,
      'bool',
    ],
    // Not on the page: HubSpot's own deal property amount_in_home_currency
    [
      "HubSpot's built-in deal formula",
      'if is_present(hs_exchange_rate) then (amount * hs_exchange_rate) else amount',
      { amount: 'number', hs_exchange_rate: 'number' },
      'number',
    ],
  ])('%s: %s', (_, formula, types, type) => {
    const r = checkFormula(formula, on(types));
    expect(r).toMatchObject({ ok: true, type });
  });

  it('reads property names case-insensitively and reports them as HubSpot names them', () => {
    expect(checkFormula('AMOUNT * Discount + 10Amount', lookup)).toEqual({
      ok: true,
      type: 'number',
      references: ['amount', 'discount'],
    });
  });

  /** What the page (or the grammar it describes) refuses, and where: the position is the offending token's. */
  it.each<[string, string, Record<string, string>, RegExp, string]>([
    [
      'a string plus a number',
      '"Number of cars: " + num_cars',
      {},
      /'\+' needs numbers or strings on both sides/,
      'num_cars',
    ],
    [
      'the advanced example as printed ("an")',
      "if is_present(hs_latest_sequence_enrolled_date) then if is_present(hs_sequences_actively_enrolled_count) an hs_sequences_actively_enrolled_count >= 1 then true else false else ''",
      sequences,
      /expected 'then' but found 'an'/,
      'an hs_',
    ],
    [
      'a bool plus a bool',
      'bool(a) + bool(c)',
      { a: 'bool', c: 'bool' },
      /'\+' needs numbers or strings, not a bool/,
      'bool(a)',
    ],
    ['- on strings', "'a' - 'b'", {}, /'-' needs numbers, not a string/, "'a'"],
    [
      'prefix notation on a string',
      '2string(property1)',
      { property1: 'string' },
      /the '\*' of 'string' after a number needs numbers/,
      'string',
    ],
    ['equals across types', "a equals 'x'", {}, /'equals' compares a number with a string/, 'equals'],
    ['< on strings', "'a' < 'b'", {}, /'<' compares numbers/, "'a'"],
    ['branches of two types', "if a > 1 then 1 else 'x'", {}, /branches mix number and string/, "'x'"],
    ['a non-empty string beside booleans', "if a > 1 then true else 'no'", {}, /branches mix bool and string/, "'no'"],
    ['a number condition', 'if a then 1', {}, /if condition must be a boolean/, 'a then'],
    ['else after the if is closed', 'if a > 1 then 1 endif else 2', {}, /unexpected 'else'/, 'else'],
    ['max of one', 'max(a)', {}, /max\(\) takes at least 2 argument/, 'max'],
    ['max of 101', `max(${Array.from({ length: 101 }, () => 'a').join(', ')})`, {}, /at most 100, not 101/, 'max'],
    [
      'concatenate of 101',
      `concatenate(${Array.from({ length: 101 }, () => "'x'").join(', ')})`,
      {},
      /at most 100, not 101/,
      'concatenate',
    ],
    ['min of 101', `min(${Array.from({ length: 101 }, () => '1').join(', ')})`, {}, /at most 100, not 101/, 'min'],
    ['a number read as bool', 'bool(a)', {}, /property 'a' is of type number/, 'a)'],
    ['equals on its own', 'equals', {}, /unexpected 'equals'/, 'equals'],
    ['prefix notation with a space', '10 property1', {}, /unexpected 'property1'/, 'property1'],
    // The inner if takes the first else, so the outer one's else holds a string beside a number.
    ['a dangling else', "if a > 1 then if b > 1 then 1 else 2 else 'x'", {}, /branches mix number and string/, "'x'"],
  ])('%s is refused at its position: %s', (_, formula, types, message, where) => {
    const r = checkFormula(formula, on(types));
    expect(r).toMatchObject({ ok: false, message: expect.stringMatching(message), position: formula.indexOf(where) });
  });
});
