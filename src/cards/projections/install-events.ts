/**
 * The OAuth module's install events, as the cards read model reads them from the global feed.
 * The OAuth module owns and registers these types; their type strings and the fields below are
 * the contract between the two modules, so nothing of OAuth's internals is imported here.
 */
export const InstallEventType = {
  AppInstalled: 'oauth.AppInstalled',
  AppUninstalled: 'oauth.AppUninstalled',
} as const;

/** The fields of `oauth.AppInstalled` the views use (it holds more: the installing user, scopes). */
export interface AppInstalled {
  type: typeof InstallEventType.AppInstalled;
  data: { appId: number; hubId: number; installedAt: number };
}

/** The fields of `oauth.AppUninstalled` the views use. */
export interface AppUninstalled {
  type: typeof InstallEventType.AppUninstalled;
  data: { appId: number; hubId: number };
}
