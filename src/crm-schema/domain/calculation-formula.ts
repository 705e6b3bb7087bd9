/**
 * The formula language of calculated properties (`calculationFormula`), as HubSpot documents it
 * (developers.hubspot.com, properties guide, "Calculation property syntax"): number, string and
 * boolean literals; property references (a bare name reads a number property, `string(name)` a text
 * one, `bool(name)` a boolean one); arithmetic (`+` also joins strings; `10property1` multiplies),
 * comparison (`=`, `equals`, `!=`, …) and logical operators; a small set of functions; and
 * `if … then … elseif … else … endif` with `endif` optional. Case-insensitive except inside string
 * literals. Pure: the properties a formula may name come in as a lookup. The grammar is written out
 * in docs/limits.md.
 */

import { describeToken as describe, FormulaError, type Token, tokenize } from './calculation-formula-tokens';

export type FormulaType = 'number' | 'string' | 'bool';

/** What the checker needs of one property of the object: its HubSpot `type`. */
export type PropertyTypeLookup = (name: string) => string | undefined;

export type FormulaCheck =
  { ok: true; type: FormulaType; references: string[] } | { ok: false; message: string; position: number };

/** Which formula type a property of each HubSpot type yields, and so which result fits it. */
const FORMULA_TYPE_OF_PROPERTY: Record<string, FormulaType> = {
  number: 'number',
  date: 'number', // dates are epoch milliseconds in formulas
  datetime: 'number',
  string: 'string',
  enumeration: 'string',
  phone_number: 'string',
  bool: 'bool',
};

export const formulaTypeOfProperty = (propertyType: string): FormulaType | undefined =>
  FORMULA_TYPE_OF_PROPERTY[propertyType];

/** Deeper nesting than this is refused (a hostile formula must not exhaust the stack). */
const MAX_DEPTH = 64;

const KEYWORDS = new Set(['and', 'or', 'not', 'equals', 'true', 'false', 'if', 'then', 'elseif', 'else', 'endif']);

/**
 * Functions: argument types (`any` takes every type; `upTo` repeats the last one up to that many
 * arguments — HubSpot's max, min and concatenate take 2 to 100) and the result.
 */
interface Signature {
  args: Array<FormulaType | 'any'>;
  optional?: number;
  upTo?: number;
  result: FormulaType | 'branches';
}
const FUNCTIONS: Record<string, Signature> = {
  if: { args: ['bool', 'any', 'any'], result: 'branches' },
  max: { args: ['number', 'number'], upTo: 100, result: 'number' },
  min: { args: ['number', 'number'], upTo: 100, result: 'number' },
  round: { args: ['number', 'number'], optional: 1, result: 'number' },
  round_down: { args: ['number', 'number'], result: 'number' },
  round_up: { args: ['number', 'number'], result: 'number' },
  round_nearest: { args: ['number', 'number'], result: 'number' },
  abs: { args: ['number'], result: 'number' },
  is_present: { args: ['any'], result: 'bool' },
  contains: { args: ['string', 'string'], result: 'bool' },
  concatenate: { args: ['string', 'string'], upTo: 100, result: 'string' },
  number_to_string: { args: ['number'], result: 'string' },
  string_to_number: { args: ['string'], result: 'number' },
};
export const FORMULA_FUNCTIONS: readonly string[] = Object.keys(FUNCTIONS);

/**
 * One read expression: its type, where it starts, and whether it is the empty string literal alone
 * (`''`), which as an `if` branch leaves the property empty and so fits branches of any type (as in
 * the page's own example, a boolean formula whose last branch is `''`).
 */
interface Operand {
  type: FormulaType;
  at: number;
  empty: boolean;
}

/** The type an if's branches share, the empty ones aside; throws where a branch breaks it. */
function branchType(known: FormulaType | undefined, b: Operand, what: string): FormulaType | undefined {
  if (b.empty) return known;
  if (known !== undefined && b.type !== known) throw new FormulaError(`${what} mix ${known} and ${b.type}`, b.at);
  return b.type;
}

class Parser {
  private i = 0;
  private depth = 0;
  readonly references = new Set<string>();

  constructor(
    private readonly tokens: Token[],
    private readonly lookup: PropertyTypeLookup,
  ) {}

  parse(): FormulaType {
    if (this.peek().kind === 'end') throw new FormulaError('the formula is empty', 0);
    const type = this.expression();
    const rest = this.peek();
    if (rest.kind !== 'end') throw new FormulaError(`unexpected '${rest.text}'`, rest.at);
    return type;
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    return this.tokens[this.i++]!;
  }
  private isWord(word: string): boolean {
    const t = this.peek();
    return t.kind === 'ident' && t.text.toLowerCase() === word;
  }
  private isOp(op: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.text === op;
  }
  private expectOp(op: string): void {
    const t = this.next();
    if (t.kind !== 'op' || t.text !== op) throw new FormulaError(`expected '${op}' but found ${describe(t)}`, t.at);
  }
  private expectWord(word: string): void {
    const t = this.next();
    if (!(t.kind === 'ident' && t.text.toLowerCase() === word)) {
      throw new FormulaError(`expected '${word}' but found ${describe(t)}`, t.at);
    }
  }

