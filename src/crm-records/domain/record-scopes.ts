/**
 * The scopes a records call accepts ("any of"), per object type family, as HubSpot's records specs
 * list them (contacts.json, companies.json, deals.json, tickets.json, objects.json of v3, 2026-03 and
 * 2026-09): `crm.objects.<type>.read` / `.write`, the legacy `tickets` scope for tickets,
 * `crm.objects.custom.*` for custom objects, and the sensitive-data variants where HubSpot names them.
 */
export type RecordScopeFamily = 'contacts' | 'companies' | 'deals' | 'tickets' | 'custom';

export function recordScopes(family: RecordScopeFamily, access: 'read' | 'write'): readonly string[] {
  if (family === 'tickets') {
    return [
      'tickets',
      `crm.objects.tickets.sensitive.${access}`,
      `crm.objects.tickets.highly_sensitive.${access}`,
      'tickets.sensitive.v2',
      'tickets.highly_sensitive.v2',
    ];
  }
  return [
    `crm.objects.${family}.${access}`,
    `crm.objects.${family}.sensitive.${access}.v2`,
    `crm.objects.${family}.highly_sensitive.${access}.v2`,
  ];
}
