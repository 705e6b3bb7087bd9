import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { OpsEventType, type HistoryArchived } from '../../ops/ops.events';
import { grantIdOf } from '../domain/access-token';
import { InstallClockEventType, type InstallClockReset } from '../domain/install-clock';
import {
  type AccessTokenIssued,
  type AccessTokenRevoked,
  type AppUninstalled,
  type InstallAccessTokensExpired,
  OAuthEventType,
  type RefreshTokenDeleted,
} from '../domain/oauth-events';

type ProjectedEvent =
  | AccessTokenIssued
  | AccessTokenRevoked
  | AppUninstalled
  | InstallAccessTokensExpired
  | RefreshTokenDeleted
  | InstallClockReset
  | HistoryArchived;

/**
 * The access tokens of each install that may still work, by id (never a token value): what the
 * console counts per install. A row goes when its token is revoked, its install's tokens are
 * expired or the install is uninstalled, its grant is revoked (a replayed code), or it expires on its
 * own. Times are on the install's clock: a reset of that clock moves its rows' expiries earlier by
 * the offset it dropped, as the verifier does (InstallClocks.droppedSinceMs). An install's clock is
 * never behind real time, so a row whose expiry real time has passed is dead for good: each event
 * applied deletes the rows expired by its own time (deterministic: a rebuild gives the same rows).
 */
@Injectable()
export class OutstandingTokensProjection implements Projection<ProjectedEvent> {
  readonly name = 'oauth-outstanding-tokens';
  readonly version = 1;
  /** An access token lives 30 minutes on its install's clock: archived (days old) ones are long dead. */
  readonly allowsArchiving = true;
  readonly handles: readonly ProjectedEvent['type'][] = [
    OAuthEventType.AccessTokenIssued,
    OAuthEventType.AccessTokenRevoked,
    OAuthEventType.AppUninstalled,
    OAuthEventType.InstallAccessTokensExpired,
    OAuthEventType.RefreshTokenDeleted,
    InstallClockEventType.InstallClockReset,
    // Only its time: the tokens of the events it archived are long expired by then, and pruned.
    OpsEventType.HistoryArchived,
  ];
  private stmts: ReturnType<typeof prepare> | null = null;
  private db: Database.Database | null = null;

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS oauth_outstanding_access_tokens (
        token_id   TEXT    PRIMARY KEY,
        app_id     INTEGER NOT NULL,
        hub_id     INTEGER NOT NULL,
        install_id TEXT    NOT NULL,
        grant_id   TEXT    NOT NULL,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS oauth_outstanding_access_tokens_by_install
        ON oauth_outstanding_access_tokens (app_id, hub_id, expires_at);
      CREATE INDEX IF NOT EXISTS oauth_outstanding_access_tokens_by_install_id ON oauth_outstanding_access_tokens (install_id);
      CREATE INDEX IF NOT EXISTS oauth_outstanding_access_tokens_by_grant ON oauth_outstanding_access_tokens (grant_id);
      CREATE INDEX IF NOT EXISTS oauth_outstanding_access_tokens_by_expiry ON oauth_outstanding_access_tokens (expires_at);
    `);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM oauth_outstanding_access_tokens;');
  }

  apply(e: Recorded<ProjectedEvent>, db: Database.Database): void {
    if (this.db !== db || !this.stmts) {
      this.db = db;
      this.stmts = prepare(db);
    }
    const s = this.stmts;
    switch (e.type) {
      case OAuthEventType.AccessTokenIssued:
        s.issued.run(
          e.data.tokenId,
          e.data.appId,
          e.data.hubId,
          e.data.installId,
          grantIdOf(e.data.refreshTokenHash),
          e.data.expiresAt,
        );
        break;
      case OAuthEventType.AccessTokenRevoked:
        s.revoked.run(e.data.tokenId);
        break;
      // Every token of the install committed before this event was issued before it: all of them go.
      case OAuthEventType.AppUninstalled:
      case OAuthEventType.InstallAccessTokensExpired:
        s.ofInstall.run(e.data.installId);
        break;
      case OAuthEventType.RefreshTokenDeleted:
        // Only a replayed code revokes the grant's access tokens (the revocations projection's rule).
        if (e.data.reason === 'authorization_code_replayed') s.ofGrant.run(grantIdOf(e.data.refreshTokenHash));
        break;
      case InstallClockEventType.InstallClockReset:
        s.clockReset.run(e.data.offsetSeconds * 1000, e.data.appId, e.data.hubId);
        break;
    }
    // Deterministic (the event's own time, not the clock): a rebuild leaves exactly these rows, also
    // after an archive run (its record prunes what the archived events had added).
    s.prune.run(e.metadata.occurredAt);
  }
}

function prepare(db: Database.Database) {
  return {
    issued: cachedStatement(
      db,
      `INSERT OR IGNORE INTO oauth_outstanding_access_tokens (token_id, app_id, hub_id, install_id, grant_id, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    revoked: cachedStatement(db, 'DELETE FROM oauth_outstanding_access_tokens WHERE token_id = ?'),
    ofInstall: cachedStatement(db, 'DELETE FROM oauth_outstanding_access_tokens WHERE install_id = ?'),
    ofGrant: cachedStatement(db, 'DELETE FROM oauth_outstanding_access_tokens WHERE grant_id = ?'),
    clockReset: cachedStatement(
      db,
      'UPDATE oauth_outstanding_access_tokens SET expires_at = expires_at - ? WHERE app_id = ? AND hub_id = ?',
    ),
    prune: cachedStatement(db, 'DELETE FROM oauth_outstanding_access_tokens WHERE expires_at <= ?'),
  };
}
