import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt with a per-password salt; the stored string carries its parameters so they can change later. */
const N = 16384;
const r = 8;
const p = 1;
const KEYLEN = 32;

function scryptAsync(password: string, salt: Buffer, n: number, rr: number, pp: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEYLEN, { N: n, r: rr, p: pp, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, rr, pp, salt, key] = parts;
  const expected = Buffer.from(key!, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt!, 'base64'), Number(n), Number(rr), Number(pp));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Same cost as a real check, for unknown users: sign-in time does not reveal which e-mails exist. */
export const DUMMY_PASSWORD_HASH = `scrypt$${N}$${r}$${p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;
