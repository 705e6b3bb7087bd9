import { Html, html } from '../../oauth';
import type { RecordedEvent } from '../../platform/events/envelope';
import { iso, shownJson, withoutSecretLike } from './layout';

/**
 * One audit event as a table row: its data already redacted (auditView), secret-like runs withheld.
 * Stream, actor and correlation id are long unbroken tokens: their cells may break anywhere, so the
 * data column keeps its width at 1280 px.
 */
export function eventRow(e: RecordedEvent): Html {
  const q = (name: string, value: string) => `/console/events?${name}=${encodeURIComponent(value)}`;
  // A stream named by a hash (a refresh token's, a code's) is shown withheld, and not linked: the link would carry it.
  const shownStream = withoutSecretLike(e.streamId);
  const stream =
    shownStream === e.streamId ? html`<a href="${q('stream', e.streamId)}">${shownStream}</a>` : html`${shownStream}`;
  return html`<tr>
    <td>${e.position}</td>
    <td>${iso(e.metadata.occurredAt)}</td>
    <td><a href="${q('type', e.type)}">${e.type}</a></td>
    <td class="token">${stream}</td>
    <td class="token">${withoutSecretLike(e.metadata.actor)}</td>
    <td class="token"><a href="${q('correlationId', e.metadata.correlationId)}">${e.metadata.correlationId}</a></td>
    <td><pre>${shownJson(e.data)}</pre></td>
  </tr>`;
}

export const EVENT_HEADERS = ['Position', 'Time', 'Type', 'Stream', 'Actor', 'Correlation id', 'Data'];
