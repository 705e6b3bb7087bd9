/**
 * The path globs of faults (`match.path`), matched without backtracking blow-up (issue 41, item 3: a
 * picomatch regex for `/crm/v3/properties/*a*a*a*a*a*a*a*ab` took seconds against one 48-character
 * segment). The glob and the path are split at `/` into segments and matched the way shells match
 * file names, each level with one restart point (Russ Cox, "Glob Matching Can Be Simple And Fast
 * Too"): no step is retried more than once per restart, so a match costs at most about the glob's
 * length times the path's length, whatever the glob:
 *
 *  - `**` as a whole segment: zero or more whole segments;
 *  - `*`: any run of characters within one segment (never `/`); `?`: one such character;
 *  - `[abc]`, `[a-z]`, `[!a]` / `[^a]`: one character of (or not of) the set, never `/`;
 *  - `{a,b}`: alternatives (nested allowed, `/` allowed inside), at most MAX_GLOB_ALTERNATIVES in all;
 *  - `\` takes the next character literally.
 *
 * An empty path segment (`//`, a trailing `/`) is matched only by an empty glob segment or by `**`.
 * Paths longer than MAX_MATCHED_PATH_LENGTH are matched by no glob (the bound on the work per request).
 */

/** The longest glob accepted. */
export const MAX_GLOB_LENGTH = 512;
/** At most this many alternatives after `{…}` groups are expanded… */
export const MAX_GLOB_ALTERNATIVES = 32;
/** …and at most this many characters in all of them together. */
export const MAX_EXPANDED_GLOB_LENGTH = 2048;
/** A request path longer than this (after decoding) is matched by no path glob. */
export const MAX_MATCHED_PATH_LENGTH = 2048;

type CharTest =
  | { kind: 'char'; c: string }
  | { kind: 'any' }
  | { kind: 'set'; negated: boolean; ranges: readonly (readonly [string, string])[] };
type Token = CharTest | { kind: 'star' };
type Segment = { kind: 'globstar' } | { kind: 'segment'; tokens: readonly Token[] };

export type PathGlob = { ok: true; matches: (path: string) => boolean } | { ok: false; problem: string };

class GlobProblem extends Error {}

/** Compiles a glob, or says in one sentence why it is refused. */
export function compilePathGlob(glob: string): PathGlob {
  try {
    if (glob.length > MAX_GLOB_LENGTH) throw new GlobProblem(`it is longer than ${MAX_GLOB_LENGTH} characters`);
    const alternatives = expandBraces(glob).map(compileAlternative);
    return {
      ok: true,
      matches: (path) =>
        path.length <= MAX_MATCHED_PATH_LENGTH && alternatives.some((segments) => matchPath(segments, path.split('/'))),
    };
  } catch (error) {
    if (error instanceof GlobProblem) return { ok: false, problem: error.message };
    throw error;
  }
}

// ---- Parsing ----

/** Index of the `]` that closes the set opened at `start`, or -1. A `]` first in the set is a member. */
function setEnd(glob: string, start: number): number {
  let i = start + 1;
  if (glob[i] === '!' || glob[i] === '^') i++;
  if (glob[i] === ']') i++;
  for (; i < glob.length; i++) {
    if (glob[i] === '\\') i++;
    else if (glob[i] === ']') return i;
  }
  return -1;
}

/** Every alternative spelled out: `/a/{b,c}/d` -> `/a/b/d`, `/a/c/d`. Sets and escapes are copied as they are. */
function expandBraces(glob: string): string[] {
  let pos = 0;
  let total = 0;
  const sequence = (inGroup: boolean): string[] => {
    let results = [''];
    const append = (text: string) => (results = results.map((r) => r + text));
    while (pos < glob.length) {
      const c = glob[pos]!;
      if (c === '\\') {
        if (pos + 1 >= glob.length) throw new GlobProblem('it ends in a lone \\');
        append(glob.slice(pos, pos + 2));
        pos += 2;
      } else if (c === '[') {
        const end = setEnd(glob, pos);
        if (end < 0) throw new GlobProblem('a [ is not closed');
        append(glob.slice(pos, end + 1));
        pos = end + 1;
      } else if (c === '{') {
        pos++;
        const alternatives: string[] = [];
        let groups = 0;
        for (;;) {
          alternatives.push(...sequence(true));
          groups++;
          if (pos >= glob.length) throw new GlobProblem('a { is not closed');
          if (glob[pos++] === '}') break;
        }
        if (groups < 2) throw new GlobProblem('a {…} group needs two or more alternatives separated by commas');
        if (results.length * alternatives.length > MAX_GLOB_ALTERNATIVES) {
          throw new GlobProblem(`its {…} groups make more than ${MAX_GLOB_ALTERNATIVES} alternatives`);
        }
        results = results.flatMap((r) => alternatives.map((a) => r + a));
      } else if (inGroup && (c === ',' || c === '}')) {
        return results;
      } else if (c === '}') {
        throw new GlobProblem('a } has no {');
      } else {
        append(c);
        pos++;
      }
      total = results.reduce((n, r) => n + r.length, 0);
      if (total > MAX_EXPANDED_GLOB_LENGTH) {
        throw new GlobProblem(`its alternatives spelled out pass ${MAX_EXPANDED_GLOB_LENGTH} characters`);
      }
    }
    return results;
  };
  return sequence(false);
}

