import type { Tier } from '../../platform/tiers';

/** Event types of the directory. Stable strings: they are what storage holds. */
export const DirectoryEventType = {
  AccountCreated: 'directory.AccountCreated',
  UserCreated: 'directory.UserCreated',
  AppRegistered: 'directory.AppRegistered',
  /** Uniqueness claims: appended with `no_stream`, so of two concurrent claims exactly one wins. */
  DomainClaimed: 'directory.DomainClaimed',
  UserIdReserved: 'directory.UserIdReserved',
} as const;

export interface DomainClaimed {
  type: typeof DirectoryEventType.DomainClaimed;
  data: { domain: string; hubId: number };
}

export interface UserIdReserved {
  type: typeof DirectoryEventType.UserIdReserved;
  data: { userId: number; email: string };
}

export interface AccountCreated {
  type: typeof DirectoryEventType.AccountCreated;
  data: { hubId: number; domain: string; hublet: string; tier: Tier; createdAt: number };
}

export interface UserCreated {
  type: typeof DirectoryEventType.UserCreated;
  /** passwordHash is scrypt; the password itself never reaches an event. */
  data: { userId: number; email: string; passwordHash: string; hubIds: number[]; createdAt: number };
}

export interface AppRegistered {
  type: typeof DirectoryEventType.AppRegistered;
  /** clientSecretHash is SHA-256 of a random UUID (122 random bits, HubSpot's format); the secret is shown once and never stored. */
  data: {
    appId: number;
    developerHubId: number;
    name: string;
    clientId: string;
    clientSecretHash: string;
    redirectUrls: string[];
    requiredScopes: string[];
    optionalScopes: string[];
    createdAt: number;
  };
}

export type DirectoryEvent = AccountCreated | UserCreated | AppRegistered | DomainClaimed | UserIdReserved;

export const accountStream = (hubId: number) => `directory.account-${hubId}`;
export const userStream = (normalizedEmail: string) => `directory.user-${normalizedEmail}`;
export const appStream = (appId: number) => `directory.app-${appId}`;
export const domainStream = (domain: string) => `directory.domain-${domain}`;
export const userIdStream = (userId: number) => `directory.user-id-${userId}`;
