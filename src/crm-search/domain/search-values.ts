/**
 * How a record's value is indexed for search, in one place: the projection writes these, the query
 * compiler compares against them, and the tests' brute-force evaluator uses the same definitions.
 *
 * - `lower`: the value lower-cased (HubSpot compares strings without case);
 * - `num`: the value as a number when it reads as one (numbers, epoch milliseconds) or as an ISO date
 *   or date-time (epoch milliseconds), else null: what number, date and datetime properties compare;
 * - tokens: the value's whitespace-separated words and, within them, its runs of letters and digits,
 *   lower-cased (`Ada Lovelace <ada@example.com>` → `ada`, `lovelace`, `<ada@example.com>`,
 *   `example`, `com`): what CONTAINS_TOKEN and `query` match.
 */
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export function lowerOf(value: string): string {
  return value.toLowerCase();
}

export function numericOf(value: string): number | null {
  const v = value.trim();
  let n = NaN;
  if (NUMBER.test(v)) n = Number(v);
  else if (ISO_DATE.test(v)) n = Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v);
  return Number.isFinite(n) ? n : null;
}

const SPACE = /\s/u;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]/u;

export function tokensOf(value: string): string[] {
  const tokens = new Set<string>();
  const lower = value.toLowerCase();
  // Most values are one word, and most words one run of letters and digits: no split for those.
  for (const word of SPACE.test(lower) ? lower.split(/\s+/u) : [lower]) {
    if (word === '') continue;
    tokens.add(word);
    if (!NOT_LETTER_OR_DIGIT.test(word)) continue; // its one part is the word itself
    for (const part of word.split(/[^\p{L}\p{N}]+/u)) if (part !== '') tokens.add(part);
  }
  return [...tokens];
}

/**
 * How a property's values compare: as numbers (number, date, datetime: dates as epoch milliseconds),
 * as text, or option by option (a multi-checkbox: enumeration with `fieldType: checkbox`, `a;b;c`).
 */
export type ValueKind = 'number' | 'string' | 'options';

export function kindOfPropertyType(type: string | undefined, fieldType?: string): ValueKind {
  if (type === 'number' || type === 'date' || type === 'datetime') return 'number';
  return type === 'enumeration' && fieldType === 'checkbox' ? 'options' : 'string';
}

/**
 * A multi-checkbox value's options, lower-cased: its `;`-separated parts, blanks dropped. A value
 * without `;` is its own one option (its lower-cased form), so only values with a `;` need rows of
 * their own in the options index (what the projection writes and the compiler reads).
 */
export function optionsOf(value: string): string[] {
  return [
    ...new Set(
      lowerOf(value)
        .split(';')
        .filter((o) => o !== ''),
    ),
  ];
}

export const hasSeveralOptions = (value: string): boolean => value.includes(';');

/**
 * A CONTAINS_TOKEN value as a token pattern: `*` matches any run of characters (HubSpot's wildcard,
 * `*@hubspot.com`); without one, the value must be one of the tokens. Null: no pattern (blank).
 */
export function tokenPatternOf(value: string): { exact: string } | { glob: string } | null {
  const v = value.trim().toLowerCase();
  if (v === '') return null;
  if (!v.includes('*')) return { exact: v };
  // SQLite's GLOB: `*` stays, the other special characters are matched literally.
  return { glob: v.replace(/[?[\]]/g, (c) => `[${c}]`) };
}

/** Whether a token matches a CONTAINS_TOKEN pattern (the evaluator's and the documentation's definition). */
export function tokenMatches(token: string, pattern: { exact: string } | { glob: string }): boolean {
  if ('exact' in pattern) return token === pattern.exact;
  const source = pattern.glob
    .split(/(\[.\])/u)
    .map((part) =>
      /^\[.\]$/u.test(part)
        ? part.slice(1, 2).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        : part
            .split('*')
            .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*'),
    )
    .join('');
  return new RegExp(`^${source}$`, 'su').test(token);
}

/**
 * The terms of a free-text `query`: its runs of letters and digits, lower-cased and distinct; a record
 * matches when each term begins one of the tokens of its default searchable properties.
 */
export function queryTermsOf(query: string): string[] {
  return [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((t) => t !== ''),
    ),
  ];
}

/** Tokens indexed per value at most: a long text is found by its first words. */
export const MAX_TOKENS_PER_VALUE = 500;

/** The tokens a value is indexed under (tokensOf, bounded). */
export function indexedTokensOf(value: string): string[] {
  const tokens = tokensOf(value);
  return tokens.length > MAX_TOKENS_PER_VALUE ? tokens.slice(0, MAX_TOKENS_PER_VALUE) : tokens;
}

/** Record ids per bucket of the search read model's id-range counts (keyset paging's totals). */
export const ID_BUCKET_SIZE = 1024;
