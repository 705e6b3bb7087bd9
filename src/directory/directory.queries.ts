import { SecretSealer } from '../platform/security/secret-sealer';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { APP_CONFIG, AppConfig } from '../platform/config/config';
import { Tier } from '../platform/tiers';
import { cachedStatement } from '../platform/projections/statement-cache';
import { READ_MODEL_DB } from '../platform/projections/read-model-database';
import { buildInstallUrl } from './domain/install-url';
import { DirectoryProjection } from './projections/directory.projection';
import { type AccountSettings, type AccountType, uiDomainOf, utcOffsetAt } from './domain/account-settings';

export interface AccountView {
  hubId: number;
  domain: string;
  hublet: string;
  tier: Tier;
  createdAt: number;
}

/** An account with its current settings (the admin API's account). */
export type AccountWithSettings = AccountView & AccountSettings;

/** HubSpot's PortalInformationResponse (account-info details) of an account at one moment. */
export interface AccountDetailsView {
  portalId: number;
  accountType: AccountType;
  timeZone: string;
  companyCurrency: string;
  additionalCurrencies: string[];
  utcOffset: string;
  utcOffsetMilliseconds: number;
  uiDomain: string;
  dataHostingLocation: string;
}

/** The developer API key an account has now: never the key, only its id. */
export interface DeveloperApiKeyView {
  hubId: number;
  keyId: string;
  issuedAt: number;
}

export interface UserView {
  userId: number;
  email: string;
  hubIds: number[];
  createdAt: number;
}

export interface UserCredentials extends UserView {
  passwordHash: string;
}

export interface AppView {
  appId: number;
  developerHubId: number;
  name: string;
  clientId: string;
  redirectUrls: string[];
  requiredScopes: string[];
  optionalScopes: string[];
  installUrl: string;
  createdAt: number;
}

export interface AppWithSecret extends AppView {
  clientSecretHash: string;
}

interface AccountRow {
  hub_id: number;
  domain: string;
  hublet: string;
  tier: Tier;
  created_at: number;
}
interface SettingsRow {
  account_type: AccountType;
  time_zone: string;
  company_currency: string;
  additional_currencies: string;
}
interface DeveloperKeyRow {
  hub_id: number;
  key_id: string;
  issued_at: number;
}
interface UserRow {
  user_id: number;
  email: string;
  password_hash: string;
  hub_ids: string;
  created_at: number;
}
interface AppRow {
  app_id: number;
  developer_hub_id: number;
  name: string;
  client_id: string;
  client_secret_hash: string;
  redirect_urls: string;
  required_scopes: string;
  optional_scopes: string;
  created_at: number;
  client_secret_sealed: string | null;
}

/**
 * Read side of the directory, for every module: accounts, users, apps. Served from the
 * `directory` projection. Other modules ask here; they never read the directory's tables.
 */
@Injectable()
export class DirectoryQueries {
  // An account's id, domain, hublet and tier never change once created, so a row found in the read
  // model stays true (settings and developer keys change: they are read uncached): the request
  // paths (token grant, limits GET) look them up on every call. An app changes (PATCH, a rotated
  // secret): the projection tells these caches to forget it as it writes the change. Only hits are
  // kept (a miss may be a row not projected yet), and the caches are bounded.
  private readonly accounts = new BoundedCache<number, AccountView>(CACHE_LIMIT);
  private readonly appsById = new BoundedCache<number, AppView>(CACHE_LIMIT);
  private readonly appsByClientId = new BoundedCache<string, AppWithSecret>(CACHE_LIMIT);
  /** A user's e-mail never changes either (a user's accounts do: the view is read uncached). */
  private readonly emails = new BoundedCache<number, string>(CACHE_LIMIT);

  constructor(
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    /** The shared read model's projection (absent over a scratch database, whose queries live for one answer). */
    @Optional() projection?: DirectoryProjection,
  ) {
    projection?.onAppChanged((appId, clientId) => {
      this.appsById.delete(appId);
      this.appsByClientId.delete(clientId);
    });
  }

  /** Prepared once, on first use (the tables exist only once the projection ran its setup). */
  private stmt(sql: string): Database.Statement {
    return cachedStatement(this.db, sql);
  }

