import { versionedPaths, versionOfRoute } from '../../src/platform/http/api-versions';

describe('versioned routes', () => {
  const paths = versionedPaths({
    v3: 'crm/v3/test-limits',
    '2026-03': '/crm/test-limits/2026-03/',
    '2026-09': ['crm/test-limits/2026-09', 'crm/test-limits-alias/2026-09'],
  });

  it('lists every version’s prefix once, without slashes at the ends', () => {
    expect(paths).toEqual([
      'crm/v3/test-limits',
      'crm/test-limits/2026-03',
      'crm/test-limits/2026-09',
      'crm/test-limits-alias/2026-09',
    ]);
  });

  it('tells the version from the matched route pattern, by the longest declared prefix', () => {
    expect(versionOfRoute('/crm/v3/test-limits/calculated-properties')).toBe('v3');
    expect(versionOfRoute('/crm/test-limits/2026-03/custom-object-types')).toBe('2026-03');
    expect(versionOfRoute('/crm/test-limits-alias/2026-09')).toBe('2026-09');
    expect(versionOfRoute('/crm/test-limits/2026-030/x')).toBeUndefined();
    expect(versionOfRoute('/elsewhere')).toBeUndefined();
  });

  it('refuses one prefix declared for two versions', () => {
    expect(() => versionedPaths({ '2026-09': 'crm/v3/test-limits' })).toThrow(/declared for v3 and 2026-09/);
  });
});
