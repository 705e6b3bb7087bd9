import {
  CRM_LIMITS_READ_SCOPES,
  CUSTOM_OBJECT_TYPE_LIMITS_SCOPES,
  propertyScopes,
} from '../../src/crm-schema/domain/scopes';
import { isKnownScope } from '../../src/platform/scopes/scope-catalog';

/**
 * The accepted scope lists of the limits module. That they equal the lists of HubSpot's official
 * specs is checked by the conformance suite (test/conformance), when those files are handed in.
 */
describe('limits scopes', () => {
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
