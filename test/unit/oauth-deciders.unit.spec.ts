import { fold } from '../../src/platform/commands/decider';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import {
  authorizationCodeDecider,
  AuthorizationCodeReplayed,
  AuthorizationCodeState,
  CodeGrant,
} from '../../src/oauth/domain/authorization-code.decider';
import { installDecider, installIsActive } from '../../src/oauth/domain/install.decider';
import {
  AuthorizationCodeEvent,
  InstallEvent,
  OAuthEventType,
  RefreshTokenEvent,
} from '../../src/oauth/domain/oauth-events';
import { s256 } from '../../src/oauth/domain/pkce';
import { RefreshGrant, refreshTokenDecider, usableRefreshGrant } from '../../src/oauth/domain/refresh-token.decider';

/** given events → when command → then events or error (emmett style). */
const given = <S, C, E>(
  d: { initialState: () => S; evolve: (s: S, e: E) => S; decide: (c: C, s: S) => E[] },
  events: E[],
) => ({
  when: (command: C) => {
    const run = () => d.decide(command, fold(d.evolve, d.initialState(), events));
    return {
      then: (expected: E[]) => expect(run()).toEqual(expected),
      thenThrows: (check: (e: HubSpotError) => void) => {
        let caught: unknown;
        try {
          run();
        } catch (e) {
          caught = e;
        }
        expect(caught).toBeInstanceOf(HubSpotError);
        check(caught as HubSpotError);
      },
    };
  },
});

const T0 = Date.UTC(2026, 0, 1);

describe('install decider', () => {
  const installed: InstallEvent = {
    type: OAuthEventType.AppInstalled,
    data: {
      appId: 7,
      hubId: 9,
      installId: 'aaaaaaaaaaaaaaaa',
      installingUserId: 3,
      scopes: ['oauth'],
      installedAt: T0,
    },
  };
  const approval = {
    kind: 'RecordApproval' as const,
    appId: 7,
    hubId: 9,
    userId: 4,
    newInstallId: 'bbbbbbbbbbbbbbbb',
    now: T0 + 1,
  };

  it('installs on the first approval', () =>
    given(installDecider, [])
      .when({ ...approval, scopes: ['oauth'] })
      .then([
        {
          type: OAuthEventType.AppInstalled,
          data: {
            appId: 7,
            hubId: 9,
            installId: 'bbbbbbbbbbbbbbbb',
            installingUserId: 4,
            scopes: ['oauth'],
            installedAt: T0 + 1,
          },
        },
      ]));

  it('does nothing when an installed app is approved again with the same scopes', () =>
    given(installDecider, [installed])
      .when({ ...approval, scopes: ['oauth'] })
      .then([]));

  it('records changed scopes on a later approval, keeping the install id', () =>
    given(installDecider, [installed])
      .when({ ...approval, scopes: ['oauth', 'tickets'] })
      .then([
        {
          type: OAuthEventType.AppInstallScopesChanged,
          data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', scopes: ['oauth', 'tickets'], changedAt: T0 + 1 },
        },
      ]));

  it('uninstalls an installed app', () =>
    given(installDecider, [installed])
      .when({ kind: 'Uninstall', appId: 7, hubId: 9, now: T0 + 5 })
      .then([
        {
          type: OAuthEventType.AppUninstalled,
          data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 + 5 },
        },
      ]));

  it('refuses to uninstall what is not installed (never, or already uninstalled)', () => {
    given(installDecider, [])
      .when({ kind: 'Uninstall', appId: 7, hubId: 9, now: T0 })
      .thenThrows((e) => expect(e.httpStatus).toBe(404));
    const uninstalled: InstallEvent = {
      type: OAuthEventType.AppUninstalled,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 },
    };
    given(installDecider, [installed, uninstalled])
      .when({ kind: 'Uninstall', appId: 7, hubId: 9, now: T0 })
      .thenThrows((e) => expect(e.category).toBe('OBJECT_NOT_FOUND'));
  });

  it('a re-install after an uninstall gets a new install id; the old one is no longer active', () => {
    const uninstalled: InstallEvent = {
      type: OAuthEventType.AppUninstalled,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 },
    };
    const events = installDecider.decide(
      { ...approval, scopes: ['oauth'] },
      fold(installDecider.evolve, installDecider.initialState(), [installed, uninstalled]),
    );
    expect(events[0]!.type).toBe(OAuthEventType.AppInstalled);
    const state = fold(installDecider.evolve, installDecider.initialState(), [installed, uninstalled, ...events]);
    expect(installIsActive(state, 'aaaaaaaaaaaaaaaa')).toBe(false);
    expect(installIsActive(state, 'bbbbbbbbbbbbbbbb')).toBe(true);
  });
});

