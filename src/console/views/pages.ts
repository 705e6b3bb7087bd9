import { Html, html } from '../../oauth';
import type { AuditFilter, AuditPage } from '../application/audit-trail';
import { EVENT_HEADERS, eventRow } from './event-row';
import { actionForm, consolePage, iso, table, withoutSecretLike } from './layout';

export function signInPage(csrfToken: string, refused?: string): string {
  return consolePage(
    'Sign in to the console',
    html`${refused ? html`<p class="alert" role="alert">${refused}</p>` : html``}
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="_csrf" value="${csrfToken}" />
        <label for="adminKey">Admin key</label>
        <input id="adminKey" name="adminKey" type="password" autocomplete="current-password" required autofocus />
        <p class="muted">ADMIN_API_KEY, or the demo key the start banner printed.</p>
        <div class="actions"><button type="submit" class="primary">Sign in</button></div>
      </form>`,
  );
}

export function errorPage(title: string, message: string, csrfToken?: string): string {
  return consolePage(title, html`<p class="alert" role="alert">${message}</p>`, csrfToken ? { csrfToken } : undefined);
}

export function pager(olderHref: string | null, newestHref: string | null): Html {
  return html`<nav class="pager" aria-label="Pages">
    ${newestHref ? html`<a href="${newestHref}">Newest</a>` : html``}
    ${olderHref ? html`<a href="${olderHref}">Older</a>` : html``}
  </nav>`;
}

/** The audit trail page: the filters form, the live tail switch, the page of events newest first. */
export function eventsPage(
  csrfToken: string,
  filter: AuditFilter,
  { events, older, scanCut, followFrom }: AuditPage,
): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(filter)) if (v !== undefined) params.set(k, String(v));
  // The live tail starts after the position this page was rendered at.
  const live = new URLSearchParams(params);
  live.set('from', String(followFrom));
  const olderHref = older === null ? null : `/console/events?${params.toString()}&before=${older}`;
  const field = (name: keyof AuditFilter, label: string) =>
    html`<div>
      <label for="f-${name}">${label}</label
      ><input id="f-${name}" type="text" name="${name}" value="${filter[name] ?? ''}" />
    </div>`;
  return consolePage(
    'Audit trail',
    html`<form class="filters" method="get" action="/console/events">
        ${field('hubId', 'Account (hubId)')} ${field('appId', 'App (appId)')} ${field('stream', 'Stream')}
        ${field('type', 'Type')} ${field('correlationId', 'Correlation id')}
        <button type="submit">Filter</button>
      </form>
      <p>
        <button type="button" id="tail-toggle" aria-pressed="false" data-live="/console/events/live?${live.toString()}">
          Follow live
        </button>
        <span id="tail-state" class="muted" role="status"></span>
      </p>
      ${
        scanCut
          ? html`<p class="notice">
              This page read its budget of events without filling up: older matches may follow.
            </p>`
          : html``
      }
      ${table(EVENT_HEADERS, events.map(eventRow), 'No events match.')}
      ${pager(olderHref, older === null && events.length === 0 ? null : `/console/events?${params.toString()}`)}
      <script>
        (() => {
          const button = document.getElementById('tail-toggle');
          const state = document.getElementById('tail-state');
          let source = null;
          // After the last event shown live: following again does not repeat it.
          let lastId = '';
          button.addEventListener('click', () => {
            if (source) {
              source.close();
              source = null;
              button.setAttribute('aria-pressed', 'false');
              button.textContent = 'Follow live';
              state.textContent = '';
              return;
            }
            const url = new URL(button.dataset.live, location.href);
            if (lastId) url.searchParams.set('from', lastId);
            source = new EventSource(url);
            button.setAttribute('aria-pressed', 'true');
            button.textContent = 'Stop following';
            source.addEventListener('open', () => {
              state.textContent = 'Following: new events appear at the top.';
            });
            // EventSource reconnects by itself and sends the last event's id: the server replays what was missed.
            source.addEventListener('error', () => {
              if (source) state.textContent = 'Connection lost: reconnecting…';
            });
            source.addEventListener('gap', () => {
              state.textContent =
                'More events came while disconnected than can be replayed: reload the page to see them all.';
            });
            source.addEventListener('message', (m) => {
              lastId = m.lastEventId;
              let body = document.querySelector('main table tbody');
              if (!body) {
                location.reload();
                return;
              }
              body.insertAdjacentHTML('afterbegin', JSON.parse(m.data));
            });
          });
        })();
      </script>`,
    { csrfToken },
  );
}

export { actionForm, html, iso, table, withoutSecretLike };
