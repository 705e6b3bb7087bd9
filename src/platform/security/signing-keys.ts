import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig, SigningKey } from '../config/config';
import { makePrivateDataDir } from './private-files';

/**
 * HMAC keys for access tokens, by key id. The first signs; all verify, so keys rotate by
 * prepending a new one. Without TOKEN_SIGNING_KEYS a single-instance deployment gets a key
 * generated once and kept (mode 0600) in DATA_DIR, so tokens survive a restart.
 */
export class SigningKeyring {
  private readonly byKid: Map<string, Buffer>;
  constructor(readonly keys: SigningKey[]) {
    if (keys.length === 0) throw new Error('at least one signing key is needed');
    this.byKid = new Map(keys.map((k) => [k.kid, k.secret]));
  }

  get active(): SigningKey {
    return this.keys[0]!;
  }

  secretFor(kid: string): Buffer | undefined {
    return this.byKid.get(kid);
  }

  static fromConfig(config: AppConfig): SigningKeyring {
    if (config.signingKeys) return new SigningKeyring(config.signingKeys);
    return new SigningKeyring([loadOrCreateLocalKey(config.dataDir, 'signing-key.json')]);
  }
}

export function loadOrCreateLocalKey(dataDir: string, file: string): SigningKey {
  const path = join(dataDir, file);
  if (existsSync(path)) {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as { kid: string; secret: string };
    return { kid: stored.kid, secret: Buffer.from(stored.secret, 'base64') };
  }
  makePrivateDataDir(dataDir);
  const key = { kid: `k${randomBytes(3).toString('hex')}`, secret: randomBytes(32) };
  writeFileSync(path, JSON.stringify({ kid: key.kid, secret: key.secret.toString('base64') }), { mode: 0o600 });
  return key;
}
