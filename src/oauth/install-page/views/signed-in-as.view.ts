import { hiddenFields, html, Html } from './html';

/** "Signed in as … — Sign out": a POST form (with its CSRF token) so signing out cannot be forged by a link. */
export function signedInAs(view: { email: string; csrfToken: string; request: string; portalId?: number }): Html {
  return html`<form method="post" action="/oauth/authorize/sign-out" class="muted signed-in">
    ${hiddenFields({ _csrf: view.csrfToken, request: view.request, portal_id: view.portalId })} Signed in as
    <strong>${view.email}</strong>. <button type="submit" class="link">Not you? Sign out</button>
  </form>`;
}
