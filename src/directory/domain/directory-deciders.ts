import type { Tier } from '../../platform/tiers';
import type { Decider } from '../../platform/commands/decider';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { isKnownScope } from '../../platform/scopes/scope-catalog';
import {
  type AccountSettings,
  type AccountSettingsPatch,
  applySettingsPatch,
  defaultAccountSettings,
  sameSettings,
} from './account-settings';
import {
  AccountCreated,
  type AccountEvent,
  AccountSettingsChanged,
  AppRegistered,
  DeveloperApiKeyRetired,
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

/** An account under an id the caller picked, with the settings it starts with (absent: the hublet's defaults). */
export interface NewAccount {
  type: 'CreateAccount';
  hubId: number;
  domain: string;
  hublet: string;
  tier: Tier;
  settings?: AccountSettingsPatch;
  now: number;
}

/** A change of some of the account's settings (PATCH). */
export interface ChangeAccountSettings {
  type: 'ChangeAccountSettings';
  hubId: number;
  patch: AccountSettingsPatch;
  now: number;
}

/** A new developer API key for the account; the caller made the key and hands in only its hash. */
export interface IssueDeveloperApiKey {
  type: 'IssueDeveloperApiKey';
  hubId: number;
  keyId: string;
  keyHash: string;
  now: number;
}

/** Spends an id whose domain claim has no account (see AccountIdVoided); refused when the account exists. */
export interface VoidAccountId {
  type: 'VoidAccountId';
  hubId: number;
  domain: string;
  now: number;
}

export type AccountCommand = NewAccount | ChangeAccountSettings | IssueDeveloperApiKey | VoidAccountId;

export interface AccountState {
  exists: boolean;
  /** What the account was created with (the answer of a command when the read model lags). */
  created: AccountCreated['data'] | null;
  settings: AccountSettings | null;
  /** The key that works now, if any (its id only). */
  activeDeveloperKeyId: string | null;
}

/**
 * One account's stream: created once under its id, then its settings and its developer API key.
 * A settings change that changes nothing records nothing; a new developer key retires the
 * previous one in the same append, so at most one key of an account ever works.
 */
export const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  initialState: () => ({ exists: false, created: null, settings: null, activeDeveloperKeyId: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case DirectoryEventType.AccountCreated:
        return { ...state, exists: true, created: event.data, settings: defaultAccountSettings(event.data.hublet) };
      case DirectoryEventType.AccountSettingsChanged:
        return { ...state, settings: event.data.settings };
      case DirectoryEventType.DeveloperApiKeyIssued:
        return { ...state, activeDeveloperKeyId: event.data.keyId };
      case DirectoryEventType.DeveloperApiKeyRetired:
        return state.activeDeveloperKeyId === event.data.keyId ? { ...state, activeDeveloperKeyId: null } : state;
      case DirectoryEventType.AccountIdVoided:
        return { ...state, exists: true }; // the id is spent; there is no account (created stays null)
    }
  },
  decide: (c, s) => {
    switch (c.type) {
      case 'CreateAccount': {
        if (s.exists) throw new IdTaken();
        const created: AccountCreated = {
          type: DirectoryEventType.AccountCreated,
          data: { hubId: c.hubId, domain: c.domain, hublet: c.hublet, tier: c.tier, createdAt: c.now },
        };
        if (!c.settings) return [created];
        const defaults = defaultAccountSettings(c.hublet);
        const settings = settingsOrThrow(defaults, c.settings);
        if (sameSettings(settings, defaults)) return [created];
        return [created, settingsChanged(c.hubId, settings, c.now)];
      }
      case 'ChangeAccountSettings': {
        if (!s.exists || !s.settings) throw HubSpotError.notFound(`No account with hubId ${c.hubId}`);
        const settings = settingsOrThrow(s.settings, c.patch);
        return sameSettings(settings, s.settings) ? [] : [settingsChanged(c.hubId, settings, c.now)];
      }
      case 'VoidAccountId': {
        if (s.created) throw new IdTaken(); // the account exists: its domain claim is not orphaned
        if (s.exists) return []; // voided already
        return [
          {
            type: DirectoryEventType.AccountIdVoided,
            data: { hubId: c.hubId, domain: c.domain, voidedAt: c.now },
          },
        ];
      }
      case 'IssueDeveloperApiKey': {
        if (!s.created) throw HubSpotError.notFound(`No account with hubId ${c.hubId}`);
        const retired: DeveloperApiKeyRetired[] = s.activeDeveloperKeyId
          ? [
              {
                type: DirectoryEventType.DeveloperApiKeyRetired,
                data: { hubId: c.hubId, keyId: s.activeDeveloperKeyId, retiredAt: c.now },
              },
            ]
          : [];
        return [
          ...retired,
          {
            type: DirectoryEventType.DeveloperApiKeyIssued,
            data: { hubId: c.hubId, keyId: c.keyId, keyHash: c.keyHash, issuedAt: c.now },
          },
        ];
      }
    }
  },
};

