import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import {
  AccountCreated,
  AccountSettingsChanged,
  AppRegistered,
  DeveloperApiKeyIssued,
  DeveloperApiKeyRetired,
  DirectoryEventType,
  UserCreated,
} from '../domain/directory-events';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { type AccountSettings, defaultAccountSettings } from '../domain/account-settings';

/** The events this read model is made of (the claim streams' events are the write side's alone). */
type DirectoryRecordEvent =
  | AccountCreated
  | AccountSettingsChanged
  | DeveloperApiKeyIssued
  | DeveloperApiKeyRetired
  | UserCreated
  | AppRegistered;

/** Accounts, users and apps as tables, for DirectoryQueries. Ids are unique on the write side, so a duplicate here is a bug and stops the projection loudly. */
@Injectable()
export class DirectoryProjection implements Projection<DirectoryRecordEvent> {
  readonly handles: readonly DirectoryRecordEvent['type'][] = [
    DirectoryEventType.AccountCreated,
    DirectoryEventType.UserCreated,
    DirectoryEventType.AppRegistered,
    DirectoryEventType.AccountSettingsChanged,
    DirectoryEventType.DeveloperApiKeyIssued,
    DirectoryEventType.DeveloperApiKeyRetired,
  ];
  readonly name = 'directory';
  /** 3: account settings and developer API keys; 4: apps' sealed client secrets (webhook signatures). */
  readonly version = 4;

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS dir_accounts (
        hub_id INTEGER PRIMARY KEY, domain TEXT NOT NULL, hublet TEXT NOT NULL, tier TEXT NOT NULL, created_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS dir_accounts_domain ON dir_accounts (domain);
      CREATE TABLE IF NOT EXISTS dir_users (
        user_id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, hub_ids TEXT NOT NULL,
        created_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS dir_apps (
        app_id INTEGER PRIMARY KEY, developer_hub_id INTEGER NOT NULL, name TEXT NOT NULL, client_id TEXT NOT NULL UNIQUE,
        client_secret_hash TEXT NOT NULL, redirect_urls TEXT NOT NULL, required_scopes TEXT NOT NULL,
        optional_scopes TEXT NOT NULL, created_at INTEGER NOT NULL, client_secret_sealed TEXT);
      CREATE TABLE IF NOT EXISTS dir_account_settings (
        hub_id INTEGER PRIMARY KEY, account_type TEXT NOT NULL, time_zone TEXT NOT NULL, company_currency TEXT NOT NULL,
        additional_currencies TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS dir_developer_api_keys (
        key_hash TEXT PRIMARY KEY, hub_id INTEGER NOT NULL UNIQUE, key_id TEXT NOT NULL, issued_at INTEGER NOT NULL);
    `);
  }

  reset(db: Database.Database): void {
    db.exec(
      'DELETE FROM dir_accounts; DELETE FROM dir_users; DELETE FROM dir_apps; DELETE FROM dir_account_settings; DELETE FROM dir_developer_api_keys;',
    );
  }

  /** The settings row of an account; an account's settings are its hublet's defaults until changed. */
  private writeSettings(db: Database.Database, hubId: number, settings: AccountSettings): void {
    cachedStatement(db, 'INSERT OR REPLACE INTO dir_account_settings VALUES (?, ?, ?, ?, ?)').run(
      hubId,
      settings.accountType,
      settings.timeZone,
      settings.companyCurrency,
      JSON.stringify(settings.additionalCurrencies),
    );
  }

  apply(event: Recorded<DirectoryRecordEvent>, db: Database.Database): void {
    switch (event.type) {
      case DirectoryEventType.AccountCreated: {
        const d = event.data;
        cachedStatement(db, 'INSERT INTO dir_accounts VALUES (?, ?, ?, ?, ?)').run(
          d.hubId,
          d.domain,
          d.hublet,
          d.tier,
          d.createdAt,
        );
        this.writeSettings(db, d.hubId, defaultAccountSettings(d.hublet));
        break;
      }
      case DirectoryEventType.AccountSettingsChanged:
        this.writeSettings(db, event.data.hubId, event.data.settings);
        break;
      case DirectoryEventType.DeveloperApiKeyIssued: {
        const d = event.data;
        cachedStatement(db, 'INSERT INTO dir_developer_api_keys VALUES (?, ?, ?, ?)').run(
          d.keyHash,
          d.hubId,
          d.keyId,
          d.issuedAt,
        );
        break;
      }
      case DirectoryEventType.DeveloperApiKeyRetired:
        cachedStatement(db, 'DELETE FROM dir_developer_api_keys WHERE hub_id = ? AND key_id = ?').run(
          event.data.hubId,
          event.data.keyId,
        );
        break;
      case DirectoryEventType.UserCreated: {
        const d = event.data;
        cachedStatement(db, 'INSERT INTO dir_users VALUES (?, ?, ?, ?, ?)').run(
          d.userId,
          d.email,
          d.passwordHash,
          JSON.stringify(d.hubIds),
          d.createdAt,
        );
        break;
      }
      case DirectoryEventType.AppRegistered: {
        const d = event.data;
        cachedStatement(db, 'INSERT INTO dir_apps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
          d.appId,
          d.developerHubId,
          d.name,
          d.clientId,
          d.clientSecretHash,
          JSON.stringify(d.redirectUrls),
          JSON.stringify(d.requiredScopes),
          JSON.stringify(d.optionalScopes),
          d.createdAt,
          d.clientSecretSealed ?? null,
        );
        break;
      }
    }
  }
}
