import type { Tier } from '../tiers';

/**
 * The scope catalog. Append-only: a scope's index is its bit in access tokens, so existing
 * entries never move (CATALOG_VERSION is written into every token). It holds at least every
 * scope named by the official specs of the three API areas, plus HubSpot's common app scopes.
 * `minTier`: the lowest subscription tier that can grant it (optional scopes above the
 * installing account's tier are dropped at install, as HubSpot does).
 */
export const SCOPE_CATALOG_VERSION = 1;

interface ScopeEntry {
  name: string;
  minTier: Tier;
}

const e = (name: string, minTier: Tier = 'free'): ScopeEntry => ({ name, minTier });

const OBJECTS = [
  'contacts',
  'companies',
  'deals',
  'line_items',
  'products',
  'quotes',
  'carts',
  'orders',
  'invoices',
  'commercepayments',
  'subscriptions',
  'goals',
  'leads',
  'listings',
  'courses',
  'services',
  'appointments',
  'partner-clients',
  'partner-services',
  'users',
] as const;

const JOURNAL_SCOPES = [
  'developer.webhooks_journal.read',
  'developer.webhooks_journal.subscriptions.read',
  'developer.webhooks_journal.subscriptions.write',
  'developer.webhooks_journal.snapshots.read',
  'developer.webhooks_journal.snapshots.write',
  'webhooks-journal-data-access',
  'webhooks-journal-subscription-read',
  'webhooks-journal-subscription-management',
  'webhooks-journal-snapshot-management',
] as const;

export const SCOPE_ENTRIES: readonly ScopeEntry[] = [
  e('oauth'),
  e('developers-read'),
  e('developers-write'),
  e('private-apps-read'),
  e('tickets'),
  e('e-commerce'),
  e('media_bridge.read'),
  // Any tier may grant these; the custom-object-types limit (0 below enterprise) is what refuses creates.
  e('crm.schemas.custom.read'),
  e('crm.schemas.custom.write'),
  e('crm.schemas.contacts.read'),
  e('crm.schemas.contacts.write'),
  e('crm.schemas.companies.read'),
  e('crm.schemas.companies.write'),
  e('crm.schemas.deals.read'),
  e('crm.schemas.deals.write'),
  e('crm.schemas.tickets.read'),
  e('crm.schemas.tickets.write'),
  e('crm.objects.owners.read'),
  e('crm.objects.custom.read', 'enterprise'),
  e('crm.objects.custom.write', 'enterprise'),
  ...OBJECTS.flatMap((o) => [e(`crm.objects.${o}.read`), e(`crm.objects.${o}.write`)]),
  e('crm.objects.calls.read'),
  e('crm.objects.emails.read'),
  e('crm.objects.meetings.read'),
  e('crm.objects.notes.read'),
  e('crm.objects.tasks.read'),
  e('crm.objects.projects.read', 'enterprise'),
  e('crm.objects.projects.write', 'enterprise'),
  e('crm.objects.projects.sensitive.read', 'enterprise'),
  e('crm.objects.projects.sensitive.write', 'enterprise'),
  e('crm.objects.projects.highly_sensitive.read', 'enterprise'),
  e('crm.objects.projects.highly_sensitive.write', 'enterprise'),
  e('crm.objects.tickets.sensitive.read', 'enterprise'),
  e('crm.objects.tickets.sensitive.write', 'enterprise'),
  e('crm.objects.tickets.highly_sensitive.read', 'enterprise'),
  e('crm.objects.tickets.highly_sensitive.write', 'enterprise'),
  e('tickets.sensitive.v2', 'enterprise'),
  e('tickets.highly_sensitive.v2', 'enterprise'),
  ...(['contacts', 'companies', 'deals', 'custom', 'appointments'] as const).flatMap((o) => [
    e(`crm.objects.${o}.sensitive.read.v2`, 'enterprise'),
    e(`crm.objects.${o}.sensitive.write.v2`, 'enterprise'),
  ]),
  ...(['contacts', 'companies', 'deals', 'custom'] as const).flatMap((o) => [
    e(`crm.objects.${o}.highly_sensitive.read.v2`, 'enterprise'),
    e(`crm.objects.${o}.highly_sensitive.write.v2`, 'enterprise'),
  ]),
  e('crm.lists.read'),
  e('crm.lists.write'),
  e('crm.import'),
  e('crm.export'),
  e('content'),
  e('forms'),
  e('files'),
  e('timeline'),
  e('automation'),
  e('conversations.read'),
  e('conversations.write'),
  e('settings.users.read'),
  e('settings.users.write'),
  e('account-info.security.read', 'enterprise'),
  // App-token scopes (client_credentials): the webhooks journal, as HubSpot's guide names them and as its spec does.
  ...JOURNAL_SCOPES.map((s) => e(s)),
];

/** The scopes an app token may carry (the client_credentials grant's `scope`). */
export const APP_TOKEN_SCOPES: ReadonlySet<string> = new Set(JOURNAL_SCOPES);

export const SCOPES: readonly string[] = SCOPE_ENTRIES.map((s) => s.name);
const INDEX = new Map(SCOPES.map((s, i) => [s, i]));
const MIN_TIER = new Map(SCOPE_ENTRIES.map((s) => [s.name, s.minTier]));
const TIER_RANK: Record<Tier, number> = { free: 0, starter: 1, professional: 2, enterprise: 3 };

if (INDEX.size !== SCOPES.length) throw new Error('scope catalog has duplicates');

export function isKnownScope(scope: string): boolean {
  return INDEX.has(scope);
}

export function scopeIndex(scope: string): number | undefined {
  return INDEX.get(scope);
}

export function tierAllowsScope(tier: Tier, scope: string): boolean {
  const min = MIN_TIER.get(scope);
  return min !== undefined && TIER_RANK[tier] >= TIER_RANK[min];
}

/** Scopes as a bitset over the catalog: a few bytes instead of a list of names in every token. */
export function encodeScopes(scopes: readonly string[]): Buffer {
  const bits = Buffer.alloc(Math.ceil(SCOPES.length / 8));
  for (const s of scopes) {
    const i = INDEX.get(s);
    if (i === undefined) throw new Error(`unknown scope ${s}`);
    bits[i >> 3]! |= 1 << (i & 7);
  }
  return bits;
}

export function decodeScopes(bits: Buffer): string[] {
  const out: string[] = [];
  for (let i = 0; i < SCOPES.length; i++) if (((bits[i >> 3] ?? 0) >> (i & 7)) & 1) out.push(SCOPES[i]!);
  return out;
}
