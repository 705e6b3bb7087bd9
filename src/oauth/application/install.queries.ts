import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { scopesStillGranted } from '../domain/refresh-token.decider';

export interface InstallView {
  appId: number;
  hubId: number;
  installId: string;
  installingUserId: number;
  scopes: string[];
  installedAt: number;
}

export interface RefreshTokenView {
  tokenHash: string;
  appId: number;
  clientId: string;
  hubId: number;
  userId: number;
  installId: string;
  scopes: string[];
  issuedAt: number;
}

interface InstallRow {
  app_id: number;
  hub_id: number;
  install_id: string;
  installing_user_id: number;
  scopes: string;
  installed_at: number;
}

interface RefreshRow {
  token_hash: string;
  app_id: number;
  client_id: string;
  hub_id: number;
  user_id: number;
  install_id: string;
  scopes: string;
  install_scopes: string;
  issued_at: number;
}

const toInstall = (r: InstallRow): InstallView => ({
  appId: r.app_id,
  hubId: r.hub_id,
  installId: r.install_id,
  installingUserId: r.installing_user_id,
  scopes: JSON.parse(r.scopes) as string[],
  installedAt: r.installed_at,
});

/** Largest page a list query hands out (the admin API's `limit` ceiling, plus one to look ahead). */
export const MAX_INSTALLS_PAGE = 1001;

const pageSize = (limit: number): number => {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_INSTALLS_PAGE) throw new RangeError(`page size ${limit}`);
  return limit;
};

/**
 * Read side of installs, for every module (Cards places legacy cards in the views of the accounts
 * that installed an app). Only current installs: an uninstalled app is not listed.
 */
@Injectable()
export class InstallQueries {
  private stmts: ReturnType<InstallQueries['prepare']> | null = null;

  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  // Prepared on first use: the projection creates the tables when the runner starts.
  private get s() {
    return (this.stmts ??= this.prepare());
  }

  private prepare() {
    const cols = 'app_id, hub_id, install_id, installing_user_id, scopes, installed_at';
    return {
      ofApp: cachedStatement(
        this.db,
        `SELECT ${cols} FROM oauth_installs WHERE app_id = ? AND uninstalled_at IS NULL AND hub_id > ? ORDER BY hub_id LIMIT ?`,
      ),
      ofAccount: cachedStatement(
        this.db,
        `SELECT ${cols} FROM oauth_installs WHERE hub_id = ? AND uninstalled_at IS NULL AND app_id > ? ORDER BY app_id LIMIT ?`,
      ),
      one: cachedStatement(
        this.db,
        `SELECT ${cols} FROM oauth_installs WHERE app_id = ? AND hub_id = ? AND uninstalled_at IS NULL`,
      ),
      refreshToken: cachedStatement(
        this.db,
        `SELECT t.token_hash, t.app_id, t.client_id, t.hub_id, t.user_id, t.install_id, t.scopes, t.issued_at,
         i.scopes AS install_scopes
         FROM oauth_refresh_tokens t
         JOIN oauth_installs i ON i.app_id = t.app_id AND i.hub_id = t.hub_id AND i.install_id = t.install_id
         WHERE t.token_hash = ? AND t.deleted_at IS NULL AND i.uninstalled_at IS NULL`,
      ),
    };
  }

  /**
   * Accounts that currently have the app installed, by hub id: at most `limit` after `afterHubId`.
   * No default page size: a caller that wants every install pages through them.
   */
  listInstallsOfApp(appId: number, afterHubId: number, limit: number): InstallView[] {
    return (this.s.ofApp.all(appId, afterHubId, pageSize(limit)) as InstallRow[]).map(toInstall);
  }

  /** Apps currently installed in the account, by app id: at most `limit` after `afterAppId`. */
  listInstallsOfAccount(hubId: number, afterAppId: number, limit: number): InstallView[] {
    return (this.s.ofAccount.all(hubId, afterAppId, pageSize(limit)) as InstallRow[]).map(toInstall);
  }

  getInstall(appId: number, hubId: number): InstallView | null {
    const row = this.s.one.get(appId, hubId) as InstallRow | undefined;
    return row ? toInstall(row) : null;
  }

  isInstalled(appId: number, hubId: number): boolean {
    return this.getInstall(appId, hubId) !== null;
  }

  /** A refresh token that still works: not deleted, and its install is the current one. */
  findUsableRefreshToken(tokenHash: string): RefreshTokenView | null {
    const r = this.s.refreshToken.get(tokenHash) as RefreshRow | undefined;
    if (!r) return null;
    return {
      tokenHash: r.token_hash,
      appId: r.app_id,
      clientId: r.client_id,
      hubId: r.hub_id,
      userId: r.user_id,
      installId: r.install_id,
      // A re-approval with fewer scopes narrowed the token (the refresh grant's rule).
      scopes: scopesStillGranted(JSON.parse(r.scopes) as string[], JSON.parse(r.install_scopes) as string[]),
      issuedAt: r.issued_at,
    };
  }
}
