import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { InstallAccessTokensExpired, InstallEvent, OAuthEventType, RefreshTokenEvent } from '../domain/oauth-events';
import { cachedStatement } from '../../platform/projections/statement-cache';

/** What the OAuth read models are built from: access-token and code events are not projected. */
type ProjectedEvent = Exclude<InstallEvent, InstallAccessTokensExpired> | RefreshTokenEvent;

/**
 * OAuth read models: installs (per account and per app) and refresh-token metadata by hash.
 * Access-token issuance is not projected: access tokens are self-contained.
 */
@Injectable()
export class OAuthProjection implements Projection<ProjectedEvent> {
  readonly handles: readonly ProjectedEvent['type'][] = [
    OAuthEventType.AppInstalled,
    OAuthEventType.AppInstallScopesChanged,
    OAuthEventType.AppUninstalled,
    OAuthEventType.RefreshTokenIssued,
    OAuthEventType.RefreshTokenDeleted,
  ];
  readonly name = 'oauth';
  readonly version = 1;
  private stmts: ReturnType<typeof prepare> | null = null;
  private db: Database.Database | null = null;

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS oauth_installs (
        app_id             INTEGER NOT NULL,
        hub_id             INTEGER NOT NULL,
        install_id         TEXT    NOT NULL,
        installing_user_id INTEGER NOT NULL,
        scopes             TEXT    NOT NULL,
        installed_at       INTEGER NOT NULL,
        uninstalled_at     INTEGER,
        PRIMARY KEY (app_id, hub_id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS oauth_installs_by_hub ON oauth_installs (hub_id, app_id);
      CREATE TABLE IF NOT EXISTS oauth_refresh_tokens (
        token_hash      TEXT    PRIMARY KEY,
        app_id          INTEGER NOT NULL,
        client_id       TEXT    NOT NULL,
        hub_id          INTEGER NOT NULL,
        user_id         INTEGER NOT NULL,
        install_id      TEXT    NOT NULL,
        scopes          TEXT    NOT NULL,
        issued_at       INTEGER NOT NULL,
        deleted_at      INTEGER,
        deletion_reason TEXT
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS oauth_refresh_tokens_by_install ON oauth_refresh_tokens (app_id, hub_id);
    `);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM oauth_installs; DELETE FROM oauth_refresh_tokens;');
  }

  apply(e: Recorded<ProjectedEvent>, db: Database.Database): void {
    if (this.db !== db || !this.stmts) {
      this.db = db;
      this.stmts = prepare(db);
    }
    const s = this.stmts;
    switch (e.type) {
      case OAuthEventType.AppInstalled:
        s.install.run(
          e.data.appId,
          e.data.hubId,
          e.data.installId,
          e.data.installingUserId,
          JSON.stringify(e.data.scopes),
          e.data.installedAt,
        );
        break;
      case OAuthEventType.AppInstallScopesChanged:
        s.installScopes.run(JSON.stringify(e.data.scopes), e.data.appId, e.data.hubId, e.data.installId);
        break;
      case OAuthEventType.AppUninstalled:
        s.uninstall.run(e.data.uninstalledAt, e.data.appId, e.data.hubId, e.data.installId);
        break;
      case OAuthEventType.RefreshTokenIssued:
        s.refreshIssued.run(
          e.data.refreshTokenHash,
          e.data.appId,
          e.data.clientId,
          e.data.hubId,
          e.data.userId,
          e.data.installId,
          JSON.stringify(e.data.scopes),
          e.data.issuedAt,
        );
        break;
      case OAuthEventType.RefreshTokenDeleted:
        s.refreshDeleted.run(e.data.deletedAt, e.data.reason, e.data.refreshTokenHash);
        break;
    }
  }
}

function prepare(db: Database.Database) {
  return {
    install: cachedStatement(
      db,
      `INSERT INTO oauth_installs (app_id, hub_id, install_id, installing_user_id, scopes, installed_at, uninstalled_at)
       VALUES (?, ?, ?, ?, ?, ?, NULL)
       ON CONFLICT (app_id, hub_id) DO UPDATE SET install_id = excluded.install_id,
         installing_user_id = excluded.installing_user_id, scopes = excluded.scopes,
         installed_at = excluded.installed_at, uninstalled_at = NULL`,
    ),
    installScopes: cachedStatement(
      db,
      'UPDATE oauth_installs SET scopes = ? WHERE app_id = ? AND hub_id = ? AND install_id = ?',
    ),
    uninstall: cachedStatement(
      db,
      'UPDATE oauth_installs SET uninstalled_at = ? WHERE app_id = ? AND hub_id = ? AND install_id = ?',
    ),
    refreshIssued: cachedStatement(
      db,
      `INSERT OR IGNORE INTO oauth_refresh_tokens (token_hash, app_id, client_id, hub_id, user_id, install_id, scopes, issued_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    refreshDeleted: cachedStatement(
      db,
      'UPDATE oauth_refresh_tokens SET deleted_at = ?, deletion_reason = ? WHERE token_hash = ? AND deleted_at IS NULL',
    ),
  };
}
