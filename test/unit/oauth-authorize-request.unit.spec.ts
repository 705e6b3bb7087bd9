import {
  checkRequestedScopes,
  grantScopesForTier,
  isRegisteredRedirectUri,
  parseScopeList,
} from '../../src/oauth/domain/authorize-request';
import { redirectWithParams } from '../../src/oauth/domain/redirect-url';
import { checkPkceRequest, s256, verifierMatches } from '../../src/oauth/domain/pkce';
import { parseBasicAuthorization } from '../../src/oauth/application/oauth-form';
import { isNonFormTokenRequest } from '../../src/oauth/http/token.controller';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { redactUrl } from '../../src/platform/logging/logger';

const app = {
  name: 'Demo',
  redirectUrls: ['https://app.example.com/oauth/callback', 'http://localhost:3000/cb'],
  requiredScopes: ['oauth', 'crm.objects.contacts.read'],
  optionalScopes: ['crm.objects.custom.read', 'tickets'],
};

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return (e as HubSpotError).extras.errors?.[0]?.code;
  }
  return undefined;
};

describe('redirect URI matching is exact', () => {
  it.each([
    'https://app.example.com/oauth/callback/',
    'https://APP.example.com/oauth/callback',
    'https://app.example.com/OAUTH/callback',
    'https://app.example.com:443/oauth/callback',
    'https://app.example.com:8443/oauth/callback',
    'https://app.example.com@evil.example/oauth/callback',
    'https://evil.example@app.example.com/oauth/callback',
    'https://app.example.com/oauth/callback?x=1',
    'https://app.example.com/oauth/callback#frag',
    'https://app.example.com/oauth/%63allback',
    'https%3A%2F%2Fapp.example.com%2Foauth%2Fcallback',
    'http://app.example.com/oauth/callback',
    'https://app.example.com/oauth/callback ',
    'http://127.0.0.1:3000/cb',
    '',
  ])('refuses %j', (uri) => expect(isRegisteredRedirectUri(app, uri)).toBe(false));

  it('accepts each registered URI byte for byte', () => {
    for (const uri of app.redirectUrls) expect(isRegisteredRedirectUri(app, uri)).toBe(true);
  });
});

describe('requested scopes', () => {
  it('splits on spaces (and commas), dropping duplicates', () =>
    expect(parseScopeList(' oauth  tickets,oauth ')).toEqual(['oauth', 'tickets']));

  it('returns required and optional scopes in catalog order', () =>
    expect(checkRequestedScopes(app, 'crm.objects.contacts.read oauth', 'tickets crm.objects.custom.read')).toEqual({
      requiredScopes: ['oauth', 'crm.objects.contacts.read'],
      optionalScopes: ['tickets', 'crm.objects.custom.read'],
    }));

  it('grants the oauth scope without the URL naming it, as HubSpot does (its quickstart asks for one scope)', () => {
    expect(checkRequestedScopes(app, 'crm.objects.contacts.read', undefined)).toEqual({
      requiredScopes: ['oauth', 'crm.objects.contacts.read'],
      optionalScopes: [],
    });
    // Only oauth is implied: another required scope must still be in the URL.
    expect(codeOf(() => checkRequestedScopes(app, '', undefined))).toBe('MISSING_REQUIRED_SCOPE');
  });

  it('refuses a missing required scope, an unknown scope, a scope the app is not configured for', () => {
    expect(codeOf(() => checkRequestedScopes(app, 'oauth', undefined))).toBe('MISSING_REQUIRED_SCOPE');
    expect(codeOf(() => checkRequestedScopes(app, 'oauth crm.objects.contacts.read made.up', undefined))).toBe(
      'UNKNOWN_SCOPE',
    );
    expect(codeOf(() => checkRequestedScopes(app, 'oauth crm.objects.contacts.read', 'nope'))).toBe('UNKNOWN_SCOPE');
    expect(codeOf(() => checkRequestedScopes(app, 'oauth crm.objects.contacts.read files', undefined))).toBe(
      'SCOPE_NOT_CONFIGURED',
    );
  });

  it('drops optional scopes the tier cannot use, and refuses required ones', () => {
    expect(grantScopesForTier('free', ['oauth'], ['crm.objects.custom.read', 'tickets'])).toEqual(['oauth', 'tickets']);
    expect(grantScopesForTier('enterprise', ['oauth'], ['crm.objects.custom.read', 'tickets'])).toEqual([
      'oauth',
      'tickets',
      'crm.objects.custom.read',
    ]);
    expect(() => grantScopesForTier('starter', ['crm.objects.custom.read'], [])).toThrow(HubSpotError);
  });
});

describe('redirect with code and state', () => {
  it('keeps state byte for byte and the registered URI intact', () => {
    const state = 'a b&c=d/é%20+?#';
    const url = redirectWithParams('https://app.example.com/cb?tenant=1', { code: 'na1-xyz', state });
    expect(url.startsWith('https://app.example.com/cb?tenant=1&code=na1-xyz&state=')).toBe(true);
    expect(new URL(url).searchParams.get('state')).toBe(state);
    expect(redirectWithParams('https://app.example.com/cb', { code: 'c', state: undefined })).toBe(
      'https://app.example.com/cb?code=c',
    );
  });
});

