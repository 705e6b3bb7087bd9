import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../platform/config/config';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AdminKey } from '../platform/security/admin-key';
import { AdminAuthentication } from '../platform/security/admin-authentication';
import { ChangeAccountSettingsHandler } from './application/commands/change-account-settings';
import { CreateAccountHandler } from './application/commands/create-account';
import { IssueDeveloperApiKeyHandler } from './application/commands/issue-developer-api-key';
import { CreateUserHandler } from './application/commands/create-user';
import { RegisterAppHandler } from './application/commands/register-app';
import { DirectoryAnswers } from './application/directory-answers';
import { DirectoryQueries } from './directory.queries';
import { directoryEvents } from './domain/directory-events';
import { AccountsController } from './http/accounts.controller';
import { AppsController } from './http/apps.controller';
import { EventsController } from './http/events.controller';
import { UsersController } from './http/users.controller';
import { DirectoryProjection } from './projections/directory.projection';
import { DemoSeeder } from './seed/demo-seeder';

/** Accounts, users and apps: the admin API, the demo seed, and DirectoryQueries for every module. */
@Module(
  EventSourcingModule.forFeature({
    events: directoryEvents,
    projections: [DirectoryProjection],
    commandHandlers: [
      CreateAccountHandler,
      ChangeAccountSettingsHandler,
      IssueDeveloperApiKeyHandler,
      CreateUserHandler,
      RegisterAppHandler,
    ],
    controllers: [AccountsController, UsersController, AppsController, EventsController],
    providers: [
      { provide: AdminKey, inject: [APP_CONFIG], useFactory: (c: AppConfig) => new AdminKey(c) },
      AdminAuthentication,
      DirectoryQueries,
      DirectoryAnswers,
      DemoSeeder,
    ],
    exports: [AdminKey, DirectoryQueries, DemoSeeder],
  }),
)
export class DirectoryModule {}
