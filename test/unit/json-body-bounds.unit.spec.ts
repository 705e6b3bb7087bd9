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
