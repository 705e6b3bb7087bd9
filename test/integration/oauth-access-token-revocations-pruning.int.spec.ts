import Database from 'better-sqlite3';
import { AccessTokenRevocations, INSTALL_FLOOR_RETENTION_MS } from '../../src/oauth/application/access-token-verifier';
import type { AccessTokenClaims } from '../../src/oauth/domain/access-token';
import { OAuthEventType } from '../../src/oauth/domain/oauth-events';
import { AccessTokenRevocationsProjection } from '../../src/oauth/projections/access-token-revocations.projection';
import { ManualClock } from '../../src/platform/clock';

const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);
const TTL = 1_800_000;
let position = 0;

const recorded = <T extends string, D>(type: T, data: D) => ({
  type,
  data,
  streamId: 'oauth-test',
  revision: position,
  position: ++position,
  metadata: { eventId: `e${position}`, correlationId: 'c', causationId: null, actor: 'admin', occurredAt: 0 },
});
const revoked = (tokenId: string, expiresAt: number) =>
  recorded(OAuthEventType.AccessTokenRevoked, { tokenId, appId: 7, expiresAt, revokedAt: expiresAt - TTL });
const uninstalled = (installId: string, at: number) =>
  recorded(OAuthEventType.AppUninstalled, { appId: 7, hubId: 9, installId, uninstalledAt: at });
const expired = (installId: string, at: number) =>
  recorded(OAuthEventType.InstallAccessTokensExpired, { appId: 7, hubId: 9, installId, expiredAt: at });

const claims = (over: Partial<AccessTokenClaims>): AccessTokenClaims => ({
  tokenId: '0000000000000000',
  hubId: 9,
  userId: 3,
  appId: 7,
  installingUserId: 3,
  appInstallId: 'zzzzzzzzzzzzzzzz',
  hublet: 'na1',
  issuedAt: T0,
  expiresAt: T0 + TTL,
  scopes: ['oauth'],
  ...over,
});

const tokenRows = (db: Database.Database) =>
  (
    db.prepare('SELECT token_id FROM oauth_revoked_access_tokens ORDER BY token_id').all() as { token_id: string }[]
  ).map((r) => r.token_id);
const floorRows = (db: Database.Database) =>
  (
    db.prepare('SELECT install_id, kind FROM oauth_install_token_floors ORDER BY install_id').all() as {
      install_id: string;
      kind: string;
    }[]
  ).map((r) => `${r.install_id}:${r.kind}`);

/** The read-model tables lose their dead rows while the instance runs, not only at start-up. */
describe('AccessTokenRevocationsProjection: pruning on a long-running instance', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
  });
  afterEach(() => db.close());

  const start = (clock: ManualClock) => {
    const revocations = new AccessTokenRevocations(clock);
    const projection = new AccessTokenRevocationsProjection(revocations, clock);
    projection.setup(db);
    return { revocations, projection };
  };

  it('deletes revoked tokens past their expiry and floors past their retention as events arrive; live rows stay', () => {
    const clock = new ManualClock(T0);
    const { projection } = start(clock);
    projection.apply(revoked('aaaaaaaaaaaaaaaa', T0 + TTL), db);
    projection.apply(uninstalled('install-closed-1', T0), db);
    projection.apply(expired('install-expired1', T0), db);
    expect(tokenRows(db)).toEqual(['aaaaaaaaaaaaaaaa']);

    // Past the first token's expiry: the next event's apply prunes it, the new token and both floors stay.
    clock.advance(TTL + 1);
    projection.apply(revoked('bbbbbbbbbbbbbbbb', clock.now() + TTL), db);
    expect(tokenRows(db)).toEqual(['bbbbbbbbbbbbbbbb']);
    expect(floorRows(db)).toEqual(['install-closed-1:closed', 'install-expired1:expired']);

    // Past the floors' retention: they go too; a floor set now stays.
    clock.advance(INSTALL_FLOOR_RETENTION_MS);
    projection.apply(uninstalled('install-closed-2', clock.now()), db);
    expect(tokenRows(db)).toEqual([]);
    expect(floorRows(db)).toEqual(['install-closed-2:closed']);
  });

  it('a restart reloads the rows still live, so their tokens stay refused', () => {
    const clock = new ManualClock(T0);
    const first = start(clock);
    first.projection.apply(revoked('aaaaaaaaaaaaaaaa', T0 + TTL), db);
    first.projection.apply(revoked('cccccccccccccccc', T0 + 2 * TTL), db);
    first.projection.apply(uninstalled('install-closed-1', T0), db);
    first.projection.apply(expired('install-expired1', T0 + 400), db);
    clock.advance(TTL + 1);
    first.projection.apply(uninstalled('install-closed-2', clock.now()), db);
    expect(tokenRows(db)).toEqual(['cccccccccccccccc']);

    const second = start(clock); // a new process: empty memory, same read-model file
    const r = second.revocations;
    expect(r.verdict(claims({ tokenId: 'cccccccccccccccc', expiresAt: T0 + 2 * TTL }))).toEqual({ status: 'revoked' });
    expect(r.verdict(claims({ appInstallId: 'install-closed-1' }))).toEqual({ status: 'revoked' });
    expect(r.verdict(claims({ appInstallId: 'install-closed-2' }))).toEqual({ status: 'revoked' });
    expect(r.verdict(claims({ appInstallId: 'install-expired1' }))).toEqual({
      status: 'expired',
      expiredAt: T0 + 400,
      epoch: 0,
    });
    expect(r.verdict(claims({ tokenId: 'aaaaaaaaaaaaaaaa' }))).toBeNull();
    expect(r.size).toBe(4);
  });
});
