import type { Tier } from '../../config/config';

/** Event types of the directory. Stable strings: they are what storage holds. */
export const DirectoryEventType = {
  AccountCreated: 'directory.AccountCreated',
  UserCreated: 'directory.UserCreated',
  AppRegistered: 'directory.AppRegistered',
} as const;

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
  /** clientSecretHash is SHA-256 of a 256-bit random secret; the secret is shown once and never stored. */
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

export type DirectoryEvent = AccountCreated | UserCreated | AppRegistered;

export const accountStream = (hubId: number) => `directory.account-${hubId}`;
export const userStream = (normalizedEmail: string) => `directory.user-${normalizedEmail}`;
export const appStream = (appId: number) => `directory.app-${appId}`;
