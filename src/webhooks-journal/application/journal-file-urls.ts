import { Inject, Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { CLOCK, type Clock } from '../../platform/clock';
import { APP_CONFIG, type AppConfig, type SigningKey } from '../../platform/config/config';
import { constantTimeEqual } from '../../platform/security/crypto';
import { signingKeysOf } from '../../platform/security/signing-keys';

/** How long a journal file URL works (HubSpot's pre-signed URLs are short-lived; its exact TTL is not documented). */
export const FILE_URL_TTL_MS = 15 * 60 * 1000;

export const JOURNAL_FILES_PATH = 'webhooks-journal/files/2026-03';

/**
 * The pre-signed URLs of journal entry files, served by this service itself
 * (`GET /webhooks-journal/files/2026-03/{offset}`): HMAC-SHA256 with the service's signing keys
 * (the first signs, every one verifies, so keys rotate as the access tokens' do), over the app,
 * the offset and the expiry, under a prefix of its own so no access-token signature can be
 * replayed as one. Requested without an Authorization header, as HubSpot's are.
 */
@Injectable()
export class JournalFileUrls {
  private readonly keys: SigningKey[];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.keys = signingKeysOf(config);
  }

  /** A URL of the entry's file and when it stops working (service time, epoch ms). */
  sign(appId: number, offset: string): { url: string; expiresAt: number } {
    const expiresAt = this.clock.now() + FILE_URL_TTL_MS;
    const key = this.keys[0]!;
    const query = new URLSearchParams({
      appId: String(appId),
      expires: String(expiresAt),
      kid: key.kid,
      signature: mac(key.secret, appId, offset, expiresAt),
    });
    return { url: `${this.config.publicUrl}/${JOURNAL_FILES_PATH}/${offset}?${query}`, expiresAt };
  }

  /** The app a URL was signed for, or null when it is forged, altered or expired. */
  verify(offset: string, query: Record<string, unknown>): number | null {
    const { appId, expires, kid, signature } = query;
    if (typeof appId !== 'string' || !/^[1-9][0-9]{0,15}$/.test(appId)) return null;
    if (typeof expires !== 'string' || !/^[0-9]{1,16}$/.test(expires)) return null;
    if (typeof signature !== 'string' || typeof kid !== 'string') return null;
    const key = this.keys.find((k) => k.kid === kid);
    if (key === undefined) return null;
    if (!constantTimeEqual(mac(key.secret, Number(appId), offset, Number(expires)), signature)) return null;
    return Number(expires) > this.clock.now() ? Number(appId) : null;
  }
}

const mac = (secret: Buffer, appId: number, offset: string, expiresAt: number) =>
  createHmac('sha256', secret).update(`webhooks-journal-file.${appId}.${offset}.${expiresAt}`).digest('base64url');
