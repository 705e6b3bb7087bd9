/** CRM object types a legacy card (and an app card) can be shown on. */
export const CARD_OBJECT_TYPES = ['contacts', 'companies', 'deals', 'tickets'] as const;
export type CardObjectType = (typeof CARD_OBJECT_TYPES)[number];

/** Every account has one record view per object type, plus the help-desk view (tickets only). */
export const CRM_VIEWS = ['contacts', 'companies', 'deals', 'tickets', 'helpdesk'] as const;
export type CrmView = (typeof CRM_VIEWS)[number];

export const HELPDESK_VIEW: CrmView = 'helpdesk';

/** The views a card with these object types appears in: its record views, and help desk for tickets. */
export function viewsForObjectTypes(objectTypes: readonly CardObjectType[]): CrmView[] {
  const views: CrmView[] = CRM_VIEWS.filter((v) => v !== HELPDESK_VIEW && objectTypes.includes(v as CardObjectType));
  if (objectTypes.includes('tickets')) views.push(HELPDESK_VIEW);
  return views;
}

/** The object types a legacy card (its LegacyCardDefinition) shows on, each once. */
export const objectTypesOf = (d: {
  fetch: { objectTypes: ReadonlyArray<{ name: CardObjectType }> };
}): CardObjectType[] => [...new Set(d.fetch.objectTypes.map((o) => o.name))];
