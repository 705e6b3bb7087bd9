import { HubSpotError } from '../errors/hubspot-error';

/** Deeper than any HubSpot request body (they nest a handful of levels). */
const MAX_JSON_DEPTH = 32;
/**
 * Object keys in one body. A valid CRM body under its 256 KiB limit can hold tens of thousands (a
 * properties batch of a few enumerations of 1,000 options each: about 3 keys per option), so the
 * bound sits above that; it stops the key floods the admin API's 1 MB bodies could carry.
 */
const MAX_JSON_KEYS = 40_000;

/**
 * Elements in one array, and nodes (array elements and object members) in the whole body. Above
 * what any field allows (the validation pipe names the field and its own bound, 1,000 at most):
 * these bound what parsing may build from a body under its byte limit, for every field, declared
 * or not; the pipe then drops undeclared fields before any framework walks them. Members of an
 * object are keys, bounded with all the others by MAX_JSON_KEYS.
 */
const MAX_JSON_ARRAY_ITEMS = 50_000;
const MAX_JSON_NODES = 100_000;

const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Refuses a JSON body nested too deep or with too many keys before it is parsed: one linear pass
 * over the bytes (strings skipped, a key is a colon outside strings), so a body built to make the
 * parser or the validators work hard (500k levels of `[`, 55k `"constructor"` keys) costs no more
 * than reading it. Whether it is valid JSON is the parser's business, after this.
 */
export function checkJsonBounds(body: Buffer | string, maxDepth = MAX_JSON_DEPTH, maxKeys = MAX_JSON_KEYS): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  let depth = 0;
  let keys = 0;
  let nodes = 0;
  // Per open container: whether it is an array, and the commas seen directly inside it.
  const isArray = new Uint8Array(maxDepth + 2);
  const commas = new Uint32Array(maxDepth + 2);
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      i = endOfString(bytes, i);
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) {
        throw HubSpotError.validation(`The JSON body is nested deeper than ${maxDepth} levels.`, [
          { message: `nested deeper than ${maxDepth} levels`, in: 'body', code: 'TOO_DEEP' },
        ]);
      }
      isArray[depth] = c === OPEN_BRACKET ? 1 : 0;
      commas[depth] = 0;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) depth--;
    } else if (c === COMMA && depth > 0) {
      // n commas: n + 1 elements or members.
      if (isArray[depth] && ++commas[depth]! + 1 > MAX_JSON_ARRAY_ITEMS) {
        throw tooMany(`more than ${MAX_JSON_ARRAY_ITEMS} elements in one array`);
      }
      if (++nodes > MAX_JSON_NODES) throw tooMany(`more than ${MAX_JSON_NODES} values`);
    } else if (c === COLON && ++keys > maxKeys) {
      throw HubSpotError.validation(`The JSON body has more than ${maxKeys} keys.`, [
        { message: `more than ${maxKeys} keys`, in: 'body', code: 'TOO_MANY_KEYS' },
      ]);
    }
  }
}

function tooMany(what: string): HubSpotError {
  return HubSpotError.validation(`The JSON body has ${what}.`, [{ message: what, in: 'body', code: 'TOO_MANY_ITEMS' }]);
}

/** The index of the quote that closes the string opened at `open` (native search; escapes counted back). */
function endOfString(bytes: Buffer, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at < 0) return bytes.length; // unterminated: the parser will say so
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
