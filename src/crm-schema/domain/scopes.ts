import type { ScopeFamily } from './object-types';

/**
 * Accepted scopes ("any of"), copied from HubSpot's official specs so that no spec file is read
 * at run time. The conformance suite (test/conformance) compares these lists with HubSpot's official
 * limitsTracking.json, properties.json of each version, when HUBSPOT_OPENAPI_DIR hands those files in.
 */

/** GET /crm/v3/limits/calculated-properties and GET /crm/v3/limits/custom-properties (same list in the spec). */
export const CRM_LIMITS_READ_SCOPES = [
  'crm.objects.deals.read',
  'crm.objects.subscriptions.read',
  'crm.objects.services.read',
  'crm.objects.tickets.sensitive.read',
  'crm.objects.orders.read',
  'crm.objects.listings.write',
  'crm.objects.custom.read',
  'crm.objects.companies.write',
  'crm.objects.tasks.read',
  'crm.objects.custom.sensitive.write.v2',
  'crm.objects.custom.highly_sensitive.write.v2',
  'crm.objects.companies.read',
  'crm.objects.contacts.highly_sensitive.read.v2',
  'crm.objects.appointments.sensitive.read.v2',
  'crm.objects.tickets.highly_sensitive.read',
  'crm.objects.companies.sensitive.read.v2',
  'crm.objects.tickets.sensitive.write',
  'media_bridge.read',
  'crm.objects.deals.highly_sensitive.read.v2',
  'crm.objects.contacts.highly_sensitive.write.v2',
  'crm.objects.companies.highly_sensitive.read.v2',
  'crm.objects.commercepayments.write',
  'crm.objects.invoices.write',
  'crm.objects.contacts.sensitive.write.v2',
  'crm.objects.users.write',
  'crm.objects.calls.read',
  'crm.objects.meetings.read',
  'crm.objects.custom.sensitive.read.v2',
  'crm.objects.users.read',
  'crm.objects.partner-services.read',
  'crm.objects.orders.write',
  'crm.objects.partner-services.write',
  'crm.objects.appointments.write',
  'crm.objects.projects.highly_sensitive.write',
  'crm.objects.carts.write',
  'crm.objects.tickets.highly_sensitive.write',
  'tickets',
  'crm.objects.commercepayments.read',
  'crm.objects.products.write',
  'crm.objects.services.write',
  'crm.objects.subscriptions.write',
  'crm.objects.deals.sensitive.write.v2',
  'crm.objects.contacts.read',
  'crm.objects.appointments.sensitive.write.v2',
  'crm.objects.invoices.read',
  'crm.objects.projects.highly_sensitive.read',
  'tickets.sensitive.v2',
  'crm.objects.custom.write',
  'crm.objects.deals.write',
  'e-commerce',
  'crm.objects.appointments.read',
  'crm.objects.companies.sensitive.write.v2',
  'crm.objects.projects.read',
  'crm.objects.deals.highly_sensitive.write.v2',
  'crm.objects.custom.highly_sensitive.read.v2',
  'crm.objects.companies.highly_sensitive.write.v2',
  'crm.objects.goals.write',
  'crm.objects.line_items.write',
  'crm.objects.projects.sensitive.read',
  'crm.objects.contacts.write',
  'crm.objects.goals.read',
  'crm.objects.line_items.read',
  'crm.objects.partner-clients.write',
  'crm.objects.projects.write',
  'crm.objects.deals.sensitive.read.v2',
  'crm.objects.projects.sensitive.write',
  'crm.objects.quotes.write',
  'tickets.highly_sensitive.v2',
  'crm.objects.leads.read',
  'crm.objects.leads.write',
  'crm.objects.carts.read',
  'crm.objects.emails.read',
  'crm.objects.quotes.read',
  'crm.objects.courses.write',
  'crm.objects.partner-clients.read',
  'crm.objects.notes.read',
  'crm.objects.courses.read',
  'crm.objects.listings.read',
  'crm.objects.contacts.sensitive.read.v2',
  'crm.objects.products.read',
] as const;

