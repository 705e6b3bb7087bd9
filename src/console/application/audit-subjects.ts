import { streamNamedIds } from '../../platform/events/stream-named-ids';

/** Where an event's data names an account: these fields, or any of `hubIds`. */
const ACCOUNT_FIELDS = ['hubId', 'portalId', 'developerHubId'] as const;

const idOf = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return null;
};

/**
 * The accounts and apps an event concerns, as index subjects (`h<hubId>`, `a<appId>`): its data's
 * hubId, portalId, developerHubId and hubIds name accounts, its appId an app (numbers, or their
 * decimal strings). The audit trail's filter and its index both ask here.
 */
export function subjectsOf(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const d = data as Record<string, unknown>;
  // Distinct, in first-seen order; no Set for the usual one or two (the index asks for every event).
  const out: string[] = [];
  for (const field of ACCOUNT_FIELDS) {
    const id = idOf(d[field]);
    if (id !== null && !out.includes(`h${id}`)) out.push(`h${id}`);
  }
  if (Array.isArray(d.hubIds)) {
    const seen = new Set(out);
    for (const v of d.hubIds.slice(0, 1000)) {
      const id = idOf(v);
      if (id === null || seen.has(`h${id}`)) continue;
      seen.add(`h${id}`);
      out.push(`h${id}`);
    }
  }
  const app = idOf(d.appId);
  if (app !== null) out.push(`a${app}`);
  return out;
}

/**
 * The account and app subjects of an event: from its stream id where its type's stream names them
 * (streamNamedIds: the same ids, without parsing a large event's data), else from its data.
 */
export function accountAndAppSubjects(event: { type: string; streamId: string; data: unknown }): string[] {
  return subjectsOf(streamNamedIds.of(event) ?? event.data);
}

/** What the audit trail can be filtered by, as far as the index is concerned. */
export interface IndexedFilter {
  hubId?: number;
  appId?: number;
  stream?: string;
  type?: string;
  correlationId?: string;
}

/** An event's stream, type and correlation id as index subjects (`s:`, `t:`, `c:`; never confused with `h`/`a`). */
const streamSubject = (stream: string) => `s:${stream}`;
const typeSubject = (type: string) => `t:${type}`;
const correlationSubject = (id: string) => `c:${id}`;

/** Every subject the console's index files an event under: its accounts and app, stream, type and correlation id. */
export function indexSubjectsOf(event: {
  streamId: string;
  type: string;
  data: unknown;
  metadata: { correlationId?: unknown };
}): string[] {
  const out = accountAndAppSubjects(event);
  out.push(streamSubject(event.streamId), typeSubject(event.type));
  const correlation = event.metadata.correlationId;
  if (typeof correlation === 'string' && correlation !== '') out.push(correlationSubject(correlation));
  return out;
}

/** The subjects an event must be filed under to match the filter (empty: no filter). */
export function filterSubjects(f: IndexedFilter): string[] {
  return [
    ...(f.hubId !== undefined ? [`h${f.hubId}`] : []),
    ...(f.appId !== undefined ? [`a${f.appId}`] : []),
    ...(f.stream !== undefined ? [streamSubject(f.stream)] : []),
    ...(f.type !== undefined ? [typeSubject(f.type)] : []),
    ...(f.correlationId !== undefined ? [correlationSubject(f.correlationId)] : []),
  ];
}