  getAccount(hubId: number): AccountView | null {
    const cached = this.accounts.get(hubId);
    if (cached) return cached;
    const row = this.stmt('SELECT * FROM dir_accounts WHERE hub_id = ?').get(hubId) as AccountRow | undefined;
    if (!row) return null;
    const account = Object.freeze(toAccount(row));
    this.accounts.set(hubId, account);
    return account;
  }

  listAccounts(after = 0, limit = 100): AccountView[] {
    return (
      this.stmt('SELECT * FROM dir_accounts WHERE hub_id > ? ORDER BY hub_id LIMIT ?').all(after, limit) as AccountRow[]
    ).map(toAccount);
  }

  /**
   * The account's settings as they are now. Not cached (settings change, unlike the account
   * itself); one primary-key read.
   */
  getAccountSettings(hubId: number): AccountSettings | null {
    const row = this.stmt('SELECT * FROM dir_account_settings WHERE hub_id = ?').get(hubId) as SettingsRow | undefined;
    return row
      ? {
          accountType: row.account_type,
          timeZone: row.time_zone,
          companyCurrency: row.company_currency,
          additionalCurrencies: JSON.parse(row.additional_currencies) as string[],
        }
      : null;
  }

  getAccountWithSettings(hubId: number): AccountWithSettings | null {
    const account = this.getAccount(hubId);
    const settings = account && this.getAccountSettings(hubId);
    return account && settings ? { ...account, ...settings } : null;
  }

  /** The account's details at `at` (epoch ms): the UTC offset is its time zone's then, daylight saving included. */
  getAccountDetails(hubId: number, at: number): AccountDetailsView | null {
    const account = this.getAccountWithSettings(hubId);
    if (!account) return null;
    return {
      portalId: account.hubId,
      accountType: account.accountType,
      timeZone: account.timeZone,
      companyCurrency: account.companyCurrency,
      additionalCurrencies: account.additionalCurrencies,
      ...utcOffsetAt(account.timeZone, at),
      uiDomain: uiDomainOf(account.hublet),
      dataHostingLocation: account.hublet,
    };
  }

  /**
   * The developer account whose current developer API key has this SHA-256. A lookup by the
   * hash of a 122-bit random key: the index compares hashes, so timing tells nothing about the key.
   */
  findDeveloperApiKeyByHash(keyHash: string): DeveloperApiKeyView | null {
    const row = this.stmt('SELECT hub_id, key_id, issued_at FROM dir_developer_api_keys WHERE key_hash = ?').get(
      keyHash,
    ) as DeveloperKeyRow | undefined;
    return row ? { hubId: row.hub_id, keyId: row.key_id, issuedAt: row.issued_at } : null;
  }

  getDeveloperApiKey(hubId: number): DeveloperApiKeyView | null {
    const row = this.stmt('SELECT hub_id, key_id, issued_at FROM dir_developer_api_keys WHERE hub_id = ?').get(
      hubId,
    ) as DeveloperKeyRow | undefined;
    return row ? { hubId: row.hub_id, keyId: row.key_id, issuedAt: row.issued_at } : null;
  }

  findAccountByDomain(domain: string): AccountView | null {
    const row = this.stmt('SELECT * FROM dir_accounts WHERE domain = ?').get(domain.toLowerCase()) as
      AccountRow | undefined;
    return row ? toAccount(row) : null;
  }

  /** The user's e-mail, '' for an unknown user (the token metadata answers name it on every call). */
  userEmail(userId: number): string {
    const cached = this.emails.get(userId);
    if (cached !== undefined) return cached;
    const email = this.getUser(userId)?.email;
    if (email === undefined) return '';
    this.emails.set(userId, email);
    return email;
  }

  /** The account's domain, '' for an unknown account. */
  accountDomain(hubId: number): string {
    return this.getAccount(hubId)?.domain ?? '';
  }

  getUser(userId: number): UserView | null {
    const row = this.stmt('SELECT * FROM dir_users WHERE user_id = ?').get(userId) as UserRow | undefined;
    return row ? toUser(row) : null;
  }

