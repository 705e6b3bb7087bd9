import type { Tier } from '../tiers';

/**
 * The scope catalog. Append-only: a scope's index is its bit in access tokens, so existing
 * entries never move (CATALOG_VERSION is written into every token). It holds at least every
 * scope named by the official specs of the three API areas, plus HubSpot's common app scopes.
 * `minTier`: the lowest subscription tier that can grant it (optional scopes above the
 * installing account's tier are dropped at install, as HubSpot does). `group` and `description`:
 * what the consent page shows, after HubSpot's scopes reference (its "Provides access to" area
 * and what each scope allows), in our own words.
 */
export const SCOPE_CATALOG_VERSION = 1;

/** The areas of HubSpot's scopes reference, in the order the consent page lists them. */
export const SCOPE_GROUPS = [
  'Basic',
  'CRM',
  'CRM sensitive data',
  'Automation',
  'Marketing',
  'Content',
  'Files',
  'Conversations',
  'Settings',
  'Developer tools',
] as const;
export type ScopeGroup = (typeof SCOPE_GROUPS)[number];

interface ScopeEntry {
  name: string;
  group: ScopeGroup;
  description: string;
  minTier: Tier;
}

const e = (name: string, group: ScopeGroup, description: string, minTier: Tier = 'free'): ScopeEntry => ({
  name,
  group,
  description,
  minTier,
});

/** CRM object types with crm.objects.<type>.read/.write, and how a person calls their records. */
const OBJECTS = {
  contacts: 'contacts',
  companies: 'companies',
  deals: 'deals',
  line_items: 'line items',
  products: 'products',
  quotes: 'quotes',
  carts: 'carts',
  orders: 'orders',
  invoices: 'invoices',
  commercepayments: 'payments',
  subscriptions: 'commerce subscriptions',
  goals: 'goals',
  leads: 'leads',
  listings: 'listings',
  courses: 'courses',
  services: 'services',
  appointments: 'appointments',
  'partner-clients': 'partner clients',
  'partner-services': 'partner services',
  users: 'user records',
} as const;
const NAMES: Record<string, string> = { ...OBJECTS, custom: 'custom object records', projects: 'projects' };
const label = (o: string) => NAMES[o] ?? o;

const read = (o: string) => `See ${label(o)} and their properties`;
const write = (o: string) => `See, create, change and delete ${label(o)}`;
const schemaRead = (o: string) => `See the property settings of ${label(o)}`;
const schemaWrite = (o: string) => `Create, change and delete the property settings of ${label(o)}`;
const sensitive = (o: string, level: 'sensitive' | 'highly sensitive', access: 'read' | 'write') =>
  access === 'read'
    ? `See the ${level} data stored on ${label(o)}`
    : `Store and change ${level} data on ${label(o)}, and its properties`;
const crm = (name: string, description: string, minTier: Tier = 'free') => e(name, 'CRM', description, minTier);
const sens = (name: string, o: string, level: 'sensitive' | 'highly sensitive', access: 'read' | 'write') =>
  e(name, 'CRM sensitive data', sensitive(o, level, access), 'enterprise');

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

/** What each journal scope allows; the spec's names say which docs name they match. */
const JOURNAL_SCOPE_DESCRIPTIONS: Record<(typeof JOURNAL_SCOPES)[number], string> = {
  'developer.webhooks_journal.read': "Read the app's webhooks journal",
  'webhooks-journal-data-access': "Read the app's webhooks journal (its name in HubSpot's spec)",
  'developer.webhooks_journal.subscriptions.read': "See the app's journal subscriptions",
  'webhooks-journal-subscription-read': "See the app's journal subscriptions (its name in HubSpot's spec)",
  'developer.webhooks_journal.subscriptions.write': "Create, change and delete the app's journal subscriptions",
  'webhooks-journal-subscription-management':
    "Create, change and delete the app's journal subscriptions (its name in HubSpot's spec)",
  'developer.webhooks_journal.snapshots.read': 'See journal snapshots of CRM records',
  'developer.webhooks_journal.snapshots.write': 'Ask for journal snapshots of CRM records',
  'webhooks-journal-snapshot-management': 'Ask for and see journal snapshots of CRM records',
};