/**
 * The versions whose accepted scopes we tell apart: v3 and 2026-03 accept the same lists; the
 * 2026-09 specs (limitsTracking.json, properties.json) no longer list the tickets object and schema
 * scopes, the engagement read scopes (calls, emails, meetings, notes, tasks) and `cpq.quotes.*`.
 * (The 2026-09 specs also list `private_apps` alternatives: this service has no private apps.)
 */
export type ScopesVersion = 'v3' | '2026-03' | '2026-09';

export const DROPPED_IN_2026_09: ReadonlySet<string> = new Set([
  'crm.objects.tickets.sensitive.read',
  'crm.objects.tickets.sensitive.write',
  'crm.objects.tickets.highly_sensitive.read',
  'crm.objects.tickets.highly_sensitive.write',
  'crm.schemas.tickets.read',
  'crm.schemas.tickets.write',
  'crm.objects.calls.read',
  'crm.objects.emails.read',
  'crm.objects.meetings.read',
  'crm.objects.notes.read',
  'crm.objects.tasks.read',
  'crm.schemas.calls.read',
  'crm.schemas.emails.read',
  'crm.schemas.meetings.read',
  'crm.schemas.notes.read',
  'crm.schemas.tasks.read',
  'cpq.quotes.read',
  'cpq.quotes.write',
]);

/** GET /crm/limits/{version}/calculated-properties and custom-properties, per version. */
export function crmLimitsReadScopes(version: ScopesVersion): readonly string[] {
  return version === '2026-09'
    ? CRM_LIMITS_READ_SCOPES.filter((s) => !DROPPED_IN_2026_09.has(s))
    : CRM_LIMITS_READ_SCOPES;
}

/** GET /crm/v3/limits/custom-object-types (the same list at every version). */
export const CUSTOM_OBJECT_TYPE_LIMITS_SCOPES = [
  'crm.schemas.custom.read',
  'crm.objects.custom.sensitive.read.v2',
  'crm.objects.custom.highly_sensitive.read.v2',
  'crm.objects.custom.read',
  'crm.objects.custom.sensitive.write.v2',
  'crm.schemas.custom.write',
  'crm.objects.custom.highly_sensitive.write.v2',
  'crm.objects.custom.write',
] as const;

/**
 * CRM properties: HubSpot asks for the schema scope of the object type (`crm.schemas.<type>.write`
 * to create or archive, `.read` to read) and also accepts the object scopes of that type. The
 * official properties spec lists one union for every object type; we check per object type,
 * which is what HubSpot enforces in practice. Tickets use the legacy `tickets` scope.
 */
export function propertyScopes(family: ScopeFamily, access: 'read' | 'write', version: ScopesVersion = 'v3'): string[] {
  const scopes = propertyScopesBefore2026_09(family, access);
  return version === '2026-09' ? scopes.filter((s) => !DROPPED_IN_2026_09.has(s)) : scopes;
}

function propertyScopesBefore2026_09(family: ScopeFamily, access: 'read' | 'write') {
  if (family === 'tickets') {
    return access === 'write'
      ? ['crm.schemas.tickets.write', 'tickets']
      : ['crm.schemas.tickets.read', 'crm.schemas.tickets.write', 'tickets'];
  }
  const write = [`crm.schemas.${family}.write`, `crm.objects.${family}.write`];
  if (access === 'write') return write;
  return [`crm.schemas.${family}.read`, `crm.objects.${family}.read`, ...write];
}

/** Custom object schemas (/crm/v3/schemas). */
export const SCHEMA_READ_SCOPES = ['crm.schemas.custom.read', 'crm.schemas.custom.write'] as const;
export const SCHEMA_WRITE_SCOPES = ['crm.schemas.custom.write'] as const;