describe('authorization code decider', () => {
  const verifier = 'v'.repeat(43) + 'erifier-with-enough-entropy_0123456789';
  const grant: CodeGrant = {
    codeHash: 'c'.repeat(64),
    appId: 7,
    clientId: 'client-a',
    hubId: 9,
    userId: 3,
    installId: 'aaaaaaaaaaaaaaaa',
    installingUserId: 3,
    hublet: 'na1',
    redirectUri: 'https://app.example.com/cb',
    scopes: ['oauth'],
    codeChallenge: null,
    issuedAt: T0,
    expiresAt: T0 + 300_000,
  };
  const issued = (g: Partial<CodeGrant> = {}): AuthorizationCodeEvent => ({
    type: OAuthEventType.AuthorizationCodeIssued,
    data: { ...grant, ...g },
  });
  const redeemed: AuthorizationCodeEvent = {
    type: OAuthEventType.AuthorizationCodeRedeemed,
    data: { codeHash: grant.codeHash, refreshTokenHash: 'r'.repeat(64), redeemedAt: T0 + 1 },
  };
  const redeem = {
    kind: 'RedeemAuthorizationCode' as const,
    clientId: 'client-a',
    redirectUri: 'https://app.example.com/cb',
    codeVerifier: undefined as string | undefined,
    refreshTokenHash: 'n'.repeat(64),
    now: T0 + 1000,
  };
  const status = (s: string, error: string) => (e: HubSpotError) => {
    expect(e.extras.status).toBe(s);
    expect(e.extras.fields?.error).toBe(error);
  };

  it('issues a code once', () => {
    given(authorizationCodeDecider, []).when({ kind: 'IssueAuthorizationCode', grant }).then([issued()]);
    given(authorizationCodeDecider, [issued()])
      .when({ kind: 'IssueAuthorizationCode', grant })
      .thenThrows((e) => expect(e.httpStatus).toBe(409));
  });

  it('redeems an issued code, recording the refresh token hash', () =>
    given(authorizationCodeDecider, [issued()])
      .when(redeem)
      .then([
        {
          type: OAuthEventType.AuthorizationCodeRedeemed,
          data: { codeHash: grant.codeHash, refreshTokenHash: 'n'.repeat(64), redeemedAt: T0 + 1000 },
        },
      ]));

  it('refuses an unknown code', () =>
    given(authorizationCodeDecider, []).when(redeem).thenThrows(status('BAD_AUTH_CODE', 'invalid_grant')));

  it('refuses a code of another client as unknown, even after it was redeemed (no replay effect)', () => {
    given(authorizationCodeDecider, [issued()])
      .when({ ...redeem, clientId: 'client-b' })
      .thenThrows(status('BAD_AUTH_CODE', 'invalid_grant'));
    given(authorizationCodeDecider, [issued(), redeemed])
      .when({ ...redeem, clientId: 'client-b' })
      .thenThrows((e) => expect(e).not.toBeInstanceOf(AuthorizationCodeReplayed));
  });

  it('a replayed code is refused and names the refresh token to delete', () =>
    given(authorizationCodeDecider, [issued(), redeemed])
      .when(redeem)
      .thenThrows((e) => {
        expect(e).toBeInstanceOf(AuthorizationCodeReplayed);
        expect((e as AuthorizationCodeReplayed).refreshTokenHash).toBe('r'.repeat(64));
        status('BAD_AUTH_CODE', 'invalid_grant')(e);
      }));

  it('refuses an expired code (at the expiry instant too)', () => {
    given(authorizationCodeDecider, [issued()])
      .when({ ...redeem, now: T0 + 300_000 })
      .thenThrows(status('EXPIRED_AUTH_CODE', 'invalid_grant'));
    given(authorizationCodeDecider, [issued()])
      .when({ ...redeem, now: T0 + 299_999 })
      .then([
        {
          type: OAuthEventType.AuthorizationCodeRedeemed,
          data: { codeHash: grant.codeHash, refreshTokenHash: 'n'.repeat(64), redeemedAt: T0 + 299_999 },
        },
      ]);
  });

  it('refuses a redirect URI that differs in any byte', () => {
    for (const uri of [
      'https://app.example.com/cb/',
      'https://APP.example.com/cb',
      'https://app.example.com:443/cb',
      'https://app.example.com/c%62',
    ]) {
      given(authorizationCodeDecider, [issued()])
        .when({ ...redeem, redirectUri: uri })
        .thenThrows(status('MISMATCH_REDIRECT_URI_AUTH_CODE', 'invalid_grant'));
    }
  });

  it('PKCE: needs the matching verifier when a challenge was given', () => {
    const withChallenge = issued({ codeChallenge: s256(verifier) });
    given(authorizationCodeDecider, [withChallenge])
      .when(redeem)
      .thenThrows(status('BAD_CODE_VERIFIER', 'invalid_grant'));
    given(authorizationCodeDecider, [withChallenge])
      .when({ ...redeem, codeVerifier: verifier + 'x' })
      .thenThrows(status('BAD_CODE_VERIFIER', 'invalid_grant'));
    expect(
      authorizationCodeDecider.decide(
        { ...redeem, codeVerifier: verifier },
        fold(authorizationCodeDecider.evolve, authorizationCodeDecider.initialState(), [withChallenge]),
      ),
    ).toHaveLength(1);
  });

  it('PKCE: refuses a verifier for a code issued without a challenge (downgrade)', () =>
    given(authorizationCodeDecider, [issued()])
      .when({ ...redeem, codeVerifier: verifier })
      .thenThrows(status('BAD_CODE_VERIFIER', 'invalid_grant')));

  it('evolves to redeemed', () => {
    const s: AuthorizationCodeState = fold(authorizationCodeDecider.evolve, authorizationCodeDecider.initialState(), [
      issued(),
      redeemed,
    ]);
    expect(s.status).toBe('redeemed');
  });
});

