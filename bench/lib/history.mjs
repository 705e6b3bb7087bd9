// Event history written straight into the service's SQLite store file (the schema comes from the
// built SqliteEventStore itself), for the scenarios whose setup would otherwise dwarf what they
// measure: 100,000 installs for the migration, 1,000,000 events for the start-up.
import Database from 'better-sqlite3';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './service.mjs';

const require = createRequire(import.meta.url);

const sha256Hex = (s) => createHash('sha256').update(s).digest('hex');
const hex = (bytes) => randomBytes(bytes).toString('hex');

/** Creates the store file with the service's own schema, then appends events in large transactions. */
export class HistoryWriter {
  constructor(dataDir) {
    const file = join(dataDir, 'events.sqlite');
    const { SqliteEventStore } = require(join(ROOT, 'dist/platform/event-store/sqlite-event-store.js'));
    this.format = require(join(ROOT, 'dist/platform/event-store/sqlite-row-format.js'));
    const store = new SqliteEventStore(file);
    void store.close();
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.revisions = new Map();
    const last = this.db.prepare('SELECT stream_id, MAX(revision) AS r FROM events GROUP BY stream_id').all();
    for (const { stream_id, r } of last) this.revisions.set(stream_id, r);
    // The store's own row format (sqlite-row-format.ts): stream key, 16-byte event id, type id, packed metadata.
    this.insert = this.db.prepare(
      'INSERT INTO event_log (stream_key, stream_id, revision, event_id, type_id, data, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.addType = this.db.prepare('INSERT OR IGNORE INTO event_types (name) VALUES (?)');
    this.typeIdOf = this.db.prepare('SELECT id FROM event_types WHERE name = ?');
    this.typeIds = new Map();
    this.pending = [];
    this.count = 0;
  }

  append(streamId, type, data, { actor = 'bench:history', at = Date.now(), correlationId = randomUUID() } = {}) {
    const revision = (this.revisions.get(streamId) ?? -1) + 1;
    this.revisions.set(streamId, revision);
    const metadata = { eventId: randomUUID(), correlationId, causationId: null, actor, occurredAt: at };
    let typeId = this.typeIds.get(type);
    if (typeId === undefined) {
      this.addType.run(type);
      typeId = this.typeIdOf.get(type).id;
      this.typeIds.set(type, typeId);
    }
    const f = this.format;
    this.pending.push([
      f.streamKey(streamId),
      streamId,
      revision,
      f.storedEventId(metadata.eventId),
      typeId,
      JSON.stringify(data),
      f.packMetadata(metadata),
    ]);
    this.count += 1;
    if (this.pending.length >= 50_000) this.flush();
  }

  flush() {
    const rows = this.pending;
    this.pending = [];
    this.db.transaction(() => {
      for (const r of rows) this.insert.run(...r);
    })();
  }

  close() {
    this.flush();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.close();
  }
}

/** `accounts` accounts that installed the app: AccountCreated + AppInstalled each (the OAuth module's event). */
export function appendInstalls(writer, { appId, firstHubId, accounts, scopes, at }) {
  for (let i = 0; i < accounts; i++) {
    const hubId = firstHubId + i;
    writer.append(`directory.account-${hubId}`, 'directory.AccountCreated', {
      hubId,
      domain: `portal-${hubId}.example.com`,
      hublet: 'na1',
      tier: 'professional',
      createdAt: at,
    });
    writer.append(
      `oauth.install-${appId}-${hubId}`,
      'oauth.AppInstalled',
      { appId, hubId, installId: hex(8), installingUserId: 900_000 + i, scopes, installedAt: at },
      { actor: `user:${900_000 + i}`, at },
    );
  }
}

/**
 * A million events as a year of use would leave them: a developer app installed in `accounts`
 * accounts (users, installs, codes, refresh tokens, properties, a finished card migration), and
 * the rest access tokens issued by the refresh grant — by far the most frequent event.
 */
export function appendYearOfHistory(writer, { total = 1_000_000, accounts = 20_000, at = Date.now() } = {}) {
  const devHubId = 50_000_000;
  const appId = 60_000_000;
  const clientId = randomUUID();
  const scopes = ['oauth', 'crm.objects.contacts.read', 'crm.schemas.custom.read'];
  writer.append(`directory.account-${devHubId}`, 'directory.AccountCreated', {
    hubId: devHubId,
    domain: 'developer.example.com',
    hublet: 'na1',
    tier: 'enterprise',
    createdAt: at,
  });
  writer.append(`directory.app-${appId}`, 'directory.AppRegistered', {
    appId,
    developerHubId: devHubId,
    name: 'History app',
    clientId,
    clientSecretHash: sha256Hex(randomUUID()),
    redirectUrls: ['https://example.com/oauth-callback'],
    requiredScopes: scopes,
    optionalScopes: [],
    createdAt: at,
  });
  const legacyCardId = '70000001';
  const appCardId = '70000002';
  const definition = {
    title: 'Orders',
    fetch: {
      targetUrl: 'https://example.com/cards/orders',
      objectTypes: [{ name: 'contacts', propertiesToSend: ['email', 'firstname'] }],
    },
    display: { properties: [] },
    actions: { baseUrls: ['https://example.com'] },
  };
  writer.append(`cards.card-${legacyCardId}`, 'cards.LegacyCardCreated', {
    cardId: legacyCardId,
    appId,
    definition,
    createdAt: at,
    userId: 1,
  });
  writer.append(`cards.card-${appCardId}`, 'cards.AppCardCreated', {
    appCardId,
    appId,
    title: 'Orders',
    objectTypes: ['contacts'],
    createdAt: at,
  });

  const refreshTokens = [];
  for (let i = 0; i < accounts; i++) {
    const hubId = 1_000_000 + i;
    const userId = 2_000_000 + i;
    const installId = hex(8);
    const codeHash = sha256Hex(randomUUID());
    const refreshTokenHash = sha256Hex(randomUUID());
    const grant = { appId, clientId, hubId, userId, installId, installingUserId: userId, hublet: 'na1', scopes };
    writer.append(`directory.account-${hubId}`, 'directory.AccountCreated', {
      hubId,
      domain: `portal-${hubId}.example.com`,
      hublet: 'na1',
      tier: 'professional',
      createdAt: at,
    });
    writer.append(`directory.user-user${i}@example.com`, 'directory.UserCreated', {
      userId,
      email: `user${i}@example.com`,
      passwordHash: `scrypt$16384$8$1$${hex(16)}$${hex(32)}`,
      hubIds: [hubId],
      createdAt: at,
    });
    writer.append(`oauth.install-${appId}-${hubId}`, 'oauth.AppInstalled', {
      appId,
      hubId,
      installId,
      installingUserId: userId,
      scopes,
      installedAt: at,
    });
    writer.append(`oauth.auth-code-${codeHash}`, 'oauth.AuthorizationCodeIssued', {
      codeHash,
      ...grant,
      redirectUri: 'https://example.com/oauth-callback',
      codeChallenge: null,
      issuedAt: at,
      expiresAt: at + 300_000,
    });
    writer.append(`oauth.refresh-token-${refreshTokenHash}`, 'oauth.RefreshTokenIssued', {
      refreshTokenHash,
      codeHash,
      ...grant,
      issuedAt: at,
    });
    writer.append(`oauth.auth-code-${codeHash}`, 'oauth.AuthorizationCodeRedeemed', {
      codeHash,
      refreshTokenHash,
      redeemedAt: at,
    });
    writer.append(`limits.account-${hubId}`, 'limits.PropertyCreated', {
      hubId,
      objectTypeId: '0-1',
      property: {
        name: `loyalty_tier_${i % 7}`,
        label: 'Loyalty tier',
        type: 'string',
        fieldType: 'text',
        groupName: 'contactinformation',
        description: '',
        options: [],
        displayOrder: -1,
        hasUniqueValue: false,
        hidden: false,
        formField: false,
        externalOptions: false,
        referencedObjectType: null,
        calculationFormula: null,
      },
      calculated: false,
      createdUserId: userId,
      createdAt: at,
    });
    refreshTokens.push({ refreshTokenHash, hubId, userId, installId });
  }
  writer.append(`cards.migration-${legacyCardId}`, 'cards.MigrationStarted', {
    appId,
    legacyCardId,
    appCardId,
    allowDuplicateAppCardIds: false,
    startedAt: at,
    portals: accounts,
  });
  for (let i = 0; i < accounts; i++) {
    const hubId = 1_000_000 + i;
    writer.append(`cards.migration-${legacyCardId}-portal-${hubId}`, 'cards.PortalCardMigrated', {
      appId,
      legacyCardId,
      appCardId,
      hubId,
      views: [{ view: 'contacts', position: 0, cardId: appCardId }],
      migratedAt: at,
    });
  }
  writer.append(`cards.migration-${legacyCardId}`, 'cards.MigrationCompleted', {
    appId,
    legacyCardId,
    endedAt: at,
  });
  // Access tokens fill the rest: each refresh writes one audited AccessTokenIssued.
  for (let i = 0; writer.count < total; i++) {
    const t = refreshTokens[i % refreshTokens.length];
    const tokenId = hex(8);
    writer.append(
      // As src/oauth/domain/oauth-events.ts names them: issue second, then token id.
      `oauth.access-token-${String(Math.floor(at / 1000)).padStart(10, '0')}-${tokenId}`,
      'oauth.AccessTokenIssued',
      {
        tokenId,
        grantType: 'refresh_token',
        refreshTokenHash: t.refreshTokenHash,
        appId,
        hubId: t.hubId,
        userId: t.userId,
        installId: t.installId,
        issuedAt: at,
        expiresAt: at + 1_800_000,
      },
      { actor: `app:${appId}` },
    );
  }
}
