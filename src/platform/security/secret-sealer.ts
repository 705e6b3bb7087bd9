import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { AppConfig, SigningKey } from '../config/config';
import { signingKeysOf } from './signing-keys';

const FORMAT = 's1';
const INFO = 'hubspot-service:sealed-secret';

/**
 * Secrets the service must use again later but may not keep in plain form: an app's client secret,
 * which signs its webhook deliveries (HubSpot's X-HubSpot-Signature headers are made with it) but is
 * otherwise stored only hashed. Sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the
 * token signing keys, so every instance that can verify tokens can open them, and a key named by its
 * id: after a rotation old seals still open while their key stays in TOKEN_SIGNING_KEYS.
 * Format: `s1.<kid>.<iv>.<ciphertext>.<tag>` (base64url).
 */
export class SecretSealer {
  private readonly keys = new Map<string, Buffer>();
  /** The key new seals are made with (the first of TOKEN_SIGNING_KEYS). */
  readonly sealingKid: string;

  constructor(signingKeys: readonly SigningKey[]) {
    if (signingKeys.length === 0) throw new Error('SecretSealer needs at least one key');
    for (const k of signingKeys) {
      this.keys.set(k.kid, Buffer.from(hkdfSync('sha256', k.secret, Buffer.from(k.kid), INFO, 32)));
    }
    this.sealingKid = signingKeys[0]!.kid;
  }

  private static readonly byConfig = new WeakMap<AppConfig, SecretSealer>();

  /** One sealer per configuration (its keys are read once, on first use). */
  static forConfig(config: AppConfig): SecretSealer {
    let sealer = SecretSealer.byConfig.get(config);
    if (!sealer) SecretSealer.byConfig.set(config, (sealer = new SecretSealer(signingKeysOf(config))));
    return sealer;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.sealingKid)!, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [FORMAT, this.sealingKid, iv, body, cipher.getAuthTag()]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** The id of the key a seal was made with (null when it is not a seal). */
  static keyIdOf(sealed: string): string | null {
    const [format, kid] = sealed.split('.');
    return format === FORMAT && kid ? kid : null;
  }

  /** The plain secret, or null when the seal is malformed, tampered with, or of a key no longer held. */
  open(sealed: string): string | null {
    const [format, kid, iv, body, tag, ...rest] = sealed.split('.');
    if (format !== FORMAT || !kid || iv === undefined || body === undefined || !tag || rest.length > 0) return null;
    const key = this.keys.get(kid);
    if (!key) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
