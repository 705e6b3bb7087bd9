import { createHash } from 'node:crypto';
import { redactUrl } from '../../src/platform/logging/redact-url';

/** Token-shaped values as the service issues them (fixed, so failures replay). */
const b64 = (s: string) => createHash('sha256').update(s).digest('base64url'); // 43 characters
const AT = `k0a1b2c.${b64('payload').slice(0, 30)}.${b64('signature')}`;
const RT = `na1-${b64('refresh')}`;
const KEY = '0b8e6a4c-3d1f-4e9a-8c7b-6f5e4d3c2b1a';

/** No token, nor a telling part of one, is left. */
function expectRedacted(url: string, secret: string, routeUrl?: string): void {
  const logged = redactUrl(url, routeUrl);
  for (const part of [secret, ...secret.split(/[.-]/).filter((p) => p.length >= 8)]) expect(logged).not.toContain(part);
  expect(logged).toContain('[REDACTED]');
}

describe('redactUrl: every spelling of issue 26, item 9', () => {
  it.each([
    ['dot segment', `/oauth/v1/./access-tokens/${AT}`],
    ['dot segment, encoded', `/oauth/v1/%2E/access-tokens/${AT}`],
    ['dot-dot segment', `/oauth/v1/x/../access-tokens/${AT}`],
    ['dot-dot back into the route', `/oauth/v1/access-tokens/../access-tokens/${AT}`],
    ['semicolon after the token', `/oauth/v1/access-tokens/${AT};x`],
    ['semicolon in the prefix', `/oauth/v1/access-tokens;x/${AT}`],
    ['backslashes', `/oauth\\v1\\access-tokens\\${AT}`],
    ['backslash before the token', `/oauth/v1/access-tokens\\${AT}`],
    ['# after the token', `/oauth/v1/access-tokens/${AT}#x`],
    ['? after the token', `/oauth/v1/access-tokens/${AT}?x=1`],
    ['percent-encoded dots in the token', `/oauth/v1/access-tokens/${AT.replace(/\./g, '%2E')}`],
    ['refresh token in its route, with #', `/oauth/v1/refresh-tokens/${RT}#frag`],
  ])('path: %s', (_name, url) => {
    expectRedacted(url, url.includes(RT) ? RT : AT);
  });

  it.each([
    ['refresh_token%00', `/oauth/v1/token?refresh_token%00=${RT}`],
    ['refresh_token[]', `/oauth/v1/token?refresh_token[]=${RT}`],
    ['refresh_token%5B%5D', `/oauth/v1/token?refresh_token%5B%5D=${RT}`],
    ['bearer', `/crm/v3/limits/calculated-properties?bearer=${AT}`],
    ['Authorization', `/crm/v3/limits/calculated-properties?Authorization=Bearer%20${AT}`],
    ['apikey', `/crm/v3/extensions/cards-dev/1?apikey=${KEY}`],
    ['api_key', `/crm/v3/extensions/cards-dev/1?api_key=${KEY}`],
    ['id_token', `/oauth/v1/token?id_token=${AT}`],
    ['token after ;', `/oauth/v1/token?x=1;refresh_token=${RT}`],
    ['a second ?', `/oauth/v1/token?x=1?client_secret=${KEY}`],
  ])('query name: %s', (_name, url) => {
    expectRedacted(url, url.includes(RT) ? RT : url.includes(KEY) ? KEY : AT);
  });

  it.each([
    ['an access token under any name', `/crm/v3/objects?q=${AT}`],
    ['a refresh token in a path that does not route', `/oauth/v2/refresh-tokens/${RT}`],
    ['a refresh token after #', `/x#${RT}`],
    ['a long random run', `/x/${b64('anything')}`],
  ])('value shape: %s', (_name, url) => {
    expectRedacted(url, url.includes(RT) ? RT : url.includes(AT) ? AT : b64('anything'));
  });

  it('leaves ordinary URLs alone (names, ids, install URLs with their public client_id)', () => {
    for (const url of [
      '/crm/v3/properties/contacts?limit=5&archived=false',
      '/crm/v3/properties/contacts/customer_lifetime_value_in_dollars_total',
      '/crm/v3/extensions/cards-dev/12/9223372036854775807',
      `/oauth/authorize?client_id=${KEY}&redirect_uri=https%3A%2F%2Fapp.example.com%2Foauth%2Fcallback&scope=oauth%20crm.objects.contacts.read&code_challenge=x`,
      '/crm/v3/extensions/cards-dev/1?limit=5&bad=%E0%A4%A',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('short cuts (issue 29): a static route requested as routed is its own text; a token route with nothing after it', () => {
    expect(redactUrl('/crm/v3/limits/custom-object-types', '/crm/v3/limits/custom-object-types')).toBe(
      '/crm/v3/limits/custom-object-types',
    );
    expect(redactUrl(`/oauth/v1/access-tokens/${AT}`, '/oauth/v1/access-tokens/:token')).toBe(
      '/oauth/v1/access-tokens/[REDACTED]',
    );
    // Not the short cut: a parameter, a wildcard, a query or a different spelling still go through every net.
    expectRedacted(`/crm/v3/limits/${AT}`, AT, '/crm/v3/limits/:objectType');
    expectRedacted(`/x/${RT}`, RT, '*');
    expectRedacted(`/oauth/v1/access-tokens/${AT}?t=${RT}`, RT, '/oauth/v1/access-tokens/:token');
    expectRedacted(`/crm/v3/limits/custom-object-types?apikey=${KEY}`, KEY, '/crm/v3/limits/custom-object-types');
  });
});
