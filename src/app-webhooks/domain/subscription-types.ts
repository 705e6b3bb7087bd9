/**
 * HubSpot's webhook event types (the `eventType` enum of webhooks.json, v3 to 2026-09) and what
 * this service knows of them: which object type each follows, which record change it reports, and
 * the read scope an install needs to see it.
 */
const OBJECTS = ['company', 'contact', 'deal', 'ticket', 'line_item', 'product', 'object'] as const;
const ACTIONS = ['associationChange', 'creation', 'deletion', 'merge', 'propertyChange', 'restore'] as const;

export type WebhookAction = (typeof ACTIONS)[number] | 'privacyDeletion';

export const EVENT_TYPES: readonly string[] = [
  ...OBJECTS.flatMap((o) =>
    ACTIONS.filter((a) => !(o === 'product' && a === 'associationChange')).map((a) => `${o}.${a}`),
  ),
  'contact.privacyDeletion',
  'conversation.creation',
  'conversation.deletion',
  'conversation.newMessage',
  'conversation.privacyDeletion',
  'conversation.propertyChange',
  'event.completed',
].sort();

const KNOWN = new Set(EVENT_TYPES);

export const isEventType = (eventType: string): boolean => KNOWN.has(eventType);

/** The standard object types the legacy `<object>.<action>` event types name. */
export const OBJECT_TYPE_IDS: Readonly<Record<string, string>> = {
  contact: '0-1',
  company: '0-2',
  deal: '0-3',
  ticket: '0-5',
  product: '0-7',
  line_item: '0-8',
};

export function parseEventType(eventType: string): { object: string; action: WebhookAction } {
  const dot = eventType.indexOf('.');
  return { object: eventType.slice(0, dot), action: eventType.slice(dot + 1) as WebhookAction };
}

/**
 * The object type a subscription follows: the legacy type's (contact -> 0-1), or, for the generic
 * `object.*` types, the `objectTypeId` it was created with; null for types with no CRM object.
 */
export function subscribedObjectTypeId(eventType: string, objectTypeId: string | null): string | null {
  const { object } = parseEventType(eventType);
  if (object === 'object') return objectTypeId;
  return OBJECT_TYPE_IDS[object] ?? null;
}

/** An install sees an object type's events only with one of these scopes (HubSpot's read scopes). */
export function readScopesOf(objectTypeId: string): readonly string[] {
  const family: Record<string, string> = { '0-1': 'contacts', '0-2': 'companies', '0-3': 'deals' };
  if (objectTypeId === '0-5') {
    return ['tickets', 'crm.objects.tickets.sensitive.read', 'crm.objects.tickets.highly_sensitive.read'];
  }
  const name = family[objectTypeId];
  if (name === undefined) {
    if (objectTypeId === '0-7') return ['e-commerce', 'crm.objects.products.read'];
    if (objectTypeId === '0-8') return ['e-commerce', 'crm.objects.line_items.read'];
    return ['crm.objects.custom.read', 'crm.objects.custom.sensitive.read', 'crm.objects.custom.highly_sensitive.read'];
  }
  return [
    `crm.objects.${name}.read`,
    `crm.objects.${name}.sensitive.read.v2`,
    `crm.objects.${name}.highly_sensitive.read.v2`,
  ];
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

/**
 * Why a target URL is refused, or null. HubSpot requires https; plain http is accepted for
 * loopback hosts only (127.0.0.0/8, ::1, localhost), so apps can test against a local receiver.
 */
export function targetUrlProblem(targetUrl: string): string | null {
  if (targetUrl.length > 2048) return 'targetUrl is longer than 2,048 characters';
  let url: URL;
  try {
    url = new URL(targetUrl);
  } catch {
    return 'targetUrl is not an absolute URL';
  }
  if (url.username || url.password) return 'targetUrl may not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol !== 'http:') return 'targetUrl must be an https URL';
  const host = url.hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return null;
  return 'targetUrl must be an https URL (http only for loopback hosts: 127.0.0.1, ::1, localhost)';
}
