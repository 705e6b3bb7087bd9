import type { Tier } from '../../platform/tiers';
import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { isKnownScope } from '../../platform/scopes/scope-catalog';
import {
  AccountCreated,
  AppRegistered,
  DirectoryEventType,
  DomainClaimed,
  UserCreated,
  UserIdReserved,
} from './directory-events';

/** Every directory aggregate is created once; its state is whether that happened. */
export interface Existence {
  exists: boolean;
}

const existence = <E>(): Pick<
  Decider<Existence, unknown, E & { type: string; data: unknown }>,
  'initialState' | 'evolve'
> => ({
  initialState: () => ({ exists: false }),
  evolve: () => ({ exists: true }),
});

/** Thrown when a randomly chosen id is already taken: the caller picks another. */
export class IdTaken extends Error {
  constructor() {
    super('id taken');
    this.name = 'IdTaken';
  }
}

/** An account under an id the caller picked. */
export interface NewAccount {
  hubId: number;
  domain: string;
  hublet: string;
  tier: Tier;
  now: number;
}

export const accountDecider: Decider<Existence, NewAccount, AccountCreated> = {
  ...existence<AccountCreated>(),
  decide: (c, s) => {
    if (s.exists) throw new IdTaken();
    return [
      {
        type: DirectoryEventType.AccountCreated,
        data: { hubId: c.hubId, domain: c.domain, hublet: c.hublet, tier: c.tier, createdAt: c.now },
      },
    ];
  },
};

/** A domain belongs to one account: the claim stream exists once per domain. */
export interface DomainClaim {
  domain: string;
  hubId: number;
}

export const domainClaimDecider: Decider<Existence, DomainClaim, DomainClaimed> = {
  ...existence<DomainClaimed>(),
  decide: (c, s) => {
    if (s.exists) throw HubSpotError.conflict(`An account with domain ${c.domain} already exists.`);
    return [{ type: DirectoryEventType.DomainClaimed, data: { domain: c.domain, hubId: c.hubId } }];
  },
};

/** A user id is handed out once, even though user streams are keyed by e-mail. */
export interface UserIdReservation {
  userId: number;
  email: string;
}

export const userIdDecider: Decider<Existence, UserIdReservation, UserIdReserved> = {
  ...existence<UserIdReserved>(),
  decide: (c, s) => {
    if (s.exists) throw new IdTaken();
    return [{ type: DirectoryEventType.UserIdReserved, data: { userId: c.userId, email: c.email } }];
  },
};

export interface NewUser {
  userId: number;
  email: string;
  passwordHash: string;
  hubIds: number[];
  now: number;
}

/** The user stream is keyed by the normalized e-mail, so an e-mail exists at most once. */
export const userDecider: Decider<Existence, NewUser, UserCreated> = {
  ...existence<UserCreated>(),
  decide: (c, s) => {
    if (s.exists) throw HubSpotError.conflict(`A user with the e-mail ${c.email} already exists.`);
    return [
      {
        type: DirectoryEventType.UserCreated,
        data: {
          userId: c.userId,
          email: c.email,
          passwordHash: c.passwordHash,
          hubIds: [...new Set(c.hubIds)],
          createdAt: c.now,
        },
      },
    ];
  },
};

/** An app under an id the caller picked; only the hash of its client secret. */
export interface NewApp {
  appId: number;
  developerHubId: number;
  name: string;
  clientId: string;
  clientSecretHash: string;
  redirectUrls: string[];
  requiredScopes: string[];
  optionalScopes: string[];
  now: number;
}

export const appDecider: Decider<Existence, NewApp, AppRegistered> = {
  ...existence<AppRegistered>(),
  decide: (c, s) => {
    if (s.exists) throw new IdTaken();
    const errors = [
      ...c.redirectUrls.flatMap((url, i) => {
        const problem = redirectUrlProblem(url);
        return problem ? [{ message: problem, in: `redirectUrls[${i}]`, code: 'INVALID' }] : [];
      }),
      ...[...c.requiredScopes.map((s) => ['requiredScopes', s]), ...c.optionalScopes.map((s) => ['optionalScopes', s])]
        .filter(([, scope]) => !isKnownScope(scope!))
        .map(([field, scope]) => ({ message: `Unknown scope: ${scope}`, in: field!, code: 'INVALID_SCOPE' })),
      ...c.optionalScopes
        .filter((s) => c.requiredScopes.includes(s))
        .map((s) => ({
          message: `Scope ${s} is both required and optional`,
          in: 'optionalScopes',
          code: 'INVALID_SCOPE',
        })),
    ];
    if (errors.length > 0) throw HubSpotError.validation('Invalid app settings.', errors);
    return [
      {
        type: DirectoryEventType.AppRegistered,
        data: {
          appId: c.appId,
          developerHubId: c.developerHubId,
          name: c.name,
          clientId: c.clientId,
          clientSecretHash: c.clientSecretHash,
          redirectUrls: c.redirectUrls,
          requiredScopes: [...new Set(c.requiredScopes)],
          optionalScopes: [...new Set(c.optionalScopes)],
          createdAt: c.now,
        },
      },
    ];
  },
};

/** HubSpot requires https redirect URLs, except http on localhost for development. */
export function redirectUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `Not an absolute URL: ${url.slice(0, 100)}`;
  }
  if (parsed.hash) return 'A redirect URL cannot have a fragment';
  if (parsed.username || parsed.password) return 'A redirect URL cannot carry credentials';
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && local) return null;
  return 'A redirect URL must use https (http is allowed for localhost only)';
}
