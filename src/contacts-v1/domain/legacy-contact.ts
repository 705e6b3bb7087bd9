/**
 * HubSpot's legacy Contacts API (v1) shape of a contact, made from a CRM record: the same contact the
 * objects API serves, in the older vocabulary that HubSpot's OAuth quickstart and many older apps
 * still read (`vid`, `properties.<name>.value`, `identity-profiles`, hyphenated keys). Pure.
 */

/** A contact record as the records module shows it (values as strings, times as ISO strings). */
export interface ContactRecord {
  id: string;
  properties: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** One past value of a property (newest first), as the records module reads it from the stream. */
export interface ValueVersion {
  value: string;
  timestamp: string;
  sourceType: string;
  sourceId?: string;
  updatedByUserId?: number;
}

export interface LegacyVersion {
  value: string;
  'source-type': string;
  'source-id'?: string;
  'updated-by-user-id'?: number;
  timestamp: number;
  selected: boolean;
}

export interface LegacyProperty {
  value: string;
  versions?: LegacyVersion[];
}

export interface LegacyIdentity {
  type: 'EMAIL';
  value: string;
  timestamp: number;
  'is-primary': boolean;
}

export interface LegacyContact {
  addedAt?: number;
  vid: number;
  'canonical-vid': number;
  'merged-vids': number[];
  'portal-id': number;
  'is-contact': true;
  properties: Record<string, LegacyProperty>;
  'form-submissions': unknown[];
  'list-memberships'?: unknown[];
  'identity-profiles': Array<{
    vid: number;
    'saved-at-timestamp': number;
    'deleted-changed-timestamp': number;
    identities: LegacyIdentity[];
  }>;
  'merge-audits': unknown[];
}

/** The four properties the v1 list endpoints show when the request names none (HubSpot's docs). */
export const LIST_DEFAULT_PROPERTIES: readonly string[] = ['company', 'firstname', 'lastmodifieddate', 'lastname'];

export interface LegacyContactOptions {
  hubId: number;
  /** The properties to show (the record may hold more: its e-mail makes the identity profile). */
  shown: readonly string[];
  /** Names of the account's date and datetime properties: v1 sends them as epoch milliseconds. */
  timeProperties: ReadonlySet<string>;
  /** Past values per property (value_and_history); absent for value_only. */
  history?: Record<string, ValueVersion[]>;
  /** The list endpoints add `addedAt`; the profile endpoints do not. */
  addedAt?: boolean;
  listMemberships?: boolean;
}

/** v1 sends dates and datetimes as milliseconds since the epoch (a string, like every value). */
function legacyValue(name: string, value: string, timeProperties: ReadonlySet<string>): string {
  if (!timeProperties.has(name)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : String(ms);
}

const mergedVids = (raw: string | undefined): number[] =>
  (raw ?? '')
    .split(';')
    .filter((v) => /^\d{1,15}$/.test(v))
    .map(Number);

export function legacyContact(record: ContactRecord, options: LegacyContactOptions): LegacyContact {
  const vid = Number(record.id);
  const created = Date.parse(record.createdAt);
  const updated = Date.parse(record.updatedAt);
  const properties: Record<string, LegacyProperty> = {};
  for (const name of options.shown) {
    const value = record.properties[name];
    if (value === undefined) continue;
    const property: LegacyProperty = { value: legacyValue(name, value, options.timeProperties) };
    const versions = options.history?.[name];
    if (versions) {
      property.versions = versions.map((v, i) => ({
        value: legacyValue(name, v.value, options.timeProperties),
        'source-type': v.sourceType,
        ...(v.sourceId !== undefined ? { 'source-id': v.sourceId } : {}),
        ...(v.updatedByUserId !== undefined ? { 'updated-by-user-id': v.updatedByUserId } : {}),
        timestamp: Date.parse(v.timestamp),
        // HubSpot marks the version that is the current value.
        selected: i === 0,
      }));
    }
    properties[name] = property;
  }
  const email = record.properties.email;
  const contact: LegacyContact = {
    ...(options.addedAt ? { addedAt: created } : {}),
    vid,
    'canonical-vid': vid,
    'merged-vids': mergedVids(record.properties.hs_merged_object_ids),
    'portal-id': options.hubId,
    'is-contact': true,
    properties,
    'form-submissions': [],
    ...(options.listMemberships ? { 'list-memberships': [] } : {}),
    'identity-profiles': [
      {
        vid,
        'saved-at-timestamp': updated,
        'deleted-changed-timestamp': 0,
        identities: email ? [{ type: 'EMAIL', value: email, timestamp: created, 'is-primary': true }] : [],
      },
    ],
    'merge-audits': [],
  };
  return contact;
}
