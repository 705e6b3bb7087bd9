import { type AppClientSecretRotated, DirectoryEventType } from '../../directory/directory.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Reactor } from '../../platform/projections/projection';
import { type SigningSecretResealed, WebhooksEventType } from '../domain/webhook-events';

type SecretEvent = AppClientSecretRotated | SigningSecretResealed;

/**
 * The apps' client secrets on the delivery thread, asked of the API's thread (which holds the keys
 * that open them) once per app and kept until the feed shows an event that changes one: a rotation
 * or a re-seal. Then the next ask names that event's position, and the API's thread answers once its
 * read models hold it, so the new secret is what comes back. A request already signed keeps the
 * secret of its time, as it would have on HubSpot.
 */
export class SigningSecretCache implements Reactor<SecretEvent> {
  readonly name = 'webhooks-signing-secrets';
  readonly handles: readonly SecretEvent['type'][] = [
    DirectoryEventType.AppClientSecretRotated,
    WebhooksEventType.SigningSecretResealed,
  ];
  /** appId -> the secret (a promise: concurrent first asks share one question). */
  private readonly secrets = new Map<number, Promise<string | null>>();
  /** appId -> the position of the last change seen, which the next ask must include. */
  private readonly changedAt = new Map<number, number>();

  constructor(private readonly ask: (appId: number, reached: number) => Promise<string | null>) {}

  handle(event: Recorded<SecretEvent>): Promise<void> {
    this.secrets.delete(event.data.appId);
    this.changedAt.set(event.data.appId, event.position);
    return Promise.resolve();
  }

  secret(appId: number): Promise<string | null> {
    let secret = this.secrets.get(appId);
    if (secret === undefined) {
      const asked = this.ask(appId, this.changedAt.get(appId) ?? 0);
      this.secrets.set(appId, (secret = asked));
      // A failed ask is not kept: the next request asks again.
      asked.catch(() => {
        if (this.secrets.get(appId) === asked) this.secrets.delete(appId);
      });
    }
    return secret;
  }
}
