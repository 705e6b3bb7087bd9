import type { AccountChooserView } from './views/account-chooser.view';
import type { ConsentView } from './views/consent.view';
import type { SignInView } from './views/sign-in.view';

/** A page's view without the CSRF token: the controller adds the session's own when it renders. */
type WithoutCsrf<V> = Omit<V, 'csrfToken'>;

/**
 * What the install page does next, as decided by InstallPageFlow. The controller turns each into
 * an HTML page or a redirect; failures are PageErrors (the HTML error page).
 */
export type InstallPageStep =
  | {
      kind: 'sign-in';
      status: 200 | 401 | 429 | 503;
      view: WithoutCsrf<SignInView>;
      /** Throttled: when to try again. */
      retryAfterSeconds?: number;
    }
  | { kind: 'choose-account'; view: WithoutCsrf<AccountChooserView> }
  | { kind: 'consent'; view: WithoutCsrf<ConsentView> }
  /** Signed in: a fresh session for this user (and a fresh CSRF secret), then `next` (303). */
  | { kind: 'start-session'; userId: number; next: string }
  /** Signed out: the session ends, then `next` (303). */
  | { kind: 'end-session'; next: string }
  /** A form that only moves between steps: 303 so the browser GETs the next one. */
  | { kind: 'next-step'; location: string }
  /** The final redirect to the app, with a code or an error: 302, as HubSpot does it. */
  | { kind: 'return-to-app'; location: string };
