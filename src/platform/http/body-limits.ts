/**
 * The largest request body per route family. HubSpot's own limits for one object are far below a
 * megabyte, and a body is held in memory while it is read and parsed, so each family gets what its
 * requests need with room to spare; BODY_LIMIT_BYTES stays the ceiling (and the admin API's limit).
 *
 * - OAuth (`/oauth/...`: token, introspect, revoke, install-page forms) and app uninstall
 *   (`/appinstalls/...`): a handful of short parameters — 16 KiB.
 * - CRM (`/crm/...`, `/crm-object-schemas/...`: properties, schemas, cards): one object with its
 *   options or a batch of a few — CRM_BODY_LIMIT_BYTES, 256 KiB by default.
 */
const OAUTH_BODY_LIMIT_BYTES = 16 * 1024;

export function routeBodyLimit(
  url: string,
  limits: { bodyLimitBytes: number; crmBodyLimitBytes: number },
): number | undefined {
  let family: number | undefined;
  if (url.startsWith('/oauth/') || url.startsWith('/appinstalls/')) family = OAUTH_BODY_LIMIT_BYTES;
  else if (url.startsWith('/crm/') || url.startsWith('/crm-object-schemas/')) family = limits.crmBodyLimitBytes;
  return family === undefined ? undefined : Math.min(family, limits.bodyLimitBytes);
}
