import { renderConsentPage } from '../../src/oauth/install-page/views/consent.view';
import {
  describeScopes,
  SCOPE_ENTRIES,
  SCOPE_GROUPS,
  SCOPES,
  scopeDescription,
} from '../../src/platform/scopes/scope-catalog';

/** Issue 39, item 7: the consent page says what each scope allows, from the one scope catalog. */
describe('scope descriptions', () => {
  it('gives every scope of the catalog a group and a description of its own', () => {
    for (const entry of SCOPE_ENTRIES) {
      expect(SCOPE_GROUPS).toContain(entry.group);
      expect(entry.description).toMatch(/^[A-Z][^.]{5,}[^.\s]$/);
    }
    const descriptions = SCOPE_ENTRIES.map((e) => e.description);
    // tickets.sensitive.v2 and the granular ticket scopes say different things; no two scopes alike.
    expect(new Set(descriptions).size).toBe(descriptions.length);
  });

  it('groups in the order of SCOPE_GROUPS, keeping the request order within a group', () => {
    expect(
      describeScopes(['crm.lists.read', 'settings.users.read', 'oauth', 'crm.objects.deals.write', 'forms']),
    ).toEqual([
      { group: 'Basic', scopes: [{ name: 'oauth', description: scopeDescription('oauth') }] },
      {
        group: 'CRM',
        scopes: [
          { name: 'crm.lists.read', description: 'See lists of records' },
          { name: 'crm.objects.deals.write', description: 'See, create, change and delete deals' },
        ],
      },
      { group: 'Marketing', scopes: [{ name: 'forms', description: scopeDescription('forms') }] },
      {
        group: 'Settings',
        scopes: [{ name: 'settings.users.read', description: scopeDescription('settings.users.read') }],
      },
    ]);
    expect(describeScopes(['no.such.scope'])).toEqual([
      { group: 'Other', scopes: [{ name: 'no.such.scope', description: null }] },
    ]);
    expect(scopeDescription('no.such.scope')).toBeNull();
  });

  it('escapes the descriptions on the consent page', () => {
    const page = renderConsentPage({
      appName: 'A',
      email: 'e@x',
      account: { hubId: 9, domain: 'acme.example', tier: 'enterprise' },
      requiredScopes: [...SCOPES],
      optionalScopes: [],
      unavailableScopes: [],
      redirectOrigin: 'https://app.example',
      csrfToken: 't',
      request: 'r',
      chooseAnotherHref: '/oauth/authorize?client_id=c',
    });
    expect(page).toContain('See the account&#39;s users, teams and their permissions <code>settings.users.read</code>');
    expect(page).not.toContain("account's");
    expect(page.match(/<li>/g)).toHaveLength(SCOPES.length);
  });
});
