import { hiddenFields, html, page } from './html';
import { signedInAs } from './signed-in-as.view';

export interface AccountChoice {
  hubId: number;
  domain: string;
  tier: string;
}

export interface AccountChooserView {
  appName: string;
  email: string;
  accounts: AccountChoice[];
  csrfToken: string;
  request: string;
  notice?: string;
}

export function renderAccountChooserPage(view: AccountChooserView): string {
  const notice = view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : html``;
  const choices = view.accounts.map(
    (a, i) =>
      html`<div class="choice">
        <input
          type="radio"
          id="hub-${a.hubId}"
          name="hub_id"
          value="${a.hubId}"
          required${i === 0 ? html` checked` : html``}
        />
        <label for="hub-${a.hubId}"
          ><strong>${a.domain}</strong> <span class="muted">Hub ID ${a.hubId} · ${a.tier}</span></label
        >
      </div>`,
  );
  return page(
    'Choose an account',
    html`<h1>Choose an account</h1>
      ${notice}
      <p>Choose the HubSpot account to connect <strong>${view.appName}</strong> to.</p>
      <form method="post" action="/oauth/authorize/account">
        ${hiddenFields({ _csrf: view.csrfToken, request: view.request })}
        <fieldset>
          <legend>Your accounts</legend>
          ${choices}
        </fieldset>
        <div class="actions"><button type="submit" class="primary">Choose account</button></div>
      </form>
      ${signedInAs({ email: view.email, csrfToken: view.csrfToken, request: view.request })}`,
  );
}
