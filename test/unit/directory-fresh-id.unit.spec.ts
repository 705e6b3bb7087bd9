import { withFreshId, FRESH_ID_POLICY } from '../../src/directory/application/fresh-id';
import { IdTaken } from '../../src/directory/domain/directory-deciders';
import { ConcurrencyConflictError } from '../../src/platform/commands/concurrency-conflict-error';

describe('fresh ids', () => {
  it('draws another id when the step finds its id taken', async () => {
    const tried: number[] = [];
    const id = await withFreshId('directory.app', async (candidate) => {
      tried.push(candidate);
      if (tried.length < 3) throw new IdTaken();
      return candidate;
    });
    expect(tried).toHaveLength(3);
    expect(new Set(tried).size).toBe(3);
    expect(id).toBe(tried[2]);
    for (const t of tried) expect(t >= 10_000_000 && t <= 2_147_483_647).toBe(true);
  });

  it('gives up with 409 after the policy’s attempts', async () => {
    let attempts = 0;
    const run = withFreshId('directory.app', async () => {
      attempts++;
      throw new IdTaken();
    });
    await expect(run).rejects.toBeInstanceOf(ConcurrencyConflictError);
    expect(attempts).toBe(FRESH_ID_POLICY.maxAttempts);
  });

  it('passes any other error through at once', async () => {
    let attempts = 0;
    const run = withFreshId('directory.app', async () => {
      attempts++;
      throw new Error('boom');
    });
    await expect(run).rejects.toThrow('boom');
    expect(attempts).toBe(1);
  });
});
