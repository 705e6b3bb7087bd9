import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { checkJsonBounds } from '../../src/platform/http/json-body-bounds';
import { routeBodyLimit } from '../../src/platform/http/body-limits';

describe('JSON bounds before parsing (issue 14, finding 5)', () => {
  const refused = (body: string, depth = 3, keys = 3) => {
    try {
      checkJsonBounds(Buffer.from(body), depth, keys);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(HubSpotError);
      return (error as HubSpotError).extras.errors?.[0]?.code;
    }
  };

  it('counts nesting and keys outside strings only (escaped quotes included)', () => {
    expect(refused('[[[1]]]')).toBeUndefined();
    expect(refused('[[[[1]]]]')).toBeDefined();
    expect(refused('{"a":{"b":{"c":1}}}')).toBeUndefined();
    expect(refused('{"a":1,"b":2,"c":3,"d":4}')).toBeDefined();
    expect(refused('{"[[[[{{{{":"::::,\\\\\\"[[[[[\\"]]]"}')).toBeUndefined();
    expect(refused('"\\\\"')).toBeUndefined();
    expect(refused('["\\\\",[[[1]]]]')).toBeDefined(); // the escaped backslash ends the string
  });

  it('bounds elements per array, members per object (keys) and values in all, for every field (issue 41, item 2)', () => {
    const array = (n: number) => `[${Array(n).fill('{}').join(',')}]`;
    const object = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
    expect(refused(`{"junk":${array(50_000)}}`, 32, 1e9)).toBeUndefined();
    expect(refused(`{"junk":${array(50_001)}}`, 32, 1e9)).toBe('TOO_MANY_ITEMS');
    expect(refused(`{"junk":${object(39_999)}}`, 32, 40_000)).toBeUndefined();
    expect(refused(`{"junk":${object(40_000)}}`, 32, 40_000)).toBe('TOO_MANY_KEYS'); // members are keys
    expect(refused(`{"a":${array(40_000)},"b":${array(40_000)}}`, 32, 1e9)).toBeUndefined();
    expect(refused(`{"a":${array(40_000)},"b":${array(40_000)},"c":${array(40_000)}}`, 32, 1e9)).toBe('TOO_MANY_ITEMS');
    // Commas inside strings are text, not elements.
    expect(refused(`["${','.repeat(60_000)}"]`, 32, 1e9)).toBeUndefined();
  });

  it('gives each route family its body limit under BODY_LIMIT_BYTES (finding 1)', () => {
    const limits = { bodyLimitBytes: 1024 * 1024, crmBodyLimitBytes: 256 * 1024 };
    expect(routeBodyLimit('/oauth/v1/token', limits)).toBe(16 * 1024);
    expect(routeBodyLimit('/oauth/authorize/sign-in', limits)).toBe(16 * 1024);
    expect(routeBodyLimit('/crm/v3/properties/:objectType', limits)).toBe(256 * 1024);
    expect(routeBodyLimit('/crm-object-schemas/2026-03/schemas', limits)).toBe(256 * 1024);
    expect(routeBodyLimit('/admin/v1/apps', limits)).toBeUndefined();
    expect(routeBodyLimit('/crm/v3/limits', { bodyLimitBytes: 4096, crmBodyLimitBytes: 256 * 1024 })).toBe(4096);
  });
});
