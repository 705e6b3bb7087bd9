/**
 * The OAuth module's install events, as this module reads them from the feed (their type strings
 * and the fields it uses). Kept to what the outbox needs: which app is installed in which account,
 * with which scopes.
 */
export const InstallEventType = {
  AppInstalled: 'oauth.AppInstalled',
  AppInstallScopesChanged: 'oauth.AppInstallScopesChanged',
  AppUninstalled: 'oauth.AppUninstalled',
} as const;

export interface AppInstalled {
  type: typeof InstallEventType.AppInstalled;
  data: { appId: number; hubId: number; scopes: string[] };
}
export interface AppInstallScopesChanged {
  type: typeof InstallEventType.AppInstallScopesChanged;
  data: { appId: number; hubId: number; scopes: string[] };
}
export interface AppUninstalled {
  type: typeof InstallEventType.AppUninstalled;
  data: { appId: number; hubId: number };
}
export type InstallEvent = AppInstalled | AppInstallScopesChanged | AppUninstalled;