describe('PKCE S256', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  it('matches RFC 7636 appendix B', () => {
    expect(s256(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(verifierMatches(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
    expect(verifierMatches('short', s256('short'))).toBe(false);
    expect(checkPkceRequest('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'S256').ok).toBe(true);
    expect(checkPkceRequest('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c=', 'S256').ok).toBe(false);
  });
});

describe('client credentials', () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  it('parses HTTP Basic with form-urlencoded id and secret (RFC 6749 §2.3.1)', () => {
    expect(parseBasicAuthorization(basic('id%3A1:se%2Bcret+x'))).toEqual({
      clientId: 'id:1',
      clientSecret: 'se+cret x',
    });
    expect(parseBasicAuthorization(basic('no-colon'))).toBe('malformed');
    expect(parseBasicAuthorization('Basic !!!')).toBe('malformed');
    expect(parseBasicAuthorization('Bearer abc')).toBeUndefined();
    expect(parseBasicAuthorization(undefined)).toBeUndefined();
  });
});

describe('token endpoint content type', () => {
  const req = (type: string | undefined, url = '/oauth/v1/token', method = 'POST') => ({
    method,
    url,
    headers: type === undefined ? {} : { 'content-type': type },
  });
  it('lets forms through and stops anything else before parsing', () => {
    expect(isNonFormTokenRequest(req('application/x-www-form-urlencoded'))).toBe(false);
    expect(isNonFormTokenRequest(req('application/x-www-form-urlencoded; charset=utf-8', '/oauth/v1/token?x=1'))).toBe(
      false,
    );
    expect(isNonFormTokenRequest(req(undefined))).toBe(false);
    expect(isNonFormTokenRequest(req('application/json'))).toBe(true);
    expect(isNonFormTokenRequest(req('multipart/form-data; boundary=x'))).toBe(true);
    expect(isNonFormTokenRequest(req('application/json', '/oauth/v1/tokens'))).toBe(false);
    expect(isNonFormTokenRequest(req('application/json', '/oauth/v1/token', 'GET'))).toBe(false);
    // The routed path decides (issue 14, finding 7): encoded and absolute-form targets route here too.
    const routed = (url: string) => ({ ...req('application/json', url), routeOptions: { url: '/oauth/v1/token' } });
    expect(isNonFormTokenRequest(routed('/oauth/v1/%74oken'))).toBe(true);
    expect(isNonFormTokenRequest(routed('http://host/oauth/v1/token'))).toBe(true);
  });
});

describe('token material in URLs is redacted in logs', () => {
  it('redacts the token path segment of the metadata endpoints and secrets in the token query', () => {
    expect(redactUrl('/oauth/v1/access-tokens/k1.abc.def')).toBe('/oauth/v1/access-tokens/[REDACTED]');
    expect(redactUrl('/oauth/v1/refresh-tokens/na1-secret?x=1')).toBe('/oauth/v1/refresh-tokens/[REDACTED]?x=1');
    expect(redactUrl('/oauth/v1/token?refresh_token=na1-s&client_secret=c')).toBe(
      '/oauth/v1/token?refresh_token=[REDACTED]&client_secret=[REDACTED]',
    );
  });

  it('redacts by the routed path, and by the decoded path when nothing routed (issue 14, finding 7)', () => {
    const rt = 'na1-abcdef-0123';
    // Routed: Fastify names the route, whatever the raw spelling.
    for (const url of [
      `/oauth/v1/refresh%2Dtokens/${rt}`,
      `/%6Fauth/v1/refresh-tokens/${rt}`,
      `http://h/oauth/v1/refresh-tokens/${rt}`,
    ]) {
      expect(redactUrl(url, '/oauth/v1/refresh-tokens/:token')).toBe('/oauth/v1/refresh-tokens/[REDACTED]');
    }
    // Not routed (no route name): the decoded path without its origin, everything after the prefix.
    for (const url of [
      `/oauth/v1/refresh%2Dtokens/${rt}`,
      `/%6F%61uth/v1/access-tokens/${rt}`,
      `http://h:1/oauth/v1/refresh-tokens/${rt}/more`,
      `//oauth//v1/refresh-tokens/${rt.slice(0, 5)}%2F${rt.slice(5)}`,
      `/OAUTH/v1/Refresh-Tokens/${rt}`,
    ]) {
      const redacted = redactUrl(url);
      expect(redacted).not.toContain(rt.slice(5));
      expect(redacted).toContain('[REDACTED]');
    }
    expect(redactUrl(`http://h/oauth/v1/token?client%5Fsecret=s3cr3t&refresh%5ftoken=${rt}`)).toBe(
      'http://h/oauth/v1/token?client%5Fsecret=[REDACTED]&refresh%5ftoken=[REDACTED]',
    );
    expect(redactUrl('/crm/v3/properties/contacts?limit=5', '/crm/v3/properties/:objectType')).toBe(
      '/crm/v3/properties/contacts?limit=5',
    );
  });

  it("redacts a developer API key (hapikey) however the parameter's name is spelled", () => {
    const key = '0b8e6a4c-3d1f-4e9a-8c7b-6f5e4d3c2b1a';
    for (const url of [
      `/crm/v3/extensions/cards-dev/1?hapikey=${key}`,
      `/crm/v3/extensions/cards-dev/1?x=1&HAPIKEY=${key}#f`,
      `/crm/v3/extensions/cards-dev/1?h%61pikey=${key}`,
      `/crm/v3/extensions/cards-dev/1?%68%61%70%69%6B%65%79=${key}&y=2`,
    ]) {
      const redacted = redactUrl(url);
      expect(redacted).not.toContain(key);
      expect(redacted).toContain('=[REDACTED]');
    }
    expect(redactUrl('/crm/v3/extensions/cards-dev/1?limit=5&bad=%E0%A4%A')).toBe(
      '/crm/v3/extensions/cards-dev/1?limit=5&bad=%E0%A4%A',
    );
  });
});