  listUsers(after = 0, limit = 100): UserView[] {
    return (
      this.stmt('SELECT * FROM dir_users WHERE user_id > ? ORDER BY user_id LIMIT ?').all(after, limit) as UserRow[]
    ).map(toUser);
  }

  /** For sign-in only: includes the scrypt hash. */
  findUserCredentialsByEmail(email: string): UserCredentials | null {
    const row = this.stmt('SELECT * FROM dir_users WHERE email = ?').get(email.trim().toLowerCase()) as
      UserRow | undefined;
    return row ? { ...toUser(row), passwordHash: row.password_hash } : null;
  }

  /** The app's client secret as sealed (SecretSealer), for a module that keeps it re-sealed; null when not sealed. */
  webhookSealedSecret(appId: number): string | null {
    const row = this.stmt('SELECT client_secret_sealed FROM dir_apps WHERE app_id = ?').get(appId) as
      { client_secret_sealed: string | null } | undefined;
    return row?.client_secret_sealed ?? null;
  }

  /**
   * The app's client secret, for signing its webhook deliveries only (HubSpot signs them with it);
   * null for an app registered before secrets were sealed, or whose sealing key is gone.
   */
  webhookSigningSecret(appId: number): string | null {
    const row = this.stmt('SELECT client_secret_sealed FROM dir_apps WHERE app_id = ?').get(appId) as
      { client_secret_sealed: string | null } | undefined;
    if (!row?.client_secret_sealed) return null;
    return SecretSealer.forConfig(this.config).open(row.client_secret_sealed);
  }

  getApp(appId: number): AppView | null {
    const cached = this.appsById.get(appId);
    if (cached) return cached;
    const row = this.stmt('SELECT * FROM dir_apps WHERE app_id = ?').get(appId) as AppRow | undefined;
    if (!row) return null;
    const app = deepFreeze(this.toApp(row));
    this.appsById.set(appId, app);
    return app;
  }

  listApps(after = 0, limit = 100): AppView[] {
    return (
      this.stmt('SELECT * FROM dir_apps WHERE app_id > ? ORDER BY app_id LIMIT ?').all(after, limit) as AppRow[]
    ).map((r) => this.toApp(r));
  }

  /** For client authentication only: includes the SHA-256 of the client secret. */
  findAppByClientId(clientId: string): AppWithSecret | null {
    const cached = this.appsByClientId.get(clientId);
    if (cached) return cached;
    const row = this.stmt('SELECT * FROM dir_apps WHERE client_id = ?').get(clientId) as AppRow | undefined;
    if (!row) return null;
    const app = deepFreeze({ ...this.toApp(row), clientSecretHash: row.client_secret_hash });
    this.appsByClientId.set(clientId, app);
    return app;
  }

  private toApp(row: AppRow): AppView {
    return this.appView({
      appId: row.app_id,
      developerHubId: row.developer_hub_id,
      name: row.name,
      clientId: row.client_id,
      redirectUrls: JSON.parse(row.redirect_urls) as string[],
      requiredScopes: JSON.parse(row.required_scopes) as string[],
      optionalScopes: JSON.parse(row.optional_scopes) as string[],
      createdAt: row.created_at,
    });
  }

  /** An app as the admin API answers it (with its install URL), from its recorded settings. */
  appView(app: Omit<AppView, 'installUrl'>): AppView {
    return { ...app, installUrl: buildInstallUrl(`${this.config.publicUrl}/oauth/authorize`, app) };
  }
}

const toAccount = (r: AccountRow): AccountView => ({
  hubId: r.hub_id,
  domain: r.domain,
  hublet: r.hublet,
  tier: r.tier,
  createdAt: r.created_at,
});

const toUser = (r: UserRow): UserView => ({
  userId: r.user_id,
  email: r.email,
  hubIds: JSON.parse(r.hub_ids) as number[],
  createdAt: r.created_at,
});

const CACHE_LIMIT = 50_000;

/** A Map that forgets its oldest entries once full (insertion order), and an entry when told it changed. */
class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  set(key: K, value: V): void {
    if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
  }
}

/** Cached views are shared between callers: frozen, so none can change what the next one sees. */
function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const v of Object.values(value)) if (v !== null && typeof v === 'object') Object.freeze(v);
  return Object.freeze(value);
}
