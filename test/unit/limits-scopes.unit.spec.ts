import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CRM_LIMITS_READ_SCOPES,
  crmLimitsReadScopes,
  CUSTOM_OBJECT_TYPE_LIMITS_SCOPES,
  propertyScopes,
} from '../../src/limits/domain/scopes';
import { isKnownScope } from '../../src/platform/scopes/scope-catalog';

const SPEC = resolve(__dirname, '../../..', 'shared/reference/hubspot-openapi/limitsTracking.json');
const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as {
  paths: Record<string, { get: { security: Array<Record<string, string[]>> } }>;
};

/** Every scope of an operation's "any of" list (each security entry is a one-scope alternative). */
function anyOf(path: string): string[] {
  const entries = spec.paths[path]!.get.security;
  return entries.filter((e) => e.oauth2).flatMap((e) => e.oauth2!);
}

describe('limits scopes copied from limitsTracking.json', () => {
  it.each([
    ['/crm/v3/limits/calculated-properties', CRM_LIMITS_READ_SCOPES],
    ['/crm/v3/limits/custom-properties', CRM_LIMITS_READ_SCOPES],
    ['/crm/v3/limits/associations/labels', CRM_LIMITS_READ_SCOPES],
    ['/crm/v3/limits/custom-object-types', CUSTOM_OBJECT_TYPE_LIMITS_SCOPES],
  ])('%s accepts exactly the official list', (path, ours) => {
    const official = anyOf(path);
    expect(official.length).toBeGreaterThan(0);
    expect([...ours].sort()).toEqual([...official].sort());
  });

  it('every security entry of those operations is a single oauth2 scope (so "any of" is the right reading)', () => {
    for (const path of ['/crm/v3/limits/calculated-properties', '/crm/v3/limits/custom-object-types']) {
      for (const entry of spec.paths[path]!.get.security) {
        expect(Object.keys(entry)).toEqual(['oauth2']);
        expect(entry.oauth2).toHaveLength(1);
      }
    }
  });

  it('every accepted scope exists in the scope catalog (so a token can carry it)', () => {
    const all = [
      ...CRM_LIMITS_READ_SCOPES,
      ...CUSTOM_OBJECT_TYPE_LIMITS_SCOPES,
      ...(['contacts', 'companies', 'deals', 'tickets', 'custom'] as const).flatMap((f) => [
        ...propertyScopes(f, 'read'),
        ...propertyScopes(f, 'write'),
      ]),
    ];
    expect(all.filter((s) => !isKnownScope(s))).toEqual([]);
  });

  it('property writes need a write scope of that object type; reads accept read or write', () => {
    expect(propertyScopes('contacts', 'write')).toEqual(['crm.schemas.contacts.write', 'crm.objects.contacts.write']);
    expect(propertyScopes('deals', 'read')).toEqual(
      expect.arrayContaining(['crm.schemas.deals.read', 'crm.objects.deals.read', 'crm.schemas.deals.write']),
    );
    expect(propertyScopes('custom', 'write')).not.toContain('crm.schemas.contacts.write');
  });
});

describe('scopes of the date-versioned paths, against that version’s spec', () => {
  const load = (file: string) =>
    JSON.parse(readFileSync(resolve(SPEC, '..', file), 'utf8')) as {
      paths: Record<string, Record<string, { security: Array<Record<string, string[]>> }>>;
    };
  /** The operation's oauth2 "any of" list (2026-09 also lists private_apps entries: no private apps here). */
  const oauth2AnyOf = (file: string, path: string, method = 'get') =>
    load(file)
      .paths[path]![method]!.security.filter((e) => e.oauth2)
      .flatMap((e) => e.oauth2!);

  it.each([
    ['2026-03', 'calculated-properties'],
    ['2026-03', 'custom-properties'],
    ['2026-09', 'calculated-properties'],
    ['2026-09', 'custom-properties'],
    ['2026-03', 'associations/labels'],
    ['2026-09', 'associations/labels'],
  ] as const)('limits %s %s accepts exactly the official list', (version, endpoint) => {
    const official = oauth2AnyOf(`${version}/limitsTracking.json`, `/crm/limits/${version}/${endpoint}`);
    expect([...crmLimitsReadScopes(version)].sort()).toEqual([...official].sort());
  });

  it.each(['2026-03', '2026-09'] as const)('limits %s custom-object-types: the same list as v3', (version) => {
    const official = oauth2AnyOf(`${version}/limitsTracking.json`, `/crm/limits/${version}/custom-object-types`);
    expect([...CUSTOM_OBJECT_TYPE_LIMITS_SCOPES].sort()).toEqual([...official].sort());
  });

  it('properties 2026-09 accepts none of the scopes its spec dropped since 2026-03, and each object type keeps one', () => {
    const dropped = (method: string) => {
      const before = oauth2AnyOf('2026-03/properties.json', '/crm/properties/2026-03/{objectType}', method);
      const after = oauth2AnyOf('2026-09/properties.json', '/crm/properties/2026-09/{objectType}', method);
      return before.filter((s) => !after.includes(s));
    };
    const droppedRead = dropped('get');
    const droppedWrite = dropped('post');
    expect(droppedRead).toContain('crm.schemas.tickets.read');
    for (const family of ['contacts', 'companies', 'deals', 'tickets', 'custom'] as const) {
      expect(propertyScopes(family, 'write', '2026-09').filter((s) => droppedWrite.includes(s))).toEqual([]);
      expect(propertyScopes(family, 'read', '2026-09').filter((s) => droppedRead.includes(s))).toEqual([]);
      expect(propertyScopes(family, 'write', '2026-09').length).toBeGreaterThan(0);
      expect(propertyScopes(family, 'read', '2026-03')).toEqual(propertyScopes(family, 'read', 'v3'));
    }
  });
});
