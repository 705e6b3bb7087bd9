import { fold } from '../../src/platform/commands/decider';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { accessTokenDecider } from '../../src/oauth/domain/access-token';
import {
  authorizationCodeDecider,
  AuthorizationCodeReplayed,
  CodeGrant,
} from '../../src/oauth/domain/authorization-code.decider';
import { accessTokenIssueFloor, installDecider, installIsActive } from '../../src/oauth/domain/install.decider';
import {
  AccessTokenIssued,
  AuthorizationCodeEvent,
  InstallEvent,
  OAuthEventType,
  RefreshTokenEvent,
} from '../../src/oauth/domain/oauth-events';
import { s256 } from '../../src/oauth/domain/pkce';
import { RefreshGrant, refreshTokenDecider, usableRefreshGrant } from '../../src/oauth/domain/refresh-token.decider';
import { DeciderSpecification } from '../support/decider-specification';

const T0 = Date.UTC(2026, 0, 1);

describe('install decider', () => {
  const spec = DeciderSpecification.for(installDecider);
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
    type: 'RecordApproval' as const,
    appId: 7,
    hubId: 9,
    userId: 4,
    newInstallId: 'bbbbbbbbbbbbbbbb',
    now: T0 + 1,
  };

  it('installs on the first approval', () => {
    spec
      .given([])
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
      ]);
  });

  it('does nothing when an installed app is approved again with the same scopes', () =>
    spec
      .given([installed])
      .when({ ...approval, scopes: ['oauth'] })
      .thenNothing());

  it('records changed scopes on a later approval, keeping the install id', () => {
    spec
      .given([installed])
      .when({ ...approval, scopes: ['oauth', 'tickets'] })
      .then([
        {
          type: OAuthEventType.AppInstallScopesChanged,
          data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', scopes: ['oauth', 'tickets'], changedAt: T0 + 1 },
        },
      ]);
  });

  it('uninstalls an installed app', () => {
    spec
      .given([installed])
      .when({ type: 'Uninstall', appId: 7, hubId: 9, now: T0 + 5 })
      .then([
        {
          type: OAuthEventType.AppUninstalled,
          data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 + 5 },
        },
      ]);
  });

  it('refuses to uninstall what is not installed (never, or already uninstalled)', () => {
    expect(
      spec.given([]).when({ type: 'Uninstall', appId: 7, hubId: 9, now: T0 }).thenThrows(HubSpotError).httpStatus,
    ).toBe(404);
    const uninstalled: InstallEvent = {
      type: OAuthEventType.AppUninstalled,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 },
    };
    expect(
      spec
        .given([installed, uninstalled])
        .when({ type: 'Uninstall', appId: 7, hubId: 9, now: T0 })
        .thenThrows(HubSpotError).category,
    ).toBe('OBJECT_NOT_FOUND');
  });

  it('a re-install after an uninstall gets a new install id; the old one is no longer active', () => {
    const uninstalled: InstallEvent = {
      type: OAuthEventType.AppUninstalled,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 },
    };
    const reinstall = spec.given([installed, uninstalled]).when({ ...approval, scopes: ['oauth'] });
    expect(reinstall.events()[0]!.type).toBe(OAuthEventType.AppInstalled);
    reinstall.thenState((state) => {
      expect(installIsActive(state, 'aaaaaaaaaaaaaaaa')).toBe(false);
      expect(installIsActive(state, 'bbbbbbbbbbbbbbbb')).toBe(true);
    });
  });
});

