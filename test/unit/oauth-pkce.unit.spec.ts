import { checkPkce } from '../../src/oauth/install-page/authorization-request';
import { checkPkceRequest, s256, verifierMatches } from '../../src/oauth/domain/pkce';

/** The one PKCE rule, shared by the install page and the programmatic install. */
describe('checkPkceRequest', () => {
  const verifier = 'a'.repeat(43) + '-._~';
  const challenge = s256(verifier);

  it('no challenge and no method: no PKCE', () => {
    expect(checkPkceRequest(undefined, undefined)).toEqual({ ok: true, challenge: null });
    expect(checkPkceRequest('', '')).toEqual({ ok: true, challenge: null });
  });

  it('an explicit S256 with a well-formed challenge binds it', () => {
    expect(checkPkceRequest(challenge, 'S256')).toEqual({ ok: true, challenge });
    expect(verifierMatches(verifier, challenge)).toBe(true);
  });

  it('a challenge without a method is plain (RFC 7636 §4.3): refused, naming the method', () => {
    expect(checkPkceRequest(challenge, undefined)).toEqual({
      ok: false,
      problem: { param: 'method', code: 'REQUIRED', message: expect.stringContaining('plain') },
    });
    expect(checkPkceRequest(challenge, '')).toMatchObject({ ok: false, problem: { param: 'method' } });
  });

  it.each([['plain'], ['s256'], ['S512']])('method %s is refused', (method) => {
    expect(checkPkceRequest(challenge, method)).toMatchObject({
      ok: false,
      problem: { param: 'method', code: 'INVALID', message: expect.stringContaining('S256') },
    });
  });

  it('a method without a challenge is refused, naming the challenge', () => {
    expect(checkPkceRequest(undefined, 'S256')).toMatchObject({
      ok: false,
      problem: { param: 'challenge', code: 'REQUIRED', message: expect.stringContaining('without') },
    });
  });

  it.each([
    ['42 characters', challenge.slice(0, 42), /43 to 128/],
    ['129 characters', 'a'.repeat(129), /43 to 128/],
    ['a reserved character', `${challenge.slice(0, 42)}+`, /43 to 128/],
    ['padding', `${challenge}=`, /43 to 128/],
    ['unreserved but not base64url (~)', `${challenge.slice(0, 42)}~`, /SHA-256/],
    ['unreserved but longer than an S256 digest', `${challenge}a`, /SHA-256/],
  ])('a challenge with %s is refused', (_, bad, message) => {
    const result = checkPkceRequest(bad, 'S256');
    expect(result).toMatchObject({ ok: false, problem: { param: 'challenge', code: 'INVALID' } });
    expect(!result.ok && result.problem.message).toMatch(message);
  });

  it('the install page answers with the same rule', () => {
    expect(checkPkce({ codeChallenge: challenge, codeChallengeMethod: 'S256' })).toBeNull();
    expect(checkPkce({ codeChallenge: challenge })).toBe(
      (checkPkceRequest(challenge, undefined) as { ok: false; problem: { message: string } }).problem.message,
    );
  });
});