function settingsOrThrow(current: AccountSettings, patch: AccountSettingsPatch): AccountSettings {
  const result = applySettingsPatch(current, patch);
  if (!result.ok) throw HubSpotError.validation('Invalid account settings.', result.errors);
  return result.settings;
}

const settingsChanged = (hubId: number, settings: AccountSettings, now: number): AccountSettingsChanged => ({
  type: DirectoryEventType.AccountSettingsChanged,
  data: { hubId, settings, changedAt: now },
});

/** A domain belongs to one account: the claim stream exists once per domain. */
export interface DomainClaim {
  domain: string;
  hubId: number;
  /**
   * The account id the caller found holding the domain without an account, and whose id it then
   * voided: the claim passes to `hubId` only while that id still holds it.
   */
  orphanedHolder?: number;
}

/** Which account id holds the domain (the last claim), or null. */
export interface DomainClaimState {
  holder: number | null;
}

/**
 * A domain's claim stream. Of two concurrent claims exactly one wins (expected revision). A claim
 * whose account was never created (the create failed after the claim) can be taken over, but
 * only after the caller voided that account id (AccountIdVoided, expected `no_stream`): so the
 * create that left the claim cannot complete later, and a claim with a live account never moves.
 */
export const domainClaimDecider: Decider<DomainClaimState, DomainClaim, DomainClaimed> = {
  initialState: () => ({ holder: null }),
  evolve: (_state, event) => ({ holder: event.data.hubId }),
  decide: (c, s) => {
    if (s.holder !== null && (c.orphanedHolder === undefined || c.orphanedHolder !== s.holder)) {
      throw HubSpotError.conflict(`An account with domain ${c.domain} already exists.`);
    }
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
  /** The secret sealed for signing webhook deliveries (never the secret itself). */
  clientSecretSealed?: string;
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
      // The install URL carries the first redirect URL; without one it could never complete an install.
      ...(c.redirectUrls.length === 0
        ? [{ message: 'an app needs at least one redirect URL', in: 'redirectUrls', code: 'REQUIRED' }]
        : []),
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
          ...(c.clientSecretSealed === undefined ? {} : { clientSecretSealed: c.clientSecretSealed }),
          redirectUrls: c.redirectUrls,
          requiredScopes: [...new Set(c.requiredScopes)],
          optionalScopes: [...new Set(c.optionalScopes)],
          createdAt: c.now,
        },
      },
    ];
  },
};

/** C0 and C1 controls, DEL, spaces and Unicode whitespace, line/paragraph separators, BOM. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_OR_SEPARATOR = /[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/;

/** HubSpot requires https redirect URLs, except http on localhost for development. */
export function redirectUrlProblem(url: string): string | null {
  // The URL parser drops TAB/CR/LF and trims controls, but the registered text is what goes into
  // the Location header, which cannot carry them (Node refuses the header: a 500).
  if (CONTROL_OR_SEPARATOR.test(url)) {
    return 'A redirect URL cannot contain control characters, whitespace or line separators (percent-encode them)';
  }
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