describe('authorization code decider', () => {
  const spec = DeciderSpecification.for(authorizationCodeDecider);
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
    type: 'RedeemAuthorizationCode' as const,
    clientId: 'client-a',
    redirectUri: 'https://app.example.com/cb',
    codeVerifier: undefined as string | undefined,
    refreshTokenHash: 'n'.repeat(64),
    now: T0 + 1000,
  };
  /** decide refused with a HubSpotError carrying this token-endpoint status and RFC 6749 error. */
  const refusedWith = (then: { thenThrows: (c: typeof HubSpotError) => HubSpotError }, s: string, error: string) => {
    const e = then.thenThrows(HubSpotError);
    expect(e.extras.status).toBe(s);
    expect(e.extras.fields?.error).toBe(error);
    return e;
  };

  it('issues a code once', () => {
    spec.given([]).when({ type: 'IssueAuthorizationCode', grant }).then([issued()]);
    expect(
      spec.given([issued()]).when({ type: 'IssueAuthorizationCode', grant }).thenThrows(HubSpotError).httpStatus,
    ).toBe(409);
  });

  it('redeems an issued code, recording the refresh token hash', () => {
    spec
      .given([issued()])
      .when(redeem)
      .then([
        {
          type: OAuthEventType.AuthorizationCodeRedeemed,
          data: { codeHash: grant.codeHash, refreshTokenHash: 'n'.repeat(64), redeemedAt: T0 + 1000 },
        },
      ]);
  });

  it('refuses an unknown code', () => {
    refusedWith(spec.given([]).when(redeem), 'BAD_AUTH_CODE', 'invalid_grant');
  });

  it('refuses a code of another client as unknown, even after it was redeemed (no replay effect)', () => {
    refusedWith(spec.given([issued()]).when({ ...redeem, clientId: 'client-b' }), 'BAD_AUTH_CODE', 'invalid_grant');
    expect(
      spec
        .given([issued(), redeemed])
        .when({ ...redeem, clientId: 'client-b' })
        .thenThrows(HubSpotError),
    ).not.toBeInstanceOf(AuthorizationCodeReplayed);
  });

  it('a replayed code is refused and names the refresh token to delete', () => {
    const e = refusedWith(spec.given([issued(), redeemed]).when(redeem), 'BAD_AUTH_CODE', 'invalid_grant');
    expect(e).toBeInstanceOf(AuthorizationCodeReplayed);
    expect((e as AuthorizationCodeReplayed).refreshTokenHash).toBe('r'.repeat(64));
  });

  it('refuses an expired code (at the expiry instant too)', () => {
    refusedWith(spec.given([issued()]).when({ ...redeem, now: T0 + 300_000 }), 'EXPIRED_AUTH_CODE', 'invalid_grant');
    spec
      .given([issued()])
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
      refusedWith(
        spec.given([issued()]).when({ ...redeem, redirectUri: uri }),
        'MISMATCH_REDIRECT_URI_AUTH_CODE',
        'invalid_grant',
      );
    }
  });

  it('PKCE: needs the matching verifier when a challenge was given', () => {
    const withChallenge = issued({ codeChallenge: s256(verifier) });
    refusedWith(spec.given([withChallenge]).when(redeem), 'BAD_CODE_VERIFIER', 'invalid_grant');
    refusedWith(
      spec.given([withChallenge]).when({ ...redeem, codeVerifier: verifier + 'x' }),
      'BAD_CODE_VERIFIER',
      'invalid_grant',
    );
    expect(
      spec
        .given([withChallenge])
        .when({ ...redeem, codeVerifier: verifier })
        .events(),
    ).toHaveLength(1);
  });

  it('PKCE: refuses a verifier for a code issued without a challenge (downgrade)', () => {
    refusedWith(
      spec.given([issued()]).when({ ...redeem, codeVerifier: verifier }),
      'BAD_CODE_VERIFIER',
      'invalid_grant',
    );
  });

  it('evolves to redeemed', () =>
    spec
      .given([issued()])
      .when(redeem)
      .thenState((s) => expect(s.status).toBe('redeemed')));
});

