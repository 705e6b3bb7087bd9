import { Html, html } from '../../oauth';
import type { RecordedEvent } from '../../platform/events/envelope';
import { iso, withoutSecretLike } from './layout';

/** One audit event as a table row: its data already redacted (auditView), secret-like runs withheld. */
export function eventRow(e: RecordedEvent): Html {
  const q = (name: string, value: string) => `/console/events?${name}=${encodeURIComponent(value)}`;
  return html`<tr>
    <td>${e.position}</td>
    <td>${iso(e.metadata.occurredAt)}</td>
    <td><a href="${q('type', e.type)}">${e.type}</a></td>
    <td><a href="${q('stream', e.streamId)}">${withoutSecretLike(e.streamId)}</a></td>
    <td>${withoutSecretLike(e.metadata.actor)}</td>
    <td><a href="${q('correlationId', e.metadata.correlationId)}">${e.metadata.correlationId}</a></td>
    <td><pre>${withoutSecretLike(JSON.stringify(e.data, null, 1))}</pre></td>
  </tr>`;
}

export const EVENT_HEADERS = ['Position', 'Time', 'Type', 'Stream', 'Actor', 'Correlation id', 'Data'];
