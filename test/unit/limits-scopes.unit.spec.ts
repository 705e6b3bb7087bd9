import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CRM_LIMITS_READ_SCOPES,
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
