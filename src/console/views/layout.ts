import { Html, html, INSTALL_PAGE_STYLE } from '../../oauth';

/** The install page's stylesheet, widened for tables: the same colours, type, buttons and focus ring. */
const CONSOLE_STYLE = `
main{max-width:76rem;margin:1rem auto;padding:1.25rem}
nav.top{max-width:76rem;margin:1rem auto 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:0 1.25rem}
nav.top a{font-weight:600}
nav.top form{margin-left:auto}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.table{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid var(--line);overflow-wrap:break-word}
td.token{overflow-wrap:anywhere}
th{color:var(--muted);font-weight:600}
pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem;max-height:16rem;overflow:auto;min-width:18rem}
form.inline{display:inline-flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:.15rem 0}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;margin:.5rem 0 1rem}
form.filters label{margin:0;font-size:.85rem}
input[type=text],input[type=number],select{padding:.4rem;border:1px solid var(--line);border-radius:4px;font:inherit;max-width:100%}
form.inline button,form.filters button{padding:.35rem .8rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0}
dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
.pager{display:flex;gap:1rem;margin:1rem 0}
@media (max-width:700px){main{padding:.75rem;margin:.5rem auto}.table table{min-width:46rem}nav.top{padding:0 .75rem}}
`;

const LINKS: Array<[string, string]> = [
  ['/console/accounts', 'Accounts'],
  ['/console/apps', 'Apps'],
  ['/console/events', 'Audit trail'],
  ['/console/records', 'Records'],
  ['/console/controls', 'Test controls'],
];

/** A console page: the navigation and sign-out form when signed in, then the body in `<main>`. */
export function consolePage(title: string, body: Html, signedIn?: { csrfToken: string }): string {
  const nav = signedIn
    ? html`<nav class="top" aria-label="Console">
        ${LINKS.map(([href, label]) => html`<a href="${href}">${label}</a>`)}
        <form method="post" action="/console/sign-out">
          <input type="hidden" name="_csrf" value="${signedIn.csrfToken}" />
          <button type="submit" class="link">Sign out</button>
        </form>
      </nav>`
    : html``;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · Console</title>
        <style>
          ${new Html(INSTALL_PAGE_STYLE + CONSOLE_STYLE)}
        </style>
      </head>
      <body>
        ${nav}
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`.value;
}

/** A POST form of one button (an admin action), with the CSRF token and any hidden fields. */
export function actionForm(
  action: string,
  label: string,
  csrfToken: string,
  extra: Html = html``,
  hidden: Record<string, string> = {},
): Html {
  return html`<form class="inline" method="post" action="${action}">
    <input type="hidden" name="_csrf" value="${csrfToken}" />
    ${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)} ${extra}
    <button type="submit">${label}</button>
  </form>`;
}

export const iso = (ms: number | null | undefined): string => (ms == null ? '—' : new Date(ms).toISOString());

/** A table; the wrapper scrolls a wide one inside the page instead of widening the page. */
export function table(headers: string[], rows: Html[], empty = 'None.'): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table">
    <table>
      <thead>
        <tr>
          ${headers.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

/** Long runs of hex, base64url or padded base64 (hashes, tokens, signatures) are never shown, wherever they sit. */
const SECRET_LIKE = /[A-Fa-f0-9]{32,}|[A-Za-z0-9_-]{40,}|[A-Za-z0-9+/]{40,}={1,2}/g;
export function withoutSecretLike(text: string): string {
  return text.replace(SECRET_LIKE, '[withheld]');
}

/** Fields whose values are credentials or derived from one (a webhook's signature headers, a token's hash). */
const SECRET_KEY = /signature|secret|password|hash|^token$|accesstoken|refreshtoken/i;

/** A value as indented JSON for a page: secret fields and secret-like runs withheld. */
export function shownJson(value: unknown): string {
  return withoutSecretLike(
    JSON.stringify(value, (key, v: unknown) => (SECRET_KEY.test(key) && typeof v === 'string' ? '[withheld]' : v), 1),
  );
}
