import type { LegacyCardDefinition, LegacyCardPatch } from '../domain/card-events';
import type { LegacyCardRecord } from '../application/cards.queries';
import type { CardCreateRequestDto, CardPatchRequestDto } from './card.dto';

/** HubSpot's PublicCardResponse: only the fields its schema names, timestamps as ISO dates. */
export function toPublicCardResponse(card: LegacyCardRecord) {
  const d = card.definition;
  return {
    id: card.cardId,
    title: d.title,
    fetch: {
      targetUrl: d.fetch.targetUrl,
      objectTypes: d.fetch.objectTypes.map((o) => ({ name: o.name, propertiesToSend: o.propertiesToSend })),
    },
    display: {
      properties: d.display.properties.map((p) => ({
        name: p.name,
        label: p.label,
        dataType: p.dataType,
        options: p.options,
      })),
    },
    actions: { baseUrls: d.actions.baseUrls },
    auditHistory: card.audit.map((a) => ({
      actionType: a.actionType,
      // The spec calls the card's id "objectTypeId" here; ours stay far below 2^53.
      objectTypeId: Number(card.cardId),
      authSource: 'APP' as const,
      changedAt: a.changedAt,
      applicationId: a.appId,
      initiatingUserId: a.userId,
    })),
    createdAt: new Date(card.createdAt).toISOString(),
    updatedAt: new Date(card.updatedAt).toISOString(),
  };
}

const objectTypes = (list: Array<{ name: string; propertiesToSend: string[] }>) =>
  list.map((o) => ({
    name: o.name,
    propertiesToSend: [...o.propertiesToSend],
  })) as LegacyCardDefinition['fetch']['objectTypes'];

const properties = (list: CardCreateRequestDto['display']['properties']) =>
  list.map((p) => ({
    name: p.name,
    label: p.label,
    dataType: p.dataType,
    options: (p.options ?? []).map((o) => ({ name: o.name, label: o.label, type: o.type })),
  }));

/** Plain data for the event (no DTO class instances in storage). */
export function definitionFrom(dto: CardCreateRequestDto): LegacyCardDefinition {
  return {
    title: dto.title,
    fetch: {
      targetUrl: dto.fetch.targetUrl,
      objectTypes: objectTypes(dto.fetch.objectTypes),
      ...(dto.fetch.cardType !== undefined ? { cardType: dto.fetch.cardType } : {}),
      ...(dto.fetch.serverlessFunction !== undefined ? { serverlessFunction: dto.fetch.serverlessFunction } : {}),
    },
    display: { properties: properties(dto.display.properties) },
    actions: { baseUrls: [...dto.actions.baseUrls] },
  };
}

export function patchFrom(dto: CardPatchRequestDto): LegacyCardPatch {
  const patch: LegacyCardPatch = {};
  if (dto.title !== undefined) patch.title = dto.title;
  if (dto.fetch !== undefined) {
    patch.fetch = {
      objectTypes: objectTypes(dto.fetch.objectTypes),
      ...(dto.fetch.targetUrl !== undefined ? { targetUrl: dto.fetch.targetUrl } : {}),
      ...(dto.fetch.cardType !== undefined ? { cardType: dto.fetch.cardType } : {}),
      ...(dto.fetch.serverlessFunction !== undefined ? { serverlessFunction: dto.fetch.serverlessFunction } : {}),
    };
  }
  if (dto.display !== undefined) patch.display = { properties: properties(dto.display.properties) };
  if (dto.actions !== undefined) patch.actions = { baseUrls: [...dto.actions.baseUrls] };
  return patch;
}

/**
 * GET /crm/v3/extensions/cards-dev/sample-response: the example card-details payload an app's
 * data-fetch endpoint should answer with (HubSpot serves a fixed example here too).
 */
export const SAMPLE_CARD_RESPONSE = {
  totalCount: 1,
  allItemsLinkUrl: 'https://www.example.com/hubspot/all-items',
  cardLabel: 'Tickets',
  responseVersion: 'v3',
  sections: [
    {
      id: '123',
      title: 'API-22: Bug in the checkout flow',
      linkUrl: 'https://www.example.com/tickets/123',
      tokens: [
        { name: 'created', label: 'Created', dataType: 'DATE', value: '2026-01-15' },
        { name: 'priority', label: 'Priority', dataType: 'STRING', value: 'HIGH' },
        { name: 'status', label: 'Status', dataType: 'STATUS', value: 'In progress' },
      ],
      actions: [
        {
          type: 'IFRAME',
          width: 890,
          height: 748,
          url: 'https://www.example.com/tickets/123/edit',
          label: 'Edit',
          propertyNamesIncluded: ['email', 'firstname'],
        },
        {
          type: 'ACTION_HOOK',
          httpMethod: 'POST',
          url: 'https://www.example.com/tickets/123/close',
          label: 'Close ticket',
          propertyNamesIncluded: ['email'],
          confirmation: {
            prompt: 'Close this ticket?',
            confirmButtonLabel: 'Close it',
            cancelButtonLabel: 'Keep it open',
          },
        },
      ],
    },
  ],
  topLevelActions: {
    settings: {
      type: 'IFRAME',
      width: 890,
      height: 748,
      url: 'https://www.example.com/hubspot/settings',
      label: 'Settings',
      propertyNamesIncluded: [],
    },
    primary: {
      type: 'IFRAME',
      width: 890,
      height: 748,
      url: 'https://www.example.com/hubspot/create',
      label: 'Create ticket',
      propertyNamesIncluded: ['email'],
    },
    secondary: [],
  },
};
