import { arrayOf, bool, int32, int64, mapOf, object, str, type WireSchema } from '../../platform/http/wire-schema';

/**
 * What the legacy Contacts API (v1) sends. HubSpot publishes no OpenAPI document for it (its v1 docs
 * are prose and examples), so these schemas are not compared with an official spec; they drive the
 * serialization and /docs like every other module's.
 */
const VERSION = object(
  {
    value: str(),
    'source-type': str(),
    timestamp: int64(),
    selected: bool(),
  },
  { 'source-id': str(), 'updated-by-user-id': int32() },
);

const IDENTITY_PROFILE = object({
  vid: int64(),
  'saved-at-timestamp': int64(),
  'deleted-changed-timestamp': int64(),
  identities: arrayOf(object({ type: str(), value: str(), timestamp: int64(), 'is-primary': bool() })),
});

const ANY_OBJECT: WireSchema = { type: 'object' };

/** A contact in the v1 vocabulary (profile and list forms). */
export const LEGACY_CONTACT_SCHEMA: WireSchema = object(
  {
    vid: int64(),
    'canonical-vid': int64(),
    'merged-vids': arrayOf(int64()),
    'portal-id': int64(),
    'is-contact': bool(),
    properties: mapOf(object({ value: str() }, { versions: arrayOf(VERSION) })),
    'form-submissions': arrayOf(ANY_OBJECT),
    'identity-profiles': arrayOf(IDENTITY_PROFILE),
    'merge-audits': arrayOf(ANY_OBJECT),
  },
  { addedAt: int64(), 'list-memberships': arrayOf(ANY_OBJECT) },
);

/** `GET /contacts/v1/lists/all/contacts/all`: a page in vid order and the offset of the next one. */
export const LEGACY_CONTACT_PAGE_SCHEMA: WireSchema = object({
  contacts: arrayOf(LEGACY_CONTACT_SCHEMA),
  'has-more': bool(),
  'vid-offset': int64(),
});
