/** The tokens of calculated-property formulas (see calculation-formula.ts for the grammar). */

export type TokenKind = 'number' | 'string' | 'ident' | 'op' | 'end';
export interface Token {
  kind: TokenKind;
  text: string;
  at: number;
  /** The `*` a number directly followed by a name stands for (`10property1` is `10 * property1`). */
  implicit?: true;
}

export class FormulaError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

const OPERATORS = ['<=', '>=', '!=', '+', '-', '*', '/', '<', '>', '=', '(', ')', ','];

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const number = /^(\d+(\.\d+)?|\.\d+)/.exec(source.slice(i, i + 400));
    if (number) {
      tokens.push({ kind: 'number', text: number[0], at: i });
      i += number[0].length;
      // HubSpot's prefix notation: a name right after a number multiplies it (`10property1`).
      if (i < source.length && /[A-Za-z_]/.test(source[i]!))
        tokens.push({ kind: 'op', text: '*', at: i, implicit: true });
      continue;
    }
    if (c === '"' || c === "'") {
      const end = source.indexOf(c, i + 1);
      if (end < 0) throw new FormulaError(`the string literal starting at ${i} is not closed`, i);
      tokens.push({ kind: 'string', text: source.slice(i + 1, end), at: i });
      i = end + 1;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 200));
    if (ident) {
      tokens.push({ kind: 'ident', text: ident[0], at: i });
      i += ident[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', text: op, at: i });
      i += op.length;
      continue;
    }
    throw new FormulaError(`unexpected character '${c}'`, i);
  }
  tokens.push({ kind: 'end', text: '', at: source.length });
  return tokens;
}

/** A token as an error message names it. */
export function describeToken(t: Token): string {
  if (t.kind === 'end') return 'the end of the formula';
  if (t.kind === 'string') return 'a string literal';
  return `'${t.text}'`;
}
