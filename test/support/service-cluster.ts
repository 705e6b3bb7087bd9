import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeAccessToken, SigningKeyring } from '../../src/oauth/domain/access-token';
import { HttpFixtures } from './reliability-fixtures';
import { startService, waitForExit, type ServiceProcess } from './service-process';
import { TEST_ADMIN_KEY } from './test-app';

/**
 * Several service processes (dist/main.js) that act as one deployment: the same TOKEN_SIGNING_KEYS
 * and SESSION_SECRET, each its own DATA_DIR. What they share beyond that (the event store, the
 * counter store) is in the environment each test gives them.
 */
export class ServiceCluster {
  readonly instances: ServiceProcess[] = [];
  fx: HttpFixtures[] = [];
  private readonly secret = randomBytes(32);
  private readonly keyring: SigningKeyring;
  private readonly sessionSecret = randomBytes(32).toString('hex');
  private readonly dirs: string[] = [];

  constructor(private readonly kid: string) {
    this.keyring = new SigningKeyring([{ kid, secret: this.secret }]);
  }

  /** Starts one instance per environment, one after another, each with the shared settings. */
  async start(envs: Record<string, string>[]): Promise<void> {
    for (const env of envs) {
      const dir = mkdtempSync(join(tmpdir(), `hs-${this.kid}-`));
      this.dirs.push(dir);
      this.instances.push(
        await startService({
          SEED: 'none',
          ADMIN_API_KEY: TEST_ADMIN_KEY,
          TOKEN_SIGNING_KEYS: `${this.kid}:${this.secret.toString('base64')}`,
          SESSION_SECRET: this.sessionSecret,
          ...env,
          DATA_DIR: dir,
        }),
      );
    }
    this.fx = this.instances.map((s) => new HttpFixtures(s.url, TEST_ADMIN_KEY));
  }

  /** Kills every instance (those a test already killed included) and removes their data folders. */
  async stop(): Promise<void> {
    for (const s of this.instances) {
      s.child.kill('SIGKILL');
      await waitForExit(s.child);
    }
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }

  /** An access token signed with the shared key (what any instance's token endpoint would issue). */
  mint(claims: { hubId: number; appId: number; scopes: string[] }): string {
    return encodeAccessToken(
      {
        ...claims,
        userId: 1,
        installingUserId: 1,
        hublet: 'na1',
        issuedAt: Date.now(),
        expiresAt: Date.now() + 1_800_000,
      },
      this.keyring,
    ).token;
  }
}

/** Polls until `check` holds, at most `ms` (then fails naming `what`); resolves with the ms it took. */
export async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
