/**
 * The OAuth module's published events: the types and data shapes other modules may read from the
 * global feed (the cards views are built from installs). They are the very definitions the OAuth
 * module decides and stores (domain/oauth-events.ts), so a change to them is a change here that the
 * compiler carries to every reader. Import this file directly (lint allows a module's
 * `<module>.events.ts`, as its index.ts and `<module>.queries.ts`).
 */
export {
  OAuthEventType,
  type AppInstalled,
  type AppInstallScopesChanged,
  type AppUninstalled,
  type InstallEvent,
  oauthEvents,
} from './domain/oauth-events';
export { installClockEvents, InstallClockEventType, type InstallClockEvent } from './domain/install-clock';
