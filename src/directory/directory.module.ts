import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../platform/config/config';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AdminKey } from '../platform/security/admin-key';
import { AdminGuard } from '../platform/security/admin.guard';
import { DirectoryCommands } from './application/directory.commands';
import { DirectoryQueries } from './directory.queries';
import { DirectoryEventType } from './domain/directory-events';
import { AccountsController } from './http/accounts.controller';
import { AppsController } from './http/apps.controller';
import { EventsController } from './http/events.controller';
import { UsersController } from './http/users.controller';
import { DirectoryProjection } from './projections/directory.projection';
import { DemoSeeder } from './seed/demo-seeder';

@Module(
  EventSourcingModule.forFeature({
    events: Object.fromEntries(Object.values(DirectoryEventType).map((t) => [t, null])),
    projections: [DirectoryProjection],
    controllers: [AccountsController, UsersController, AppsController, EventsController],
    providers: [
      { provide: AdminKey, inject: [APP_CONFIG], useFactory: (c: AppConfig) => new AdminKey(c) },
      AdminGuard,
      DirectoryQueries,
      DirectoryCommands,
      DemoSeeder,
    ],
    exports: [AdminKey, AdminGuard, DirectoryQueries, DirectoryCommands, DemoSeeder],
  }),
)
export class DirectoryModule {}
