/** Where an event's data names an account: these fields, or any of `hubIds`. */
const ACCOUNT_FIELDS = ['hubId', 'portalId', 'developerHubId'] as const;

const idOf = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return null;
};

/**
 * The accounts and apps an event concerns, as index subjects (`h<hubId>`, `a<appId>`): its data's
 * hubId, portalId, developerHubId and hubIds name accounts, its appId an app (numbers, or their
 * decimal strings). The audit trail's filter and its index both ask here.
 */
export function subjectsOf(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const d = data as Record<string, unknown>;
  const out = new Set<string>();
  for (const field of ACCOUNT_FIELDS) {
    const id = idOf(d[field]);
    if (id !== null) out.add(`h${id}`);
  }
  if (Array.isArray(d.hubIds)) {
    for (const v of d.hubIds.slice(0, 1000)) {
      const id = idOf(v);
      if (id !== null) out.add(`h${id}`);
    }
  }
  const app = idOf(d.appId);
  if (app !== null) out.add(`a${app}`);
  return [...out];
}
