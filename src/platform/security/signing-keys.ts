import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig, SigningKey } from '../config/config';
import { StartupRefusal } from '../core/startup-refusal';
import { fsyncPath } from '../fsync-path';
import { makePrivateDataDir, makePrivateFile } from './private-files';

/**
 * The HMAC keys of access tokens, the first one signing (the keyring is the OAuth module's): from
 * TOKEN_SIGNING_KEYS, or, for a single-instance deployment without it, a key generated once and kept
 * (mode 0600, narrowed at each start) in DATA_DIR, so tokens survive a restart.
 */
export function signingKeysOf(config: AppConfig): SigningKey[] {
  return config.signingKeys ?? [loadOrCreateLocalKey(config.dataDir, 'signing-key.json')];
}

/**
 * A key kept in DATA_DIR: read and checked like TOKEN_SIGNING_KEYS (a key id, a secret of at least
 * 32 bytes), or generated once. A file that fails the check stops start-up with one sentence naming
 * it (an empty secret would let anyone forge tokens). Written whole or not at all (temp file, then
 * rename), so a full disk never leaves an empty key file behind.
 */
export function loadOrCreateLocalKey(dataDir: string, file: string): SigningKey {
  const path = join(dataDir, file);
  if (existsSync(path)) {
    // A key restored from a backup or copied in 0644 is narrowed like the database files.
    makePrivateFile(path);
    return parseKeyFile(path, readFileSync(path, 'utf8'));
  }
  makePrivateDataDir(dataDir);
  const key = { kid: `k${randomBytes(3).toString('hex')}`, secret: randomBytes(32) };
  const tmp = `${path}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ kid: key.kid, secret: key.secret.toString('base64') }), { mode: 0o600 });
    fsyncPath(tmp);
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  fsyncPath(dataDir);
  return key;
}

const KID = /^[A-Za-z0-9_-]{1,16}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function parseKeyFile(path: string, text: string): SigningKey {
  const refuse = (why: string) =>
    new StartupRefusal(
      `${path} is not a usable key file (${why}): restore it from a backup, or delete it to have a new key generated (tokens or sessions made with the old key then stop working).`,
    );
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    throw refuse(text.trim() === '' ? 'it is empty' : 'it is not JSON');
  }
  if (typeof stored !== 'object' || stored === null) throw refuse('it is not a JSON object');
  const { kid, secret } = stored as { kid?: unknown; secret?: unknown };
  if (typeof kid !== 'string' || !KID.test(kid)) throw refuse('"kid" must be 1-16 of A-Z a-z 0-9 _ -');
  if (typeof secret !== 'string' || !BASE64.test(secret)) throw refuse('"secret" must be base64');
  const bytes = Buffer.from(secret, 'base64');
  if (bytes.length < 32) throw refuse('"secret" must be at least 32 bytes once base64-decoded');
  return { kid, secret: bytes };
}