  private nested<T>(at: number, f: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new FormulaError(`the formula nests deeper than ${MAX_DEPTH} levels`, at);
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  private expression(): FormulaType {
    return this.nested(this.peek().at, () => (this.isWord('if') ? this.conditional() : this.or()));
  }

  /** An expression, as an operand or branch. */
  private operand(): Operand {
    const start = this.i;
    const at = this.peek().at;
    const type = this.expression();
    const t = this.tokens[start]!;
    return { type, at, empty: this.i === start + 1 && t.kind === 'string' && t.text === '' };
  }

  /**
   * if C then A (elseif C then A)* (else A)? endif? — every branch of one type, `endif` optional (an
   * elseif, else or endif belongs to the innermost open `if`); or the function form if(C, A, B).
   * Read in one pass (no backtracking): after `if (` the first expression decides — a comma makes
   * it the function, a closing parenthesis the statement whose whole condition was parenthesized.
   */
  private conditional(): FormulaType {
    const keyword = this.next();
    let type: FormulaType | undefined;
    const branch = () => {
      type = branchType(type, this.operand(), 'the branches');
    };
    const mustBeBool = (c: FormulaType, at: number) => {
      if (c !== 'bool') throw new FormulaError(`an if condition must be a boolean, not a ${c}`, at);
    };
    const condition = () => {
      const at = this.peek().at;
      mustBeBool(this.expression(), at);
    };
    if (this.isOp('(')) {
      this.next();
      const first = this.operand();
      if (this.isOp(',')) return this.finishCall(keyword, 'if', FUNCTIONS.if!, [first]);
      this.expectOp(')');
      mustBeBool(first.type, first.at);
    } else {
      condition();
    }
    this.expectWord('then');
    branch();
    while (this.isWord('elseif')) {
      this.next();
      condition();
      this.expectWord('then');
      branch();
    }
    if (this.isWord('else')) {
      this.next();
      branch();
    }
    if (this.isWord('endif')) this.next();
    return type ?? 'string';
  }

  private logical(word: 'or' | 'and', operand: () => FormulaType): FormulaType {
    let at = this.peek().at;
    let left = operand();
    while (this.isWord(word)) {
      this.next();
      const rightAt = this.peek().at;
      const right = operand();
      if (left !== 'bool') throw new FormulaError(`'${word}' needs booleans, not a ${left}`, at);
      if (right !== 'bool') throw new FormulaError(`'${word}' needs booleans, not a ${right}`, rightAt);
      left = 'bool';
      at = rightAt;
    }
    return left;
  }

  private or(): FormulaType {
    return this.logical('or', () => this.and());
  }
  private and(): FormulaType {
    return this.logical('and', () => this.not());
  }

  private not(): FormulaType {
    if (!this.isWord('not')) return this.comparison();
    const t = this.next();
    const operand = this.nested(t.at, () => this.not());
    if (operand !== 'bool') throw new FormulaError(`'not' needs a boolean, not a ${operand}`, t.at);
    return 'bool';
  }

  private comparison(): FormulaType {
    const at = this.peek().at;
    const left = this.additive();
    const t = this.peek();
    const equals = this.isWord('equals'); // the word form of '='
    if (!equals && (t.kind !== 'op' || !['<', '>', '<=', '>=', '=', '!='].includes(t.text))) return left;
    this.next();
    const right = this.additive();
    if (equals || t.text === '=' || t.text === '!=') {
      if (left !== right) throw new FormulaError(`'${t.text}' compares a ${left} with a ${right}`, t.at);
    } else if (left !== 'number' || right !== 'number') {
      throw new FormulaError(`'${t.text}' compares numbers, not a ${left === 'number' ? right : left}`, at);
    }
    return 'bool';
  }

  /** '+' adds numbers or joins strings (both sides of one of those types); '-' subtracts numbers. */
  private additive(): FormulaType {
    let at = this.peek().at;
    let left = this.term();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next();
      const rightAt = this.peek().at;
      const right = this.term();
      if (op.text === '-') {
        if (left !== 'number') throw new FormulaError(`'-' needs numbers, not a ${left}`, at);
        if (right !== 'number') throw new FormulaError(`'-' needs numbers, not a ${right}`, rightAt);
      } else if (left === 'bool') {
        throw new FormulaError(`'+' needs numbers or strings, not a bool`, at);
      } else if (right !== left) {
        throw new FormulaError(`'+' needs numbers or strings on both sides, not a ${left} and a ${right}`, rightAt);
      }
      at = rightAt;
      left = right;
    }
    return left;
  }

