import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CLOCK, type Clock } from '../../platform/clock';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { AccessTokenRevocations, INSTALL_FLOOR_RETENTION_MS } from '../application/access-token-verifier';
import { grantIdOf } from '../domain/access-token';
import {
  AccessTokenRevoked,
  AppUninstalled,
  InstallAccessTokensExpired,
  OAuthEventType,
  RefreshTokenDeleted,
} from '../domain/oauth-events';

type ProjectedEvent = AccessTokenRevoked | AppUninstalled | InstallAccessTokensExpired | RefreshTokenDeleted;

/** Rows that can no longer stop a token are deleted at most this often (clock time) while events arrive. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Feeds the in-memory AccessTokenRevocations from the checkpointed feed, and keeps the same facts
 * in two small tables so a restart reloads them instead of replaying the history. Rows are loaded
 * only while they can still stop a token; dead ones are deleted at start-up and, on a long-running
 * instance, by apply every PRUNE_EVERY_MS (only rows that no longer change any verdict go, so what
 * the clock decides here never changes what the read model answers).
 */
@Injectable()
export class AccessTokenRevocationsProjection implements Projection<ProjectedEvent> {
  readonly handles: readonly ProjectedEvent['type'][] = [
    OAuthEventType.AccessTokenRevoked,
    OAuthEventType.AppUninstalled,
    OAuthEventType.InstallAccessTokensExpired,
    // Only a replay of the code (authorization_code_replayed) revokes the grant's access tokens;
    // other deletions leave them valid (HubSpot's behaviour).
    OAuthEventType.RefreshTokenDeleted,
  ];
  readonly name = 'oauth-access-token-revocations';
  readonly version = 1;
  private stmts: ReturnType<typeof prepare> | null = null;
  private db: Database.Database | null = null;
  private nextPrune = 0;

  constructor(
    private readonly revocations: AccessTokenRevocations,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS oauth_revoked_access_tokens (
        token_id   TEXT    PRIMARY KEY,
        expires_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS oauth_install_token_floors (
        install_id TEXT    NOT NULL,
        kind       TEXT    NOT NULL,
        at         INTEGER NOT NULL,
        PRIMARY KEY (install_id, kind)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS oauth_revoked_grants (
        grant_id   TEXT    PRIMARY KEY,
        revoked_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
    // The era of the install's clock an expiry was on (issue 41, item 4); rows written before it: 0.
    const floorColumns = db.prepare('PRAGMA table_info(oauth_install_token_floors)').all() as { name: string }[];
    if (!floorColumns.some((c) => c.name === 'epoch')) {
      db.exec('ALTER TABLE oauth_install_token_floors ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0');
    }
    this.prune(db);
    this.revocations.clear();
    for (const r of cachedStatement(db, 'SELECT token_id, expires_at FROM oauth_revoked_access_tokens').all() as {
      token_id: string;
      expires_at: number;
    }[]) {
      this.revocations.revokeToken(r.token_id, r.expires_at);
    }
    for (const r of cachedStatement(db, 'SELECT install_id, kind, at, epoch FROM oauth_install_token_floors').all() as {
      install_id: string;
      kind: 'closed' | 'expired';
      at: number;
      epoch: number;
    }[]) {
      if (r.kind === 'closed') this.revocations.closeInstall(r.install_id, r.at);
      else this.revocations.expireInstallTokens(r.install_id, r.at, r.epoch);
    }
    for (const r of cachedStatement(db, 'SELECT grant_id, revoked_at FROM oauth_revoked_grants').all() as {
      grant_id: string;
      revoked_at: number;
    }[]) {
      this.revocations.revokeGrant(r.grant_id, r.revoked_at);
    }
  }

  reset(db: Database.Database): void {
    db.exec(
      'DELETE FROM oauth_revoked_access_tokens; DELETE FROM oauth_install_token_floors; DELETE FROM oauth_revoked_grants;',
    );
    this.revocations.clear();
  }

  apply(e: Recorded<ProjectedEvent>, db: Database.Database): void {
    if (this.db !== db || !this.stmts) {
      this.db = db;
      this.stmts = prepare(db);
    }
    switch (e.type) {
      case OAuthEventType.AccessTokenRevoked:
        this.stmts.revoke.run(e.data.tokenId, e.data.expiresAt);
        this.revocations.revokeToken(e.data.tokenId, e.data.expiresAt);
        break;
      case OAuthEventType.AppUninstalled:
        this.stmts.floor.run(e.data.installId, 'closed', e.data.uninstalledAt, 0);
        this.revocations.closeInstall(e.data.installId, e.data.uninstalledAt);
        break;
      case OAuthEventType.InstallAccessTokensExpired:
        this.stmts.floor.run(e.data.installId, 'expired', e.data.expiredAt, e.data.clockEpoch ?? 0);
        this.revocations.expireInstallTokens(e.data.installId, e.data.expiredAt, e.data.clockEpoch ?? 0);
        break;
      case OAuthEventType.RefreshTokenDeleted:
        if (e.data.reason !== 'authorization_code_replayed') break;
        this.stmts.grant.run(grantIdOf(e.data.refreshTokenHash), e.data.deletedAt);
        this.revocations.revokeGrant(grantIdOf(e.data.refreshTokenHash), e.data.deletedAt);
        break;
    }
    if (this.clock.now() >= this.nextPrune) this.prune(db);
  }

  /** Deletes the rows whose tokens have all expired on their own (same bounds as the in-memory set). */
  private prune(db: Database.Database): void {
    const now = this.clock.now();
    this.nextPrune = now + PRUNE_EVERY_MS;
    cachedStatement(db, 'DELETE FROM oauth_revoked_access_tokens WHERE expires_at <= ?').run(now);
    cachedStatement(db, 'DELETE FROM oauth_install_token_floors WHERE at <= ?').run(now - INSTALL_FLOOR_RETENTION_MS);
    cachedStatement(db, 'DELETE FROM oauth_revoked_grants WHERE revoked_at <= ?').run(now - INSTALL_FLOOR_RETENTION_MS);
  }
}

function prepare(db: Database.Database) {
  return {
    revoke: cachedStatement(
      db,
      'INSERT OR IGNORE INTO oauth_revoked_access_tokens (token_id, expires_at) VALUES (?, ?)',
    ),
    floor: cachedStatement(
      db,
      `INSERT INTO oauth_install_token_floors (install_id, kind, at, epoch) VALUES (?, ?, ?, ?)
       ON CONFLICT (install_id, kind) DO UPDATE SET
         at = CASE WHEN excluded.epoch > epoch THEN excluded.at WHEN excluded.epoch = epoch THEN max(at, excluded.at) ELSE at END,
         epoch = max(epoch, excluded.epoch)`,
    ),
    grant: cachedStatement(
      db,
      `INSERT INTO oauth_revoked_grants (grant_id, revoked_at) VALUES (?, ?)
       ON CONFLICT (grant_id) DO UPDATE SET revoked_at = max(revoked_at, excluded.revoked_at)`,
    ),
  };
}
