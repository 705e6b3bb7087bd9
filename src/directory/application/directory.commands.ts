import { Command } from '@nestjs/cqrs';
import type { Tier } from '../../platform/tiers';
import type { CommandContext } from '../../platform/events/envelope';
import type { AccountView, AppView, UserView } from '../directory.queries';

/**
 * The directory's state changes, one class each, dispatched on the CommandBus by the admin API
 * and the demo seed (handlers under ./handlers). Each answers once the read model holds it.
 */

/** An account (hub) on its own domain; the domain is unique. */
export class CreateAccount extends Command<AccountView> {
  constructor(
    readonly domain: string,
    readonly tier: Tier,
    readonly hublet: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** A user of some accounts; the e-mail is unique. The password is hashed before any event. */
export class CreateUser extends Command<UserView> {
  constructor(
    readonly email: string,
    readonly password: string,
    readonly hubIds: number[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

export interface AppSettings {
  developerHubId: number;
  name: string;
  redirectUrls: string[];
  requiredScopes: string[];
  optionalScopes: string[];
  /** Only the demo seed fixes its credentials (they are public demo data). */
  fixedCredentials?: { clientId: string; clientSecret: string };
}

/** A public app of a developer account. Answers the client secret, shown only here and stored only hashed. */
export class RegisterApp extends Command<{ app: AppView; clientSecret: string }> {
  constructor(
    readonly settings: AppSettings,
    readonly context: CommandContext,
  ) {
    super();
  }
}
