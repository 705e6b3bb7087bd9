import { Authenticated } from '../../platform/http/authentication';

/**
 * Who may call the journal: an app token (client_credentials) holding one of the route's scopes,
 * by the names of HubSpot's spec (`webhooks-journal-*`) or of its guide (`developer.webhooks_journal.*`).
 */
export const JournalRead = () =>
  Authenticated({ by: 'app', scopes: ['webhooks-journal-data-access', 'developer.webhooks_journal.read'] });

export const SubscriptionsRead = () =>
  Authenticated({
    by: 'app',
    scopes: [
      'webhooks-journal-subscription-read',
      'webhooks-journal-subscription-management',
      'developer.webhooks_journal.subscriptions.read',
      'developer.webhooks_journal.subscriptions.write',
    ],
  });

export const SubscriptionsWrite = () =>
  Authenticated({
    by: 'app',
    scopes: ['webhooks-journal-subscription-management', 'developer.webhooks_journal.subscriptions.write'],
  });

export const SnapshotsRead = () =>
  Authenticated({
    by: 'app',
    scopes: [
      'webhooks-journal-snapshot-management',
      'developer.webhooks_journal.snapshots.read',
      'developer.webhooks_journal.snapshots.write',
    ],
  });

export const SnapshotsWrite = () =>
  Authenticated({
    by: 'app',
    scopes: ['webhooks-journal-snapshot-management', 'developer.webhooks_journal.snapshots.write'],
  });
