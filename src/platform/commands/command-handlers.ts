import { Inject, type Type } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';

/** The one handler of an aggregate's commands. */
export interface SharedHandler<C> {
  execute(command: C): Promise<unknown>;
}

/**
 * One handler for all the commands of one aggregate. `@nestjs/cqrs` 12 binds one command class per
 * `@CommandHandler` class, so this makes one registration per command that hands it to the shared
 * handler instance (a provider of the module); nothing else is in between. List the result in
 * `EventSourcingModule.forFeature({ commandHandlers })`.
 */
export function commandHandlersFor<C extends object>(
  handler: Type<SharedHandler<C>>,
  commands: ReadonlyArray<Type<C>>,
): Type<ICommandHandler>[] {
  const registrations = commands.map((command) => {
    @CommandHandler(command)
    class Registration {
      constructor(@Inject(handler) private readonly target: SharedHandler<C>) {}
      execute(c: C): Promise<unknown> {
        return this.target.execute(c);
      }
    }
    Object.defineProperty(Registration, 'name', { value: `${command.name}Registration` });
    return Registration;
  });
  return [handler as Type<ICommandHandler>, ...registrations];
}
