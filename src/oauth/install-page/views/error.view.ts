import { html, page } from './html';

/** Shown instead of redirecting when the request cannot be trusted (unknown client, unregistered redirect URI, ...). */
export function renderErrorPage(view: { title: string; message: string; correlationId: string }): string {
  return page(
    view.title,
    html`<h1>${view.title}</h1>
      <p class="alert" role="alert">${view.message}</p>
      <p>The app was not connected. You can close this window; if the problem persists, contact the app's developer.</p>
      <p class="muted">Reference: <code>${view.correlationId}</code></p>`,
  );
}
