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
