import { encodedScopeFields } from '../../src/oauth/application/access-token-verifier';
import { encodeScopes, SCOPES } from '../../src/platform/scopes/scope-catalog';

/** The encoded scope fields of the metadata answer, remembered per scope list. */
describe('encodedScopeFields', () => {
  it('encodes a list once and answers the same encoding for it again', () => {
    const first = encodedScopeFields(['oauth', 'crm.objects.contacts.read']);
    expect(first.scopes).toBe(encodeScopes(['oauth', 'crm.objects.contacts.read']).toString('base64'));
    expect(encodedScopeFields(['oauth', 'crm.objects.contacts.read'])).toBe(first);
  });

  it('keeps the order of the list in the group pks (a different order is its own entry)', () => {
    const ab = encodedScopeFields(['oauth', 'crm.objects.contacts.read']);
    const ba = encodedScopeFields(['crm.objects.contacts.read', 'oauth']);
    expect(ba).not.toBe(ab);
    expect(ba.scopes).toBe(ab.scopes);
    expect(Buffer.from(ba.groupPks, 'base64')).toEqual(Buffer.from(ab.groupPks, 'base64').reverse());
  });

  it('stays correct past its bound (more lists than it keeps)', () => {
    const first = encodedScopeFields(['oauth']);
    const pairs = SCOPES.flatMap((a) => SCOPES.map((b) => [a, b]));
    expect(pairs.length).toBeGreaterThan(1100);
    for (const pair of pairs.slice(0, 1100)) {
      expect(encodedScopeFields(pair).scopes).toBe(encodeScopes(pair).toString('base64'));
    }
    expect(encodedScopeFields(['oauth'])).toEqual(first);
  });

  it('refuses an unknown scope and remembers nothing for it', () => {
    expect(() => encodedScopeFields(['no.such.scope'])).toThrow(/unknown scope/);
    expect(() => encodedScopeFields(['no.such.scope'])).toThrow(/unknown scope/);
  });
});