describe('refresh token decider', () => {
  const spec = DeciderSpecification.for(refreshTokenDecider);
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
    spec.given([]).when({ type: 'IssueRefreshToken', grant }).then([issued]);
    expect(spec.given([issued]).when({ type: 'IssueRefreshToken', grant }).thenThrows(HubSpotError).httpStatus).toBe(
      409,
    );
  });

  it('deletes an active token; a second delete changes nothing; an unknown token is 404', () => {
    spec
      .given([issued])
      .when({ type: 'DeleteRefreshToken', reason: 'deleted_by_client', now: T0 + 1 })
      .then([deleted]);
    spec
      .given([issued, deleted])
      .when({ type: 'DeleteRefreshToken', reason: 'deleted_by_client', now: T0 + 2 })
      .thenNothing();
    const unknown = spec
      .given([])
      .when({ type: 'DeleteRefreshToken', reason: 'deleted_by_client', now: T0 })
      .thenThrows(HubSpotError);
    expect(unknown.httpStatus).toBe(404);
    expect(unknown.extras.status).toBe('BAD_REFRESH_TOKEN');
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

describe('access token decider', () => {
  const spec = DeciderSpecification.for(accessTokenDecider);
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
  const issue = {
    type: 'IssueAccessToken' as const,
    grant,
    grantType: 'refresh_token' as const,
    tokenId: '0123456789abcdef',
    issuedAt: T0 + 1000,
    expiresAt: T0 + 1000 + 1_800_000,
  };
  const issued: AccessTokenIssued = {
    type: OAuthEventType.AccessTokenIssued,
    data: {
      tokenId: '0123456789abcdef',
      grantType: 'refresh_token',
      refreshTokenHash: 'r'.repeat(64),
      appId: 7,
      hubId: 9,
      userId: 3,
      installId: 'aaaaaaaaaaaaaaaa',
      issuedAt: T0 + 1000,
      expiresAt: T0 + 1000 + 1_800_000,
    },
  };

  it('records the issue of an access token from its refresh token, without token material', () => {
    spec.given([]).when(issue).then([issued]);
  });

  it('names the grant the token came from', () => {
    spec
      .given([])
      .when({ ...issue, grantType: 'authorization_code' })
      .then([{ ...issued, data: { ...issued.data, grantType: 'authorization_code' } }]);
  });

  it('issues a token id once (its stream is write-once)', () =>
    expect(spec.given([issued]).when(issue).thenThrows(HubSpotError).httpStatus).toBe(409));

  const revoke = { type: 'RevokeAccessToken' as const, now: T0 + 60_000 };

  it('revokes an issued token once, remembering its expiry and install (no token material)', () => {
    const revoked = spec
      .given([issued])
      .when(revoke)
      .then([
        {
          type: OAuthEventType.AccessTokenRevoked,
          data: {
            tokenId: '0123456789abcdef',
            appId: 7,
            hubId: 9,
            installId: 'aaaaaaaaaaaaaaaa',
            expiresAt: T0 + 1000 + 1_800_000,
            revokedAt: T0 + 60_000,
          },
        },
      ]);
    spec
      .given([issued, ...revoked])
      .when(revoke)
      .thenNothing();
  });

  it('revoking an unknown or already expired token changes nothing (RFC 7009)', () => {
    spec.given([]).when(revoke).thenNothing();
    spec
      .given([issued])
      .when({ ...revoke, now: T0 + 1000 + 1_800_000 })
      .thenNothing();
  });

  it('revokes a genuine unexpired token whose issue left the stream (archived) from the token itself, never silently', () => {
    const token = {
      tokenId: '0123456789abcdef',
      appId: 7,
      hubId: 9,
      installId: 'aaaaaaaaaaaaaaaa',
      expiresAt: T0 + 1_801_000,
    };
    spec
      .given([])
      .when({ ...revoke, token })
      .then([{ type: OAuthEventType.AccessTokenRevoked, data: { ...token, revokedAt: T0 + 60_000 } }]);
    // Expired by its own expiry: nothing to remember.
    spec
      .given([])
      .when({ ...revoke, now: token.expiresAt, token })
      .thenNothing();
  });

  it('issues and revokes app tokens (client_credentials): no account, no install', () => {
    const app = {
      type: 'IssueAppAccessToken' as const,
      appId: 7,
      clientId: 'client-a',
      tokenId: 'fedcba9876543210',
      issuedAt: T0,
      expiresAt: T0 + 1_800_000,
    };
    const [appIssued] = spec
      .given([])
      .when(app)
      .then([
        {
          type: OAuthEventType.AppAccessTokenIssued,
          data: {
            tokenId: 'fedcba9876543210',
            appId: 7,
            clientId: 'client-a',
            issuedAt: T0,
            expiresAt: T0 + 1_800_000,
          },
        },
      ]);
    expect(spec.given([appIssued!]).when(app).thenThrows(HubSpotError).httpStatus).toBe(409);
    spec
      .given([appIssued!])
      .when(revoke)
      .then([
        {
          type: OAuthEventType.AccessTokenRevoked,
          data: { tokenId: 'fedcba9876543210', appId: 7, expiresAt: T0 + 1_800_000, revokedAt: T0 + 60_000 },
        },
      ]);
  });
});

describe('install decider: expiring access tokens', () => {
  const spec = DeciderSpecification.for(installDecider);
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
  const expire = { type: 'ExpireInstallAccessTokens' as const, appId: 7, hubId: 9, now: T0 + 5000 };

  it('records the expiry on the install, naming the current install id', () => {
    spec
      .given([installed])
      .when(expire)
      .then([
        {
          type: OAuthEventType.InstallAccessTokensExpired,
          data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', expiredAt: T0 + 5000 },
        },
      ]);
  });

  it('refuses an app that is not installed (never, or uninstalled) with 404', () => {
    expect(spec.given([]).when(expire).thenThrows(HubSpotError).httpStatus).toBe(404);
    const uninstalled: InstallEvent = {
      type: OAuthEventType.AppUninstalled,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 + 1 },
    };
    expect(spec.given([installed, uninstalled]).when(expire).thenThrows(HubSpotError).httpStatus).toBe(404);
  });

  it('leaves the install usable (refresh tokens keep working)', () => {
    const expired: InstallEvent = {
      type: OAuthEventType.InstallAccessTokensExpired,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', expiredAt: T0 + 5000 },
    };
    const state = fold(installDecider.evolve, installDecider.initialState(), [installed, expired]);
    expect(installIsActive(state, 'aaaaaaaaaaaaaaaa')).toBe(true);
  });

  it('keeps the expiry on the install: the next access token starts a second later (the issue-time floor)', () => {
    const at = (expiredAt: number, installId = 'aaaaaaaaaaaaaaaa'): InstallEvent => ({
      type: OAuthEventType.InstallAccessTokensExpired,
      data: { appId: 7, hubId: 9, installId, expiredAt },
    });
    const fold_ = (events: InstallEvent[]) => fold(installDecider.evolve, installDecider.initialState(), events);
    expect(accessTokenIssueFloor(fold_([]))).toBe(0);
    expect(accessTokenIssueFloor(fold_([installed]))).toBe(0);
    expect(accessTokenIssueFloor(fold_([installed, at(T0 + 5400)]))).toBe(T0 + 6000);
    // An earlier expiry never moves the floor back; a re-approval keeps it.
    const scopesChanged: InstallEvent = {
      type: OAuthEventType.AppInstallScopesChanged,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', scopes: ['oauth'], changedAt: T0 + 6000 },
    };
    expect(accessTokenIssueFloor(fold_([installed, at(T0 + 5400), at(T0 - 5000), scopesChanged]))).toBe(T0 + 6000);
    // Another install's expiry (an old install id) is not this install's; a re-install starts afresh.
    expect(accessTokenIssueFloor(fold_([installed, at(T0 + 5400, 'bbbbbbbbbbbbbbbb')]))).toBe(0);
    const uninstalled: InstallEvent = {
      type: OAuthEventType.AppUninstalled,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', uninstalledAt: T0 + 7000 },
    };
    const reinstalled: InstallEvent = {
      ...installed,
      data: { ...installed.data, installId: 'cccccccccccccccc', installedAt: T0 + 8000 },
    } as InstallEvent;
    expect(accessTokenIssueFloor(fold_([installed, at(T0 + 5400), uninstalled, reinstalled]))).toBe(0);
  });

  it('the floor holds only in the era of the install’s clock it was set in; a later era’s expiry replaces it (issue 41, item 4)', () => {
    const at = (expiredAt: number, clockEpoch?: number): InstallEvent => ({
      type: OAuthEventType.InstallAccessTokensExpired,
      data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', expiredAt, ...(clockEpoch ? { clockEpoch } : {}) },
    });
    const fold_ = (events: InstallEvent[]) => fold(installDecider.evolve, installDecider.initialState(), events);
    const tenYears = 315_000_000_000;
    // Expired ten years ahead, then the clock was reset (era 1): tokens follow real time, no floor.
    expect(accessTokenIssueFloor(fold_([installed, at(T0 + tenYears)]), 0)).toBe(T0 + tenYears + 1000);
    expect(accessTokenIssueFloor(fold_([installed, at(T0 + tenYears)]), 1)).toBe(0);
    // An expiry in era 1 replaces era 0's, however far ahead that was; era 0's later ones change nothing.
    const both = fold_([installed, at(T0 + tenYears), at(T0 + 5400, 1), at(T0 + tenYears + 9000)]);
    expect(accessTokenIssueFloor(both, 1)).toBe(T0 + 6000);
    // A second expiry in the second of the first covers the tokens issued since (from the next second).
    spec
      .given([installed, at(T0 + 5400, 1)])
      .when({ ...expire, now: T0 + 5700, clockEpoch: 1 })
      .then([
        {
          type: OAuthEventType.InstallAccessTokensExpired,
          data: { appId: 7, hubId: 9, installId: 'aaaaaaaaaaaaaaaa', expiredAt: T0 + 6000, clockEpoch: 1 },
        },
      ]);
  });
});
