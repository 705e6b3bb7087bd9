import { loadConfig } from '../../src/platform/config/config';
import { configSecrets, LogSecrets, logSecretsOf } from '../../src/platform/logging/log-secrets';
import { createLogger } from '../../src/platform/logging/logger';

/** Issue 41, item 9: secret values redacted from every line by value, in any field. */
describe('LogSecrets', () => {
  it('redacts every known value from any field of any line, the JSON-escaped spelling included', () => {
    const lines: string[] = [];
    const secrets = new LogSecrets().add('admin-key-with-"quote"-and-\\');
    const logger = createLogger('info', { write: (l) => void lines.push(l) }, { secrets });
    logger.info(
      { anything: 'admin-key-with-"quote"-and-\\', nested: { deep: 'x admin-key-with-"quote"-and-\\ y' } },
      'm',
    );
    // Added later (the generated admin key): the same stream redacts it from then on, children included.
    logSecretsOf(logger)!.add('later-secret-0123456789');
    logger.child({ c: 1 }).warn(`said later-secret-0123456789 twice: later-secret-0123456789`);
    const log = lines.join('');
    expect(log).not.toContain('admin-key-with');
    expect(log).not.toContain('later-secret');
    expect(log.match(/\[REDACTED\]/g)).toHaveLength(4);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('leaves short values alone (a short token must not blank common words)', () => {
    expect(new LogSecrets().add('abc', null, undefined).redact('abc abc')).toBe('abc abc');
  });

  it('knows the secrets of a configuration', () => {
    const config = loadConfig({
      ADMIN_API_KEY: 'admin-key-0123456789',
      SEED: 'none',
      METRICS_TOKEN: 'metrics-token-xyz',
      SESSION_SECRET: 's'.repeat(40),
      TOKEN_SIGNING_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
      COUNTER_STORE_URL: 'redis://:redis-pass%2Fword@127.0.0.1:6379',
    });
    const secrets = configSecrets(config);
    expect(secrets).toEqual(
      expect.arrayContaining([
        'admin-key-0123456789',
        'metrics-token-xyz',
        's'.repeat(40),
        Buffer.alloc(32, 7).toString('base64'),
        'redis-pass%2Fword',
        'redis-pass/word',
      ]),
    );
  });
});
