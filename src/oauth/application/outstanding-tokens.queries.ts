import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { InstallClocks } from '../../platform/clock';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';

/** How many tokens of an install may still work, and until when: counts and times, never a token. */
export interface OutstandingTokensView {
  /** Access tokens not expired (on the install's clock), revoked or expired by an admin. */
  accessTokens: number;
  /** The latest of their expiries (on the install's clock); null when there is none. */
  latestAccessTokenExpiresAt: number | null;
  /** Refresh tokens not deleted, of the current install (they do not expire on their own). */
  refreshTokens: number;
}

/**
 * Tokens outstanding per install, from the OAuth read models (OutstandingTokensProjection's rows and
 * the refresh-token table), at the install's own clock now.
 */
@Injectable()
export class OutstandingTokensQueries {
  private stmts: ReturnType<OutstandingTokensQueries['prepare']> | null = null;

  constructor(
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
    private readonly clocks: InstallClocks,
  ) {}

  // Prepared on first use: the projections create the tables when the runner starts.
  private get s() {
    return (this.stmts ??= this.prepare());
  }

  private prepare() {
    return {
      access: cachedStatement(
        this.db,
        `SELECT count(*) AS n, max(expires_at) AS latest FROM oauth_outstanding_access_tokens
         WHERE app_id = ? AND hub_id = ? AND expires_at > ?`,
      ),
      refresh: cachedStatement(
        this.db,
        `SELECT count(*) AS n FROM oauth_refresh_tokens t
         JOIN oauth_installs i ON i.app_id = t.app_id AND i.hub_id = t.hub_id AND i.install_id = t.install_id
         WHERE t.app_id = ? AND t.hub_id = ? AND t.deleted_at IS NULL AND i.uninstalled_at IS NULL`,
      ),
    };
  }

  of(appId: number, hubId: number): OutstandingTokensView {
    const access = this.s.access.get(appId, hubId, this.clocks.nowFor(appId, hubId)) as {
      n: number;
      latest: number | null;
    };
    const refresh = this.s.refresh.get(appId, hubId) as { n: number };
    return { accessTokens: access.n, latestAccessTokenExpiresAt: access.latest, refreshTokens: refresh.n };
  }
}
