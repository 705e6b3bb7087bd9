import { Injectable } from '@nestjs/common';
import { DirectoryQueries, type AppView } from '../../directory/directory.queries';
import { HubSpotError } from '../../platform/errors/hubspot-error';

/**
 * The cards API is a developer API: the token or developer API key must be of the developer account that owns
 * the app. An unknown app is 404; someone else's app is 403 (its existence is not a secret:
 * app ids are public in install URLs).
 */
@Injectable()
export class AppOwnership {
  constructor(private readonly directory: DirectoryQueries) {}

  /**
   * `caller`: the developer account of the token or developer API key, and with a token the app it
   * was issued to. A developer API key manages every app of its developer account (HubSpot's
   * developer key is per developer account); a token manages only its own app, even when the
   * account owns others.
   */
  appOwnedBy(caller: { hubId: number; appId?: number }, appId: number): AppView {
    const app = this.directory.getApp(appId);
    if (!app) throw HubSpotError.notFound(`App ${appId} was not found.`);
    if (caller.appId !== undefined && caller.appId !== appId) {
      throw HubSpotError.forbidden(
        `This access token was issued to app ${caller.appId}; it manages that app's cards only. Use a token of app ${appId}, or the developer API key of its developer account.`,
      );
    }
    if (app.developerHubId !== caller.hubId) {
      throw HubSpotError.forbidden(
        `App ${appId} belongs to developer account ${app.developerHubId}; these credentials are for account ${caller.hubId}. Use a token or developer API key of the app's developer account.`,
      );
    }
    return app;
  }

  existingApp(appId: number): AppView {
    const app = this.directory.getApp(appId);
    if (!app) throw HubSpotError.notFound(`App ${appId} was not found.`);
    return app;
  }
}
