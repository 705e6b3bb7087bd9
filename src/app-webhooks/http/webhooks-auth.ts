import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { DirectoryQueries } from '../../directory/directory.queries';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { Authenticated, type RouteFacts } from '../../platform/http/authentication';

/** The developer account calling, and with an OAuth token the one app the token belongs to. */
export interface WebhooksCaller {
  hubId: number;
  appId?: number;
}

/**
 * Who may manage an app's webhooks, as each version's spec declares: the developer API key
 * (`?hapikey=`, what `@hubspot/api-client`'s webhooks APIs send) of the app's developer account at
 * every version, and at v3 and 2026-03 also an OAuth token with `developers-read` /
 * `developers-write` (2026-09 declares the developer key only). The `developer` credential of the
 * one authentication guard; the app itself is checked by `checkAppOwnership`.
 */
const scopesOf =
  (anyOf: readonly string[]) =>
  ({ version }: RouteFacts): readonly string[] => {
    if (version === '2026-09') {
      throw HubSpotError.invalidAuthentication(
        'The 2026-09 webhooks API takes the developer API key of the app’s developer account (?hapikey=), not an access token.',
      );
    }
    return anyOf;
  };

export const WebhooksRead = () =>
  Authenticated({ by: 'developer', scopes: scopesOf(['developers-read', 'developers-write']) });
export const WebhooksWrite = () => Authenticated({ by: 'developer', scopes: scopesOf(['developers-write']) });

/** `@Caller()`: the developer caller the `developer` credential admitted (`request.developer`). */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): WebhooksCaller => {
  const developer = ctx.switchToHttp().getRequest<{ developer?: WebhooksCaller }>().developer;
  if (!developer) throw new Error("@Caller() used on a route without @Authenticated({ by: 'developer' })");
  return developer;
});

/** The app the caller manages: unknown 404, another developer account's (or another app's token) 403. */
export function checkAppOwnership(directory: DirectoryQueries, caller: WebhooksCaller, appId: number): void {
  const app = directory.getApp(appId);
  if (!app) throw HubSpotError.notFound(`App ${appId} was not found.`);
  if (caller.appId !== undefined && caller.appId !== appId) {
    throw HubSpotError.forbidden(
      `This access token was issued to app ${caller.appId}; it manages that app's webhooks only.`,
    );
  }
  if (app.developerHubId !== caller.hubId) {
    throw HubSpotError.forbidden(
      `App ${appId} belongs to developer account ${app.developerHubId}; these credentials are for account ${caller.hubId}.`,
    );
  }
}
