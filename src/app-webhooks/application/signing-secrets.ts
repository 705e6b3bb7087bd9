import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DirectoryQueries } from '../../directory/directory.queries';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { sha256Hex } from '../../platform/security/crypto';
import { SecretSealer } from '../../platform/security/secret-sealer';
import { ResealSigningSecretBusCommand } from './app-webhooks.commands';
import { WebhooksQueries } from './webhooks.queries';

/**
 * The client secret each app's deliveries are signed with. The directory seals it under the first
 * token signing key of its time; once TOKEN_SIGNING_KEYS is rotated (a new key first, the old one
 * kept for a while), `resealStale` seals every configured app's secret again under the new key, as
 * an event, so the deliveries stay signed after the old key is dropped. A client-secret rotation
 * seals anew in the directory, which makes the re-sealed copy stale (it names the seal it replaces).
 */
/** Opened seals kept at most (one per configured app, and the stale ones until the bound clears them). */
const OPENED_KEPT = 1000;

@Injectable()
export class WebhookSigningSecrets {
  private readonly logger = new Logger('Webhooks');
  /**
   * Seals already opened, by the seal: a request no longer opens its app's secret anew (the key
   * object and AES-GCM were a third of a millisecond a request). Keyed by the seal itself, so a
   * re-seal or a client-secret rotation is a new entry; kept in memory only, as each request held it.
   */
  private readonly opened = new Map<string, string | null>();

  constructor(
    private readonly directory: DirectoryQueries,
    private readonly queries: WebhooksQueries,
    private readonly commandBus: CommandBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The plain secret to sign with; null when the app has none sealed, or no held key opens it. */
  secretFor(appId: number): string | null {
    const sealed = this.currentSeal(appId);
    if (sealed === null) return null;
    let plain = this.opened.get(sealed);
    if (plain === undefined) {
      if (this.opened.size >= OPENED_KEPT) this.opened.clear();
      this.opened.set(sealed, (plain = this.sealer().open(sealed)));
    }
    return plain;
  }

  /**
   * Seals again, under the current key, the secret of every configured app whose seal was made with
   * another key (still held); warns of those no held key opens. Answers how many were re-sealed.
   */
  async resealStale(): Promise<number> {
    const sealer = this.sealer();
    let resealed = 0;
    for (const appId of this.queries.configuredAppIds()) {
      const original = this.directory.webhookSealedSecret(appId);
      const sealed = this.currentSeal(appId);
      if (original === null || sealed === null || SecretSealer.keyIdOf(sealed) === sealer.sealingKid) continue;
      const plain = sealer.open(sealed);
      if (plain === null) {
        this.logger.warn(
          `app ${appId}'s client secret was sealed with signing key ${SecretSealer.keyIdOf(sealed) ?? '?'}, ` +
            'no longer in TOKEN_SIGNING_KEYS: its webhook deliveries go unsigned until its client secret is rotated',
        );
        continue;
      }
      await this.commandBus.execute(
        new ResealSigningSecretBusCommand(
          { type: 'ResealSigningSecret', appId, sealed: sealer.seal(plain), replaces: sha256Hex(original) },
          { correlationId: randomUUID(), causationId: null, actor: 'system:webhooks-dispatcher' },
        ),
      );
      resealed++;
    }
    if (resealed > 0)
      this.logger.log(`${resealed} apps' client secrets sealed again under signing key ${sealer.sealingKid}`);
    return resealed;
  }

  /** Webhooks' re-sealed copy while it stands for the directory's seal, else the directory's. */
  private currentSeal(appId: number): string | null {
    const original = this.directory.webhookSealedSecret(appId);
    if (original === null) return null;
    const resealed = this.queries.resealedSecret(appId);
    return resealed !== null && resealed.replaces === sha256Hex(original) ? resealed.sealed : original;
  }

  private sealer(): SecretSealer {
    return SecretSealer.forConfig(this.config);
  }
}