describe('refresh token decider', () => {
  const grant: RefreshGrant = {
    refreshTokenHash: 'r'.repeat(64),
    codeHash: 'c'.repeat(64),
    appId: 7,
    clientId: 'client-a',
    hubId: 9,
    userId: 3,
    installId: 'aaaaaaaaaaaaaaaa',
    installingUserId: 3,
    hublet: 'na1',
    scopes: ['oauth'],
    issuedAt: T0,
  };
  const issued: RefreshTokenEvent = { type: OAuthEventType.RefreshTokenIssued, data: grant };
  const deleted: RefreshTokenEvent = {
    type: OAuthEventType.RefreshTokenDeleted,
    data: {
      refreshTokenHash: grant.refreshTokenHash,
      appId: 7,
      hubId: 9,
      reason: 'deleted_by_client',
      deletedAt: T0 + 1,
    },
  };
  const installed = fold(installDecider.evolve, installDecider.initialState(), [
    {
      type: OAuthEventType.AppInstalled,
      data: {
        appId: 7,
        hubId: 9,
        installId: 'aaaaaaaaaaaaaaaa',
        installingUserId: 3,
        scopes: ['oauth'],
        installedAt: T0,
      },
    },
  ]);
  const stateOf = (events: RefreshTokenEvent[]) =>
    fold(refreshTokenDecider.evolve, refreshTokenDecider.initialState(), events);

  it('issues once', () => {
    given(refreshTokenDecider, []).when({ kind: 'IssueRefreshToken', grant }).then([issued]);
    given(refreshTokenDecider, [issued])
      .when({ kind: 'IssueRefreshToken', grant })
      .thenThrows((e) => expect(e.httpStatus).toBe(409));
  });

  it('deletes an active token; a second delete changes nothing; an unknown token is 404', () => {
    given(refreshTokenDecider, [issued])
      .when({ kind: 'DeleteRefreshToken', reason: 'deleted_by_client', now: T0 + 1 })
      .then([deleted]);
    given(refreshTokenDecider, [issued, deleted])
      .when({ kind: 'DeleteRefreshToken', reason: 'deleted_by_client', now: T0 + 2 })
      .then([]);
    given(refreshTokenDecider, [])
      .when({ kind: 'DeleteRefreshToken', reason: 'deleted_by_client', now: T0 })
      .thenThrows((e) => {
        expect(e.httpStatus).toBe(404);
        expect(e.extras.status).toBe('BAD_REFRESH_TOKEN');
      });
  });

  it('the refresh grant needs an active token of this client on the current install', () => {
    expect(usableRefreshGrant(stateOf([issued]), installed, 'client-a')).toEqual(grant);
    const refused = (f: () => unknown) => {
      expect(f).toThrow(HubSpotError);
      try {
        f();
      } catch (e) {
        expect((e as HubSpotError).extras.status).toBe('BAD_REFRESH_TOKEN');
        expect((e as HubSpotError).extras.fields?.error).toBe('invalid_grant');
      }
    };
    refused(() => usableRefreshGrant(stateOf([]), installed, 'client-a'));
    refused(() => usableRefreshGrant(stateOf([issued, deleted]), installed, 'client-a'));
    refused(() => usableRefreshGrant(stateOf([issued]), installed, 'client-b'));
    const uninstalled = installDecider.evolve(installed, {
      type: OAuthEventType.AppUninstalled,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 + 3 },
    });
    refused(() => usableRefreshGrant(stateOf([issued]), uninstalled, 'client-a'));
    const reinstalled = installDecider.evolve(uninstalled, {
      type: OAuthEventType.AppInstalled,
      data: {
        appId: 7,
        hubId: 9,
        installId: 'bbbbbbbbbbbbbbbb',
        installingUserId: 3,
        scopes: ['oauth'],
        installedAt: T0 + 4,
      },
    });
    refused(() => usableRefreshGrant(stateOf([issued]), reinstalled, 'client-a'));
  });
});
