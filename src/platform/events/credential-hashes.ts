import type { RecordedEvent } from './envelope';
import { eventTypes } from './event-type-registry';

/**
 * Hashes of credentials a caller presents (passwords, client secrets, developer API keys): kept in
 * the store for sign-in and client authentication, never handed out, even to the admin (a scrypt
 * hash can be attacked offline): not by the events API, not by audit:export. Hashes of codes and
 * refresh tokens stay: they are those streams' ids, already in `streamId`, and how a token's
 * history is followed.
 */
export const CREDENTIAL_HASHES: ReadonlySet<string> = new Set([
  'passwordHash',
  'clientSecretHash',
  // Sealed, not hashed (webhook signatures need the secret): still nothing to hand out.
  'clientSecretSealed',
  'keyHash',
]);

/** The event with its data's credential hashes left out (the same object when it has none). */
export function withoutCredentialHashes<E extends { data: unknown }>(event: E): E {
  if (typeof event.data !== 'object' || event.data === null) return event;
  const entries = Object.entries(event.data as Record<string, unknown>);
  if (!entries.some(([key]) => CREDENTIAL_HASHES.has(key))) return event;
  return { ...event, data: Object.fromEntries(entries.filter(([key]) => !CREDENTIAL_HASHES.has(key))) };
}

/**
 * An event as the audit trail shows it (the events API, audit:export, the console): decoded to its
 * current domain shape (hot types are stored compactly), credential hashes left out.
 */
export function auditView(event: RecordedEvent): RecordedEvent {
  return withoutCredentialHashes(eventTypes.has(event.type) ? eventTypes.decode(event) : event);
}
