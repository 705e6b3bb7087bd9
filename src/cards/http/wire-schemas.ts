import {
  anyVersion,
  arrayOf,
  dateTime,
  int32,
  int64,
  object,
  oneOf,
  str,
  strEnum,
  type WireOperation,
  type WireSchema,
  wireOperations,
} from '../../platform/http/wire-schema';

/**
 * What the legacy cards endpoints send, by HubSpot's names (publicAppCrmCards.json of v3, 2026-03
 * and 2026-09). Every field listed as required is always sent.
 */
const DATA_TYPES = ['BOOLEAN', 'CURRENCY', 'DATE', 'DATETIME', 'EMAIL', 'LINK', 'NUMERIC', 'STATUS', 'STRING'];
const HTTP_METHODS = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'];

const IFRAME_ACTION = object(
  {
    type: strEnum('IFRAME'),
    width: int32(),
    height: int32(),
    url: str(),
    propertyNamesIncluded: arrayOf(str()),
  },
  { label: str() },
);

const ACTION_HOOK_ACTION = object(
  {
    type: strEnum('ACTION_HOOK'),
    httpMethod: strEnum(...HTTP_METHODS),
    url: str(),
    propertyNamesIncluded: arrayOf(str()),
  },
  { label: str(), confirmation: object({ prompt: str(), confirmButtonLabel: str(), cancelButtonLabel: str() }) },
);

const action = () => oneOf(ACTION_HOOK_ACTION, IFRAME_ACTION);

/** GET .../sample-response (HubSpot's IntegratorCardPayloadResponse), a fixed example. */
export const SAMPLE_CARD_RESPONSE_SCHEMA = object({
  totalCount: int32(),
  allItemsLinkUrl: str(),
  cardLabel: str(),
  responseVersion: strEnum('v1', 'v3'),
  sections: arrayOf(
    object(
      {
        id: str(),
        title: str(),
        tokens: arrayOf(object({ value: str() }, { name: str(), label: str(), dataType: strEnum(...DATA_TYPES) })),
        actions: arrayOf(action()),
      },
      { linkUrl: str() },
    ),
  ),
  topLevelActions: object({ secondary: arrayOf(action()) }, { settings: IFRAME_ACTION, primary: action() }),
});

/** HubSpot's PublicCardResponse; the audit entry's card id is int32 in 2026-09's spec. */
function publicCard(cardIdFormat: WireSchema): WireSchema {
  return object({
    id: str(),
    title: str(),
    fetch: object({
      targetUrl: str(),
      objectTypes: arrayOf(
        object({
          name: strEnum('companies', 'contacts', 'deals', 'marketing_events', 'tickets'),
          propertiesToSend: arrayOf(str()),
        }),
      ),
    }),
    display: object({
      properties: arrayOf(
        object({
          name: str(),
          label: str(),
          dataType: strEnum(...DATA_TYPES),
          options: arrayOf(
            object({ name: str(), label: str(), type: strEnum('DANGER', 'DEFAULT', 'INFO', 'SUCCESS', 'WARNING') }),
          ),
        }),
      ),
    }),
    actions: object({ baseUrls: arrayOf(str()) }),
    auditHistory: arrayOf(
      object({
        actionType: strEnum('CREATE', 'DELETE', 'UPDATE'),
        objectTypeId: cardIdFormat,
        authSource: strEnum('APP', 'EXTERNAL', 'INTERNAL'),
        changedAt: int64(),
        applicationId: int32(),
        initiatingUserId: int32(),
      }),
    ),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  });
}

export const PUBLIC_CARD_SCHEMAS = {
  v3: publicCard(int64()),
  '2026-03': publicCard(int64()),
  '2026-09': publicCard(int32()),
};
const PUBLIC_CARD_LISTS = {
  v3: object({ results: arrayOf(PUBLIC_CARD_SCHEMAS.v3) }),
  '2026-03': object({ results: arrayOf(PUBLIC_CARD_SCHEMAS['2026-03']) }),
  '2026-09': object({ results: arrayOf(PUBLIC_CARD_SCHEMAS['2026-09']) }),
};

/** HubSpot's CardMigrateViewsResponse; 2026-09's is `message` alone. */
const MIGRATE_PROGRESS = object(
  { message: str(), startedAt: int64(), totalPortalCount: int64(), remainingPortalCount: int64() },
  { endedAt: int64() },
);
export const MIGRATE_SCHEMAS = {
  v3: MIGRATE_PROGRESS,
  '2026-03': MIGRATE_PROGRESS,
  '2026-09': object({ message: str() }),
};

/** Every success answer of the cards module's HubSpot endpoints. */
export const CARDS_WIRE_OPERATIONS: WireOperation[] = wireOperations(
  {
    v3: { prefix: '/crm/v3/extensions/cards-dev', specFile: 'publicAppCrmCards.json' },
    '2026-03': { prefix: '/crm/extensions/cards-dev/2026-03', specFile: '2026-03/publicAppCrmCards.json' },
    '2026-09': { prefix: '/crm/extensions/cards-dev/2026-09', specFile: '2026-09/publicAppCrmCards.json' },
  },
  [
    {
      method: 'GET',
      path: '/sample-response',
      status: 200,
      name: 'IntegratorCardPayloadResponse',
      schema: SAMPLE_CARD_RESPONSE_SCHEMA,
    },
    { method: 'GET', path: '/{appId}', status: 200, name: 'PublicCardListResponse', schema: PUBLIC_CARD_LISTS },
    { method: 'POST', path: '/{appId}', status: 201, name: 'PublicCardResponse', schema: PUBLIC_CARD_SCHEMAS },
    {
      method: 'POST',
      path: '/{appId}/views/migrate',
      status: 200,
      name: 'CardMigrateViewsResponse',
      schema: MIGRATE_SCHEMAS,
    },
    { method: 'GET', path: '/{appId}/{cardId}', status: 200, name: 'PublicCardResponse', schema: PUBLIC_CARD_SCHEMAS },
    {
      method: 'PATCH',
      path: '/{appId}/{cardId}',
      status: 200,
      name: 'PublicCardResponse',
      schema: PUBLIC_CARD_SCHEMAS,
    },
  ],
);

/** What /docs shows for each handler (one handler serves every version). */
export const CARDS_DOCS = {
  list: anyVersion(PUBLIC_CARD_LISTS),
  card: anyVersion(PUBLIC_CARD_SCHEMAS),
  migrate: anyVersion(MIGRATE_SCHEMAS),
};