  private term(): FormulaType {
    let at = this.peek().at;
    const left = this.unary();
    while (this.isOp('*') || this.isOp('/')) {
      const op = this.next();
      const name = op.implicit ? `the '*' of '${this.peek().text}' after a number` : `'${op.text}'`;
      const rightAt = this.peek().at;
      const right = this.unary();
      if (left !== 'number') throw new FormulaError(`${name} needs numbers, not a ${left}`, at);
      if (right !== 'number') throw new FormulaError(`${name} needs numbers, not a ${right}`, rightAt);
      at = rightAt;
    }
    return left;
  }

  private unary(): FormulaType {
    if (!this.isOp('-')) return this.primary();
    const t = this.next();
    const operand = this.nested(t.at, () => this.unary());
    if (operand !== 'number') throw new FormulaError(`unary '-' needs a number, not a ${operand}`, t.at);
    return 'number';
  }

  private primary(): FormulaType {
    const t = this.next();
    switch (t.kind) {
      case 'number':
        return 'number';
      case 'string':
        return 'string';
      case 'op':
        if (t.text === '(') {
          const type = this.expression();
          this.expectOp(')');
          return type;
        }
        throw new FormulaError(`unexpected '${t.text}'`, t.at);
      case 'end':
        throw new FormulaError('the formula ends too early', t.at);
      case 'ident':
        return this.identifier(t);
    }
  }

  private identifier(t: Token): FormulaType {
    const word = t.text.toLowerCase();
    if (word === 'true' || word === 'false') return 'bool';
    if (this.isOp('(')) {
      if (word === 'string' || word === 'bool') return this.typedReference(t, word);
      return this.call(t);
    }
    if (KEYWORDS.has(word)) throw new FormulaError(`unexpected '${t.text}'`, t.at);
    return this.reference(t.text, 'number', t.at);
  }

  /** `string(name)` / `bool(name)`: a property read as that type. */
  private typedReference(t: Token, as: 'string' | 'bool'): FormulaType {
    this.expectOp('(');
    const name = this.next();
    if (name.kind !== 'ident' || KEYWORDS.has(name.text.toLowerCase())) {
      throw new FormulaError(`${t.text}() takes a property name, not ${describe(name)}`, name.at);
    }
    this.expectOp(')');
    return this.reference(name.text, as, name.at);
  }

  /** Property names are case-insensitive (HubSpot's are lowercase): `Amount` reads `amount`. */
  private reference(written: string, as: FormulaType, at: number): FormulaType {
    const name = written.toLowerCase();
    const propertyType = this.lookup(name);
    if (propertyType === undefined) throw new FormulaError(`property '${name}' does not exist on this object`, at);
    const actual = formulaTypeOfProperty(propertyType);
    if (actual !== as) {
      const how = as === 'number' ? name : `${as}(${name})`;
      const hint = actual === 'string' ? `string(${name})` : actual === 'bool' ? `bool(${name})` : name;
      throw new FormulaError(
        `property '${name}' is of type ${propertyType}, so '${how}' cannot read it as a ${as}` +
          (actual && actual !== as ? `; write ${hint}` : ''),
        at,
      );
    }
    this.references.add(name);
    return as;
  }

  private call(t: Token): FormulaType {
    const name = t.text.toLowerCase();
    const signature = FUNCTIONS[name];
    if (!signature) throw new FormulaError(`unknown function '${t.text}'`, t.at);
    this.expectOp('(');
    if (this.isOp(')')) return this.finishCall(t, name, signature, [], true);
    return this.finishCall(t, name, signature, [this.operand()]);
  }

  /** The rest of a call whose first arguments are read: more after commas, then ')' and the checks. */
  private finishCall(t: Token, name: string, signature: Signature, args: Operand[], closed = false): FormulaType {
    if (!closed) {
      while (this.isOp(',')) {
        this.next();
        args.push(this.operand());
      }
    }
    this.expectOp(')');
    const min = signature.args.length - (signature.optional ?? 0);
    const max = signature.upTo ?? signature.args.length;
    if (args.length < min || args.length > max) {
      const expected =
        signature.upTo !== undefined
          ? `at least ${min} argument(s) and at most ${max}`
          : `${min === max ? min : `${min} or ${max}`} argument(s)`;
      throw new FormulaError(`${name}() takes ${expected}, not ${args.length}`, t.at);
    }
    args.forEach((a, k) => {
      const want = signature.args[Math.min(k, signature.args.length - 1)]!;
      if (want !== 'any' && a.type !== want) {
        throw new FormulaError(`argument ${k + 1} of ${name}() must be a ${want}, not a ${a.type}`, a.at);
      }
    });
    if (signature.result !== 'branches') return signature.result;
    return (
      branchType(branchType(undefined, args[1]!, 'the branches of if()'), args[2]!, 'the branches of if()') ?? 'string'
    );
  }
}

/** Parses and type-checks one formula against the object's properties. */
export function checkFormula(source: string, lookup: PropertyTypeLookup): FormulaCheck {
  try {
    const parser = new Parser(tokenize(source), lookup);
    const type = parser.parse();
    return { ok: true, type, references: [...parser.references] };
  } catch (error) {
    if (error instanceof FormulaError) return { ok: false, message: error.message, position: error.position };
    throw error;
  }
}
