import { describeScopes, scopeDescription } from '../../../platform/scopes/scope-catalog';
import { hiddenFields, html, Html, page } from './html';
import { signedInAs } from './signed-in-as.view';

export interface ConsentView {
  appName: string;
  email: string;
  account: { hubId: number; domain: string; tier: string };
  requiredScopes: string[];
  optionalScopes: string[];
  /** Optional scopes the account's tier cannot use: dropped, and said so. */
  unavailableScopes: string[];
  redirectOrigin: string;
  csrfToken: string;
  request: string;
  chooseAnotherHref: string;
}

/** What each scope allows, in people's words, the raw name beside it, grouped as HubSpot groups them. */
const scopeList = (scopes: string[]): Html =>
  html`${describeScopes(scopes).map(
    (g) =>
      html`<h2 class="scope-group">${g.group}</h2>
        <ul class="scopes">
          ${g.scopes.map(
            (s) => html`<li>${s.description === null ? html`` : html`${s.description} `}<code>${s.name}</code></li>`,
          )}
        </ul>`,
  )}`;

export function renderConsentPage(view: ConsentView): string {
  const optional =
    view.optionalScopes.length > 0
      ? html`<fieldset>
          <legend>Optional permissions</legend>
          <p class="muted">Granted as well, because your account can use them.</p>
          ${scopeList(view.optionalScopes)}
        </fieldset>`
      : html``;
  const unavailable =
    view.unavailableScopes.length > 0
      ? html`<p class="muted" id="unavailable-scopes">
          Not available on the ${view.account.tier} tier, so not granted:
          ${view.unavailableScopes.map(
            (s, i) => html`${i > 0 ? '; ' : ''}${scopeDescription(s) ?? ''} (<code>${s}</code>)`,
          )}.
        </p>`
      : html``;
  return page(
    `Connect ${view.appName}`,
    html`<h1>Connect <span id="app-name">${view.appName}</span> to ${view.account.domain}</h1>
      <p>
        <strong>${view.appName}</strong> is asking for access to the HubSpot account
        <strong>${view.account.domain}</strong> (Hub ID ${view.account.hubId}).
        <a href="${view.chooseAnotherHref}">Choose another account</a>
      </p>
      <form method="post" action="/oauth/authorize/decision">
        ${hiddenFields({ _csrf: view.csrfToken, request: view.request, hub_id: view.account.hubId })}
        <fieldset>
          <legend>Required permissions</legend>
          ${view.requiredScopes.length > 0 ? scopeList(view.requiredScopes) : html`<p class="muted">None.</p>`}
        </fieldset>
        ${optional} ${unavailable}
        <p class="muted">If you connect, you will be sent back to <code>${view.redirectOrigin}</code>.</p>
        <div class="actions">
          <button type="submit" name="decision" value="approve" class="primary">Connect app</button>
          <button type="submit" name="decision" value="deny">Cancel</button>
        </div>
      </form>
      ${signedInAs({ email: view.email, csrfToken: view.csrfToken, request: view.request, portalId: view.account.hubId })}`,
  );
}
