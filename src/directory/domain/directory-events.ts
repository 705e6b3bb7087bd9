import type { Tier } from '../../platform/tiers';
import type { AccountSettings } from './account-settings';
import type { EventDecoder, EventDefinitions } from '../../platform/events/event-type-registry';

/** Event types of the directory. Stable strings: they are what storage holds. */
export const DirectoryEventType = {
  AccountCreated: 'directory.AccountCreated',
  UserCreated: 'directory.UserCreated',
  AppRegistered: 'directory.AppRegistered',
  /** The account's settings as a whole, after a change (absent: the hublet's defaults). */
  AccountSettingsChanged: 'directory.AccountSettingsChanged',
  /** A developer API key of the account; only its SHA-256 is stored. */
  DeveloperApiKeyIssued: 'directory.DeveloperApiKeyIssued',
  /** The key stops working (a newer one replaced it). */
  DeveloperApiKeyRetired: 'directory.DeveloperApiKeyRetired',
  /** Uniqueness claims: appended with `no_stream`, so of two concurrent claims exactly one wins. */
  DomainClaimed: 'directory.DomainClaimed',
  UserIdReserved: 'directory.UserIdReserved',
  /**
   * An account id whose domain claim was left without its account (the create failed after the
   * claim: a full disk, a crash): the id is spent, and the domain can be claimed again.
   */
  AccountIdVoided: 'directory.AccountIdVoided',
} as const;

export interface DomainClaimed {
  type: typeof DirectoryEventType.DomainClaimed;
  data: { domain: string; hubId: number };
}

export interface AccountIdVoided {
  type: typeof DirectoryEventType.AccountIdVoided;
  data: { hubId: number; domain: string; voidedAt: number };
}

export interface UserIdReserved {
  type: typeof DirectoryEventType.UserIdReserved;
  data: { userId: number; email: string };
}

export interface AccountCreated {
  type: typeof DirectoryEventType.AccountCreated;
  data: { hubId: number; domain: string; hublet: string; tier: Tier; createdAt: number };
}

export interface AccountSettingsChanged {
  type: typeof DirectoryEventType.AccountSettingsChanged;
  data: { hubId: number; settings: AccountSettings; changedAt: number };
}

export interface DeveloperApiKeyIssued {
  type: typeof DirectoryEventType.DeveloperApiKeyIssued;
  /** keyHash is SHA-256 (hex) of a random UUID (122 random bits, HubSpot's format); the key is shown once. */
  data: { hubId: number; keyId: string; keyHash: string; issuedAt: number };
}

export interface DeveloperApiKeyRetired {
  type: typeof DirectoryEventType.DeveloperApiKeyRetired;
  data: { hubId: number; keyId: string; retiredAt: number };
}

/** Everything an account's own stream holds. */
export type AccountEvent =
  AccountCreated | AccountSettingsChanged | DeveloperApiKeyIssued | DeveloperApiKeyRetired | AccountIdVoided;

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
    /**
     * The client secret sealed (platform/security/secret-sealer.ts: AES-256-GCM under a key derived
     * from the token signing keys): it signs the app's webhook deliveries. Absent on apps registered
     * before webhooks, which therefore cannot be signed.
     */
    clientSecretSealed?: string;
    redirectUrls: string[];
    requiredScopes: string[];
    optionalScopes: string[];
    createdAt: number;
  };
}

export const accountStream = (hubId: number) => `directory.account-${hubId}`;
export const userStream = (normalizedEmail: string) => `directory.user-${normalizedEmail}`;
export const appStream = (appId: number) => `directory.app-${appId}`;
export const domainStream = (domain: string) => `directory.domain-${domain}`;
export const userIdStream = (userId: number) => `directory.user-id-${userId}`;

/**
 * The directory's event types for the registry. Every type is still stored in the one shape it
 * was first written in, so none needs a decoder yet; a type whose data changes shape gets an
 * upcaster here (old shape -> current), never a second type string.
 */
export const directoryEvents: EventDefinitions = {
  [DirectoryEventType.AccountCreated]: null,
  [DirectoryEventType.UserCreated]: null,
  [DirectoryEventType.AppRegistered]: null,
  [DirectoryEventType.AccountSettingsChanged]: null,
  [DirectoryEventType.DeveloperApiKeyIssued]: null,
  [DirectoryEventType.DeveloperApiKeyRetired]: null,
  [DirectoryEventType.DomainClaimed]: null,
  [DirectoryEventType.UserIdReserved]: null,
  [DirectoryEventType.AccountIdVoided]: null,
} satisfies Record<(typeof DirectoryEventType)[keyof typeof DirectoryEventType], EventDecoder | null>;
