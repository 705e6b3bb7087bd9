// Child process of test/integration/archive-crash.int.spec.ts, on the built service (dist/).
//   seed <dataDir> <count>            access-token and authorization-code streams, 10 days old
//   archive <dataDir> [step] [batch]  archive batches; with a step, kill -9 itself there in that batch
//   reconcile <dataDir>               a restart's reconcile only, then a clean shutdown
'use strict';
require('reflect-metadata');
const { join } = require('node:path');
const { randomUUID } = require('node:crypto');
const dist = join(__dirname, '..', '..', 'dist');
const { createApp } = require(join(dist, 'app.factory'));
const { loadConfig } = require(join(dist, 'platform/config/config'));
const { featureModules } = require(join(dist, 'feature-modules'));
const { SqliteEventStore } = require(join(dist, 'platform/event-store/sqlite-event-store'));
const { HistoryArchiveService } = require(join(dist, 'ops'));
const { ProjectionRunner } = require(join(dist, 'platform/projections/projection-runner'));
const { createLogger } = require(join(dist, 'platform/logging/logger'));

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
const DAY = 86_400_000;
const [mode, dataDir, arg1, arg2] = process.argv.slice(2);

const meta = (occurredAt) => ({
  eventId: randomUUID(),
  correlationId: randomUUID(),
  causationId: null,
  actor: 'app:1',
  occurredAt,
});

async function seed(count) {
  const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
  for (let i = 0; i < count; i++) {
    const at = T0 + i * 1000;
    const tokenId = `t${String(i).padStart(10, '0')}`;
    if (i % 5 === 4) {
      const codeHash = `${String(i).padStart(64, '0')}`;
      await store.append(
        `oauth.auth-code-${codeHash}`,
        [
          {
            type: 'oauth.AuthorizationCodeIssued',
            data: { codeHash, expiresAt: at + 300_000, issuedAt: at },
            metadata: meta(at),
          },
          {
            type: 'oauth.AuthorizationCodeRedeemed',
            data: { codeHash, refreshTokenHash: 'r'.repeat(64), redeemedAt: at + 1 },
            metadata: meta(at + 1),
          },
        ],
        'no_stream',
      );
      continue;
    }
    await store.append(
      `oauth.access-token-${String(Math.floor(at / 1000)).padStart(10, '0')}-${tokenId}`,
      [
        {
          type: 'oauth.AccessTokenIssued',
          data: {
            tokenId,
            grantType: 'refresh_token',
            refreshTokenHash: 'r'.repeat(64),
            appId: 1,
            hubId: 2,
            userId: 3,
            installId: 'i',
            issuedAt: at,
            expiresAt: at + 1_800_000,
          },
          metadata: meta(at),
        },
      ],
      'no_stream',
    );
  }
  await store.close();
}

async function service(batch) {
  const clock = { now: () => T0 + 10 * DAY }; // the service's time, held still
  const config = loadConfig({
    ADMIN_API_KEY: 'archive-crash-admin-key-0123456789',
    SEED: 'none',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    AUDIT_RETENTION_DAYS: '7',
    ARCHIVE_INTERVAL_MS: '0',
    ARCHIVE_BATCH_EVENTS: batch ?? '40',
  });
  const app = await createApp({ config, clock, modules: featureModules(), logger: createLogger('silent') });
  await app.get(ProjectionRunner).waitForHead();
  return app;
}

async function main() {
  if (mode === 'seed') return seed(Number(arg1));
  const app = await service(arg2);
  const archive = app.get(HistoryArchiveService);
  if (mode === 'reconcile') {
    process.stdout.write(JSON.stringify(await archive.archiver.reconcile()) + '\n');
  } else {
    let batches = 0;
    archive.crashPoint = (step) => {
      // Crash in the second batch, so an earlier batch is complete.
      if (step === arg1 && batches === 1) process.kill(process.pid, 'SIGKILL');
      if (step === 'recorded') batches += 1;
    };
    process.stdout.write(`archived ${await archive.runUntilCaughtUp()}\n`);
  }
  await app.close();
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
