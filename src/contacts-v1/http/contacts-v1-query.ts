import { parseBooleanParam } from '../../platform/http/boolean-param';
import { invalidParameter } from '../domain/contacts-v1-errors';

/** The query of the v1 contact reads, as HubSpot's v1 docs name its parameters. */
export interface LegacyQuery {
  count: number;
  vidOffset: number;
  /** `property` (repeatable): these instead of the endpoint's defaults. */
  properties?: string[];
  propertyMode: 'value_only' | 'value_and_history';
  showListMemberships: boolean;
}

type Raw = Record<string, string | string[] | undefined>;

const LIST_DEFAULT_COUNT = 20;
const LIST_MAX_COUNT = 100;
const MAX_PROPERTIES = 1000;
const FORM_SUBMISSION_MODES = new Set(['all', 'none', 'newest', 'oldest']);

const single = (raw: Raw, name: string): string | undefined => {
  const v = raw[name];
  if (Array.isArray(v)) throw invalidParameter(name, `${name} may be given once`);
  return v === '' ? undefined : v;
};

function nonNegativeInteger(raw: Raw, name: string, whenAbsent: number): number {
  const v = single(raw, name);
  if (v === undefined) return whenAbsent;
  if (!/^\d{1,15}$/.test(v)) throw invalidParameter(name, `${name} must be a non-negative integer`);
  return Number(v);
}

/**
 * The list (`lists/all/contacts/all`) reads history only when asked and lists no memberships; a
 * profile reads both unless told otherwise (HubSpot's v1 defaults). `count` above 100 is read as
 * 100, as HubSpot's docs give 100 as the most a page holds.
 */
export function parseLegacyQuery(raw: Raw, endpoint: 'list' | 'profile'): LegacyQuery {
  const count = nonNegativeInteger(raw, 'count', LIST_DEFAULT_COUNT);
  if (count < 1) throw invalidParameter('count', 'count must be at least 1');
  const mode = single(raw, 'propertyMode') ?? (endpoint === 'list' ? 'value_only' : 'value_and_history');
  if (mode !== 'value_only' && mode !== 'value_and_history')
    throw invalidParameter('propertyMode', 'propertyMode is value_only or value_and_history');
  const forms = single(raw, 'formSubmissionMode');
  if (forms !== undefined && !FORM_SUBMISSION_MODES.has(forms))
    throw invalidParameter('formSubmissionMode', 'formSubmissionMode is all, none, newest or oldest');
  const properties = propertyNames(raw.property);
  return {
    count: Math.min(count, LIST_MAX_COUNT),
    vidOffset: nonNegativeInteger(raw, 'vidOffset', 0),
    ...(properties ? { properties } : {}),
    propertyMode: mode,
    showListMemberships: parseBooleanParam(
      single(raw, 'showListMemberships'),
      'showListMemberships',
      endpoint === 'profile',
    ),
  };
}

function propertyNames(raw: string | string[] | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw : [raw]).filter((n) => n !== '');
  if (list.length > MAX_PROPERTIES || list.some((n) => n.length > 200 || !/^[A-Za-z0-9_.-]+$/.test(n)))
    throw invalidParameter('property', 'property names a contact property (repeat it for several)');
  return list.length > 0 ? [...new Set(list)] : undefined;
}

/** A vid in the path: a positive integer id. */
export function parseVid(raw: string): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1)
    throw invalidParameter('vid', 'vid must be a contact id (a positive integer)');
  return Number(raw);
}
