import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import {
  accountDecider,
  appDecider,
  domainClaimDecider,
  IdTaken,
  NewApp,
  redirectUrlProblem,
  userDecider,
  userIdDecider,
} from '../../src/directory/domain/directory-deciders';
import { DirectoryEventType } from '../../src/directory/domain/directory-events';
import { DeciderSpecification } from '../support/decider-specification';

const NOW = Date.UTC(2026, 0, 1);

describe('directory deciders', () => {
  describe('claims for uniqueness', () => {
    const domains = DeciderSpecification.for(domainClaimDecider);
    const userIds = DeciderSpecification.for(userIdDecider);
    const claimed = { type: DirectoryEventType.DomainClaimed, data: { domain: 'acme.example.com', hubId: 1 } } as const;

    it('a domain is claimed once; a second claim is 409 CONFLICT', () => {
      domains.given([]).when({ domain: 'acme.example.com', hubId: 1 }).then([claimed]);
      const error = domains.given([claimed]).when({ domain: 'acme.example.com', hubId: 2 }).thenThrows(HubSpotError);
      expect(error).toMatchObject({ httpStatus: 409, category: 'CONFLICT' });
    });

    it('a claim passes to a new id only from the orphaned holder the caller voided', () => {
      const moved = { ...claimed, data: { ...claimed.data, hubId: 2 } };
      domains.given([claimed]).when({ domain: 'acme.example.com', hubId: 2, orphanedHolder: 1 }).then([moved]);
      // Named the wrong holder (another create moved the claim meanwhile): still 409.
      domains
        .given([claimed, moved])
        .when({ domain: 'acme.example.com', hubId: 3, orphanedHolder: 1 })
        .thenThrows(HubSpotError);
    });

    it('voids an id without an account once; never one with an account; a voided id is never created', () => {
      const accounts = DeciderSpecification.for(accountDecider);
      const voidIt = { type: 'VoidAccountId', hubId: 1, domain: 'acme.example.com', now: NOW } as const;
      const voided = accounts.given([]).when(voidIt).events();
      expect(voided).toEqual([
        { type: DirectoryEventType.AccountIdVoided, data: { hubId: 1, domain: 'acme.example.com', voidedAt: NOW } },
      ]);
      accounts.given(voided).when(voidIt).then([]);
      accounts
        .given(voided)
        .when({ type: 'CreateAccount', hubId: 1, domain: 'acme.example.com', hublet: 'na1', tier: 'free', now: NOW })
        .thenThrows(IdTaken);
      const created = accounts
        .given([])
        .when({ type: 'CreateAccount', hubId: 1, domain: 'acme.example.com', hublet: 'na1', tier: 'free', now: NOW })
        .events();
      accounts.given(created).when(voidIt).thenThrows(IdTaken);
    });

    it('a user id is reserved once; a taken one asks for another id', () => {
      const reserved = userIds.given([]).when({ userId: 10_000_001, email: 'ada@example.com' }).events();
      expect(reserved).toEqual([
        { type: DirectoryEventType.UserIdReserved, data: { userId: 10_000_001, email: 'ada@example.com' } },
      ]);
      userIds.given(reserved).when({ userId: 10_000_001, email: 'bob@example.com' }).thenThrows(IdTaken);
    });
  });

  describe('accounts and users', () => {
    it('creates an account once under its id; a taken id asks for another', () => {
      const accounts = DeciderSpecification.for(accountDecider);
      const account = {
        type: 'CreateAccount',
        hubId: 12345678,
        domain: 'acme.example.com',
        hublet: 'eu1',
        tier: 'starter',
        now: NOW,
      } as const;
      const created = accounts
        .given([])
        .when(account)
        .then([
          {
            type: DirectoryEventType.AccountCreated,
            data: { hubId: 12345678, domain: 'acme.example.com', hublet: 'eu1', tier: 'starter', createdAt: NOW },
          },
        ]);
      accounts.given(created).when(account).thenThrows(IdTaken);
    });

    it('a user holds each account once; a second user with the e-mail is 409', () => {
      const users = DeciderSpecification.for(userDecider);
      const user = { userId: 7, email: 'ada@example.com', passwordHash: 'scrypt$x', hubIds: [1, 2, 1], now: NOW };
      const created = users.given([]).when(user).events();
      expect(created).toMatchObject([{ type: DirectoryEventType.UserCreated, data: { hubIds: [1, 2] } }]);
      expect(users.given(created).when(user).thenThrows(HubSpotError).httpStatus).toBe(409);
    });
  });

  describe('account settings and developer API keys', () => {
    const accounts = DeciderSpecification.for(accountDecider);
    const created = {
      type: DirectoryEventType.AccountCreated,
      data: { hubId: 7, domain: 'acme.example.com', hublet: 'eu1', tier: 'starter', createdAt: NOW },
    } as const;
    const create = {
      type: 'CreateAccount',
      hubId: 7,
      domain: 'acme.example.com',
      hublet: 'eu1',
      tier: 'starter',
      now: NOW,
    } as const;

    it("a new account has its hublet's defaults; settings given at creation are recorded after AccountCreated", () => {
      accounts.given([]).when(create).then([created]);
      expect(
        accounts.given([created]).when({ type: 'ChangeAccountSettings', hubId: 7, patch: {}, now: NOW }).events(),
      ).toEqual([]);
      accounts
        .given([])
        .when({ ...create, settings: { timeZone: 'Europe/Paris', additionalCurrencies: ['USD'] } })
        .then([
          created,
          {
            type: DirectoryEventType.AccountSettingsChanged,
            data: {
              hubId: 7,
              settings: {
                accountType: 'STANDARD',
                timeZone: 'Europe/Paris',
                companyCurrency: 'EUR',
                additionalCurrencies: ['USD'],
              },
              changedAt: NOW,
            },
          },
        ]);
      // Settings equal to the defaults record nothing beyond the account.
      accounts
        .given([])
        .when({ ...create, settings: { timeZone: 'Europe/Berlin' } })
        .then([created]);
    });

    it('a change merges into the current settings; the same values again record nothing', () => {
      const change = { type: 'ChangeAccountSettings', hubId: 7, now: NOW + 1 } as const;
      const changed = accounts
        .given([created])
        .when({ ...change, patch: { accountType: 'APP_DEVELOPER', companyCurrency: 'GBP' } })
        .then([
          {
            type: DirectoryEventType.AccountSettingsChanged,
            data: {
              hubId: 7,
              settings: {
                accountType: 'APP_DEVELOPER',
                timeZone: 'Europe/Berlin',
                companyCurrency: 'GBP',
                additionalCurrencies: [],
              },
              changedAt: NOW + 1,
            },
          },
        ]);
      accounts
        .given([created, ...changed])
        .when({ ...change, patch: { companyCurrency: 'GBP' } })
        .thenNothing();
    });

    it('bad settings are one VALIDATION_ERROR entry per field; an unknown account is 404', () => {
      const error = accounts
        .given([created])
        .when({
          type: 'ChangeAccountSettings',
          hubId: 7,
          patch: { timeZone: 'Mars/Olympus_Mons', companyCurrency: 'XYZ', additionalCurrencies: ['USD', 'USD', 'ABC'] },
          now: NOW,
        })
        .thenThrows(HubSpotError);
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.errors?.map((e) => e.in)).toEqual([
        'timeZone',
        'companyCurrency',
        'additionalCurrencies[1]',
        'additionalCurrencies[2]',
      ]);
      const ownCurrency = accounts
        .given([created])
        .when({ type: 'ChangeAccountSettings', hubId: 7, patch: { additionalCurrencies: ['EUR'] }, now: NOW })
        .thenThrows(HubSpotError);
      expect(ownCurrency.extras.errors).toEqual([
        { message: 'EUR is the company currency', in: 'additionalCurrencies[0]', code: 'INVALID' },
      ]);
      accounts
        .given([])
        .when({ ...create, settings: { timeZone: 'Nowhere/Nope' } })
        .thenThrows(HubSpotError);
      const missing = accounts
        .given([])
        .when({ type: 'ChangeAccountSettings', hubId: 7, patch: { timeZone: 'UTC' }, now: NOW })
        .thenThrows(HubSpotError);
      expect(missing.httpStatus).toBe(404);
    });

    it('issuing a developer API key retires the previous one in the same decision', () => {
      const issue = (keyId: string) =>
        ({ type: 'IssueDeveloperApiKey', hubId: 7, keyId, keyHash: `hash-${keyId}`, now: NOW }) as const;
      const first = accounts
        .given([created])
        .when(issue('k1'))
        .then([
          {
            type: DirectoryEventType.DeveloperApiKeyIssued,
            data: { hubId: 7, keyId: 'k1', keyHash: 'hash-k1', issuedAt: NOW },
          },
        ]);
      accounts
        .given([created, ...first])
        .when(issue('k2'))
        .then([
          { type: DirectoryEventType.DeveloperApiKeyRetired, data: { hubId: 7, keyId: 'k1', retiredAt: NOW } },
          {
            type: DirectoryEventType.DeveloperApiKeyIssued,
            data: { hubId: 7, keyId: 'k2', keyHash: 'hash-k2', issuedAt: NOW },
          },
        ]);
      expect(accounts.given([]).when(issue('k1')).thenThrows(HubSpotError).httpStatus).toBe(404);
    });
  });

  describe('apps', () => {
    const apps = DeciderSpecification.for(appDecider);
    const app = (extra: Partial<NewApp> = {}): NewApp => ({
      appId: 20_000_001,
      developerHubId: 1,
      name: 'My app',
      clientId: 'client',
      clientSecretHash: 'hash',
      redirectUrls: ['https://app.example.com/callback'],
      requiredScopes: ['oauth', 'oauth'],
      optionalScopes: [],
      now: NOW,
      ...extra,
    });

    it('registers an app with each scope once; a taken app id asks for another', () => {
      const registered = apps.given([]).when(app()).events();
      expect(registered).toMatchObject([
        { type: DirectoryEventType.AppRegistered, data: { requiredScopes: ['oauth'], clientSecretHash: 'hash' } },
      ]);
      apps.given(registered).when(app()).thenThrows(IdTaken);
    });

    it('refuses bad settings with one error per field', () => {
      const error = apps
        .given([])
        .when(
          app({
            redirectUrls: ['http://app.example.com/callback'],
            requiredScopes: ['oauth', 'no.such.scope'],
            optionalScopes: ['oauth'],
          }),
        )
        .thenThrows(HubSpotError);
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.errors!.map((e) => e.in)).toEqual(['redirectUrls[0]', 'requiredScopes', 'optionalScopes']);
    });

    it('refuses an app without a redirect URL (its install URL could never work)', () => {
      const error = apps
        .given([])
        .when(app({ redirectUrls: [] }))
        .thenThrows(HubSpotError);
      expect(error).toMatchObject({ httpStatus: 400, category: 'VALIDATION_ERROR' });
      expect(error.extras.errors).toEqual([
        { message: 'an app needs at least one redirect URL', in: 'redirectUrls', code: 'REQUIRED' },
      ]);
    });

    it.each([
      ['https://app.example.com/cb', null],
      ['http://localhost:3000/cb', null],
      ['http://app.example.com/cb', 'A redirect URL must use https (http is allowed for localhost only)'],
      ['https://app.example.com/cb#x', 'A redirect URL cannot have a fragment'],
      ['https://u:p@app.example.com/cb', 'A redirect URL cannot carry credentials'],
      ['/cb', 'Not an absolute URL: /cb'],
    ])('redirect URL %s', (url, problem) => {
      expect(redirectUrlProblem(url)).toBe(problem);
    });
  });
});