function compileAlternative(alternative: string): Segment[] {
  const segments: Segment[] = [];
  let tokens: Token[] = [];
  let text = '';
  const close = () => {
    if (text === '**') {
      // Consecutive `**` segments match what one does.
      if (segments.at(-1)?.kind !== 'globstar') segments.push({ kind: 'globstar' });
    } else segments.push({ kind: 'segment', tokens });
    tokens = [];
    text = '';
  };
  for (let i = 0; i < alternative.length; i++) {
    const c = alternative[i]!;
    if (c === '/') {
      close();
      continue;
    }
    text += c;
    if (c === '\\') {
      const next = alternative[++i]!;
      text += next;
      tokens.push({ kind: 'char', c: next });
    } else if (c === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') {
      tokens.push({ kind: 'any' });
    } else if (c === '[') {
      const end = setEnd(alternative, i);
      const set = parseSet(alternative.slice(i + 1, end));
      text += alternative.slice(i + 1, end + 1);
      tokens.push(set);
      i = end;
    } else if (c === '(' || c === ')') {
      throw new GlobProblem('parentheses (extglobs) are not supported: use {a,b} for alternatives');
    } else {
      tokens.push({ kind: 'char', c });
    }
  }
  close();
  return segments;
}

function parseSet(body: string): CharTest {
  let i = 0;
  const negated = body[0] === '!' || body[0] === '^';
  if (negated) i++;
  /** The set's characters; `dash` marks an unescaped `-`, which joins its neighbours into a range. */
  const members: { c: string; dash: boolean }[] = [];
  for (; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') members.push({ c: body[++i]!, dash: false });
    else if (c === '[' && body[i + 1] === ':') throw new GlobProblem('POSIX classes ([:alpha:]) are not supported');
    else if (c === '/') throw new GlobProblem('a [set] cannot hold /: it matches within one segment');
    else members.push({ c, dash: c === '-' });
  }
  if (members.length === 0) throw new GlobProblem('a [set] is empty');
  const ranges: (readonly [string, string])[] = [];
  for (let m = 0; m < members.length; m++) {
    // `a-z` is a range; a `-` first or last is itself.
    if (members[m + 1]?.dash && m + 2 < members.length) {
      const [from, to] = [members[m]!.c, members[m + 2]!.c];
      if (from > to) throw new GlobProblem(`the range ${from}-${to} runs backwards`);
      ranges.push([from, to]);
      m += 2;
    } else ranges.push([members[m]!.c, members[m]!.c]);
  }
  return { kind: 'set', negated, ranges };
}

// ---- Matching ----

function accepts(test: CharTest, c: string): boolean {
  switch (test.kind) {
    case 'char':
      return test.c === c;
    case 'any':
      return true; // a segment holds no `/`
    case 'set':
      return test.ranges.some(([from, to]) => c >= from && c <= to) !== test.negated;
  }
}

/** One segment against one glob segment: `*` with a single restart point. */
function matchSegment(tokens: readonly Token[], segment: string): boolean {
  if (segment.length === 0) return tokens.length === 0;
  let t = 0;
  let i = 0;
  let starT = -1;
  let starI = 0;
  while (i < segment.length) {
    const token = tokens[t];
    if (token !== undefined && token.kind === 'star') {
      starT = t++;
      starI = i;
    } else if (token !== undefined && accepts(token, segment[i]!)) {
      t++;
      i++;
    } else if (starT >= 0) {
      t = starT + 1;
      i = ++starI;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}

/** The path's segments against the glob's: `**` with a single restart point, as `*` within a segment. */
function matchPath(segments: readonly Segment[], path: readonly string[]): boolean {
  let p = 0;
  let i = 0;
  let starP = -1;
  let starI = 0;
  while (i < path.length) {
    const segment = segments[p];
    if (segment !== undefined && segment.kind === 'globstar') {
      starP = p++;
      starI = i;
    } else if (segment !== undefined && matchSegment(segment.tokens, path[i]!)) {
      p++;
      i++;
    } else if (starP >= 0) {
      p = starP + 1;
      i = ++starI;
    } else return false;
  }
  while (segments[p]?.kind === 'globstar') p++;
  return p === segments.length;
}
