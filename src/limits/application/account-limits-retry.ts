import type { RetryPolicy } from '../../platform/commands/retry-policy';

/**
 * Every write of an account goes through one stream, so a burst of concurrent writes on one
 * account (16 property creates at once) loses the expected-revision race more often than the
 * default policy allows for: each round one writer wins, so allow two rounds per writer.
 */
export const ACCOUNT_LIMITS_RETRY_POLICY: RetryPolicy = { maxAttempts: 32 };
