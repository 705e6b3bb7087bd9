import fc from 'fast-check';
import {
  authorizationRequestFromQuery,
  authorizePath,
  checkPkce,
  decodeAuthorizationRequest,
  encodeAuthorizationRequest,
  MAX_STATE_LENGTH,
} from '../../src/oauth/install-page/authorization-request';
import { redirectWithParams } from '../../src/oauth/domain/redirect-url';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('install page: the redirect carries state byte for byte', () => {
  // The page builds its redirects with the OAuth module's redirectWithParams; this is the page's contract.
  it('round-trips any well-formed state through URLSearchParams (what every client uses)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.constantFrom('https://a.example/cb', 'http://127.0.0.1:3001/cb?x=1'),
        (state, base) => {
          fc.pre(!LONE_SURROGATE.test(state)); // not representable in UTF-8, refused at the page's door
          const url = new URL(redirectWithParams(base, { code: 'c0de', state }));
          expect(url.searchParams.get('state')).toBe(state);
          expect(url.searchParams.get('code')).toBe('c0de');
        },
      ),
    );
  });

  it('round-trips the classic hard cases and keeps the registered query first, untouched', () => {
    for (const state of [
      'a b',
      'a+b',
      'ünï©ødé 🚀',
      'x&y=z',
      'a&code=evil',
      '%41%',
      '"<>\'',
      ' leading and trailing ',
      '\t\n\r',
      '',
    ]) {
      const location = redirectWithParams('https://a.example/cb?tenant=a%20b', { code: 'c', state });
      expect(location.startsWith('https://a.example/cb?tenant=a%20b&code=c&state=')).toBe(true);
      const url = new URL(location);
      expect(url.searchParams.get('state')).toBe(state);
      expect(url.searchParams.getAll('code')).toEqual(['c']);
    }
    expect(redirectWithParams('https://a.example/cb', { code: 'c', state: undefined })).toBe(
      'https://a.example/cb?code=c',
    );
  });
});

describe('install page: the authorization request', () => {
  it("reads HubSpot's names and the description's aliases (scope wins over scopes)", () => {
    expect(
      authorizationRequestFromQuery({
        client_id: 'c',
        redirect_uri: 'r',
        scopes: 'a b',
        optional_scopes: 'o',
        state: 's',
      }),
    ).toEqual({ ok: true, request: { clientId: 'c', redirectUri: 'r', scope: 'a b', optionalScope: 'o', state: 's' } });
    expect(
      authorizationRequestFromQuery({ scope: 'x', scopes: 'y', optional_scope: 'p', optional_scopes: 'q' }),
    ).toEqual({
      ok: true,
      request: { scope: 'x', optionalScope: 'p' },
    });
  });

  it('refuses repeated parameters, NUL, lone surrogates and an over-long state', () => {
    expect(authorizationRequestFromQuery({ client_id: ['a', 'b'] })).toEqual({
      ok: false,
      message: expect.stringContaining('client_id'),
    });
    expect(authorizationRequestFromQuery({ scopes: ['a', 'b'] })).toEqual({
      ok: false,
      message: expect.stringContaining('scopes'),
    });
    expect(authorizationRequestFromQuery({ state: 'a\u0000b' }).ok).toBe(false);
    expect(authorizationRequestFromQuery({ state: 'a\uD800b' }).ok).toBe(false);
    expect(authorizationRequestFromQuery({ state: 'x'.repeat(MAX_STATE_LENGTH) }).ok).toBe(true);
    expect(authorizationRequestFromQuery({ state: 'x'.repeat(MAX_STATE_LENGTH + 1) }).ok).toBe(false);
  });

  it('survives the hidden field unchanged, whatever the characters', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            clientId: fc.uuid(),
            redirectUri: fc.webUrl(),
            scope: fc.string(),
            state: fc.string({ unit: 'grapheme', maxLength: 100 }),
          },
          { requiredKeys: ['clientId'] },
        ),
        (request) => {
          fc.pre(!request.state?.includes('\u0000') && !request.scope?.includes('\u0000'));
          const blob = encodeAuthorizationRequest(request);
          expect(blob).toMatch(/^[A-Za-z0-9_-]+$/);
          const back = decodeAuthorizationRequest(blob);
          expect(back).toEqual({ ok: true, request });
        },
      ),
    );
  });

  it('refuses a damaged or forged hidden field', () => {
    expect(decodeAuthorizationRequest(undefined).ok).toBe(false);
    expect(decodeAuthorizationRequest('').ok).toBe(false);
    expect(decodeAuthorizationRequest('not base64url!').ok).toBe(false);
    expect(decodeAuthorizationRequest(Buffer.from('[1,2]').toString('base64url')).ok).toBe(false);
    expect(decodeAuthorizationRequest(Buffer.from('{"state":7}').toString('base64url')).ok).toBe(false);
    expect(decodeAuthorizationRequest(Buffer.from('{nope').toString('base64url')).ok).toBe(false);
    // Unknown fields are ignored rather than carried along.
    expect(decodeAuthorizationRequest(Buffer.from('{"clientId":"c","hubId":"1"}').toString('base64url'))).toEqual({
      ok: true,
      request: { clientId: 'c' },
    });
  });

  it('writes authorize paths with HubSpot parameter names, optionally for one portal', () => {
    const request = {
      clientId: 'c',
      redirectUri: 'https://a.example/cb?x=1',
      scope: 'oauth crm.import',
      state: 'a b&c',
    };
    expect(authorizePath(request)).toBe(
      '/oauth/authorize?client_id=c&redirect_uri=https%3A%2F%2Fa.example%2Fcb%3Fx%3D1&scope=oauth%20crm.import&state=a%20b%26c',
    );
    expect(authorizePath(request, 42)).toMatch(/^\/oauth\/42\/authorize\?client_id=c&/);
    expect(authorizePath({})).toBe('/oauth/authorize');
    const back = new URL(authorizePath(request), 'http://x');
    expect(authorizationRequestFromQuery(Object.fromEntries(back.searchParams))).toEqual({ ok: true, request });
  });

  it('accepts only S256 PKCE with a well-formed challenge', () => {
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    expect(checkPkce({})).toBeNull();
    expect(checkPkce({ codeChallenge: challenge, codeChallengeMethod: 'S256' })).toBeNull();
    expect(checkPkce({ codeChallenge: challenge })).toMatch(/S256/);
    expect(checkPkce({ codeChallenge: challenge, codeChallengeMethod: 'plain' })).toMatch(/S256/);
    expect(checkPkce({ codeChallenge: 'short', codeChallengeMethod: 'S256' })).toMatch(/43/);
    expect(checkPkce({ codeChallengeMethod: 'S256' })).toMatch(/without/);
  });
});