export const SCOPE_ENTRIES: readonly ScopeEntry[] = [
  e('oauth', 'Basic', 'Connect through OAuth and keep its access (every app asks for it)'),
  e('developers-read', 'Developer tools', "See the developer account's apps and their settings"),
  e('developers-write', 'Developer tools', "Change the developer account's apps and their settings"),
  e('private-apps-read', 'Developer tools', "See the account's private apps"),
  crm('tickets', 'See, create, change and delete tickets'),
  crm('e-commerce', 'See and change products, line items and other commerce records'),
  e('media_bridge.read', 'Content', 'See the media objects shared through the media bridge'),
  // Any tier may grant these; the custom-object-types limit (0 below enterprise) is what refuses creates.
  crm('crm.schemas.custom.read', 'See the definitions of custom objects'),
  crm('crm.schemas.custom.write', 'Create, change and delete the definitions of custom objects'),
  crm('crm.schemas.contacts.read', schemaRead('contacts')),
  crm('crm.schemas.contacts.write', schemaWrite('contacts')),
  crm('crm.schemas.companies.read', schemaRead('companies')),
  crm('crm.schemas.companies.write', schemaWrite('companies')),
  crm('crm.schemas.deals.read', schemaRead('deals')),
  crm('crm.schemas.deals.write', schemaWrite('deals')),
  crm('crm.schemas.tickets.read', schemaRead('tickets')),
  crm('crm.schemas.tickets.write', schemaWrite('tickets')),
  crm('crm.objects.owners.read', 'See the users who own CRM records'),
  crm('crm.objects.custom.read', read('custom'), 'enterprise'),
  crm('crm.objects.custom.write', write('custom'), 'enterprise'),
  ...Object.keys(OBJECTS).flatMap((o) => [
    crm(`crm.objects.${o}.read`, read(o)),
    crm(`crm.objects.${o}.write`, write(o)),
  ]),
  crm('crm.objects.calls.read', 'See call activities'),
  crm('crm.objects.emails.read', 'See email activities'),
  crm('crm.objects.meetings.read', 'See meeting activities'),
  crm('crm.objects.notes.read', 'See notes'),
  crm('crm.objects.tasks.read', 'See tasks'),
  crm('crm.objects.projects.read', read('projects'), 'enterprise'),
  crm('crm.objects.projects.write', write('projects'), 'enterprise'),
  sens('crm.objects.projects.sensitive.read', 'projects', 'sensitive', 'read'),
  sens('crm.objects.projects.sensitive.write', 'projects', 'sensitive', 'write'),
  sens('crm.objects.projects.highly_sensitive.read', 'projects', 'highly sensitive', 'read'),
  sens('crm.objects.projects.highly_sensitive.write', 'projects', 'highly sensitive', 'write'),
  sens('crm.objects.tickets.sensitive.read', 'tickets', 'sensitive', 'read'),
  sens('crm.objects.tickets.sensitive.write', 'tickets', 'sensitive', 'write'),
  sens('crm.objects.tickets.highly_sensitive.read', 'tickets', 'highly sensitive', 'read'),
  sens('crm.objects.tickets.highly_sensitive.write', 'tickets', 'highly sensitive', 'write'),
  e('tickets.sensitive.v2', 'CRM sensitive data', 'See and change sensitive data on tickets', 'enterprise'),
  e(
    'tickets.highly_sensitive.v2',
    'CRM sensitive data',
    'See and change highly sensitive data on tickets',
    'enterprise',
  ),
  ...(['contacts', 'companies', 'deals', 'custom', 'appointments'] as const).flatMap((o) => [
    sens(`crm.objects.${o}.sensitive.read.v2`, o, 'sensitive', 'read'),
    sens(`crm.objects.${o}.sensitive.write.v2`, o, 'sensitive', 'write'),
  ]),
  ...(['contacts', 'companies', 'deals', 'custom'] as const).flatMap((o) => [
    sens(`crm.objects.${o}.highly_sensitive.read.v2`, o, 'highly sensitive', 'read'),
    sens(`crm.objects.${o}.highly_sensitive.write.v2`, o, 'highly sensitive', 'write'),
  ]),
  crm('crm.lists.read', 'See lists of records'),
  crm('crm.lists.write', 'Create, change and delete lists of records'),
  crm('crm.import', 'Import records into the CRM'),
  crm('crm.export', 'Export records from the CRM'),
  e('content', 'Content', 'See and change website pages, blog posts, templates and other content'),
  e('forms', 'Marketing', 'See, create and change forms, and see their submissions'),
  e('files', 'Files', 'See, upload and change files in the file manager'),
  crm('timeline', 'Add events to the timeline of CRM records'),
  e('automation', 'Automation', 'See and change workflows and other automation'),
  e('conversations.read', 'Conversations', 'See inboxes, conversation threads and their messages'),
  e('conversations.write', 'Conversations', 'Send messages and change conversation threads'),
  e('settings.users.read', 'Settings', "See the account's users, teams and their permissions"),
  e('settings.users.write', 'Settings', "Add, change and remove the account's users and teams"),
  e('account-info.security.read', 'Settings', "See the account's security activity and log-in history", 'enterprise'),
  // App-token scopes (client_credentials): the webhooks journal, as HubSpot's guide names them and as its spec does.
  ...JOURNAL_SCOPES.map((s) => e(s, 'Developer tools', JOURNAL_SCOPE_DESCRIPTIONS[s])),
];

/** The scopes an app token may carry (the client_credentials grant's `scope`). */
export const APP_TOKEN_SCOPES: ReadonlySet<string> = new Set(JOURNAL_SCOPES);

export const SCOPES: readonly string[] = SCOPE_ENTRIES.map((s) => s.name);
const INDEX = new Map(SCOPES.map((s, i) => [s, i]));
const MIN_TIER = new Map(SCOPE_ENTRIES.map((s) => [s.name, s.minTier]));
const BY_NAME = new Map(SCOPE_ENTRIES.map((s) => [s.name, s]));
const TIER_RANK: Record<Tier, number> = { free: 0, starter: 1, professional: 2, enterprise: 3 };

if (INDEX.size !== SCOPES.length) throw new Error('scope catalog has duplicates');

/**
 * Scopes as the consent page lists them: by group in SCOPE_GROUPS' order, each with what it allows.
 * A name outside the catalog (none reaches the page: the request is refused first) is kept, undescribed.
 */
export function describeScopes(
  scopes: readonly string[],
): Array<{ group: ScopeGroup | 'Other'; scopes: Array<{ name: string; description: string | null }> }> {
  const groups = new Map<ScopeGroup | 'Other', Array<{ name: string; description: string | null }>>();
  for (const g of [...SCOPE_GROUPS, 'Other' as const]) groups.set(g, []);
  for (const name of scopes) {
    const entry = BY_NAME.get(name);
    groups.get(entry?.group ?? 'Other')!.push({ name, description: entry?.description ?? null });
  }
  return [...groups].filter(([, list]) => list.length > 0).map(([group, list]) => ({ group, scopes: list }));
}

/** What a scope allows, in people's words; null for a name outside the catalog. */
export function scopeDescription(scope: string): string | null {
  return BY_NAME.get(scope)?.description ?? null;
}

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
