import { hiddenFields, html, page } from './html';

export interface SignInView {
  appName: string;
  csrfToken: string;
  request: string;
  portalId?: number;
  email?: string;
  error?: string;
}

export function renderSignInPage(view: SignInView): string {
  const error = view.error ? html`<p class="alert" role="alert" id="sign-in-error">${view.error}</p>` : html``;
  return page(
    'Sign in to connect an app',
    html`<h1>Sign in to connect ${view.appName}</h1>
      <p><strong>${view.appName}</strong> wants access to a HubSpot account. Sign in to choose the account.</p>
      ${error}
      <form method="post" action="/oauth/authorize/sign-in" novalidate>
        ${hiddenFields({ _csrf: view.csrfToken, request: view.request, portal_id: view.portalId })}
        <label for="email">E-mail address</label>
        <input
          type="email"
          id="email"
          name="email"
          autocomplete="username"
          required
          autofocus
          value="${view.email ?? ''}"
          ${ariaDescribedBy(view.error)}
        />
        <label for="password">Password</label>
        <input
          type="password"
          id="password"
          name="password"
          autocomplete="current-password"
          required${ariaDescribedBy(view.error)}
        />
        <div class="actions"><button type="submit" class="primary">Sign in</button></div>
      </form>`,
  );
}

function ariaDescribedBy(error: string | undefined) {
  return error ? html` aria-describedby="sign-in-error" aria-invalid="true"` : html``;
}
