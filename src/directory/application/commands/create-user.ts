import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import { DirectoryAnswers } from '../directory-answers';
import { hashPassword } from '../../../platform/security/password-hash';
import { DirectoryQueries, UserView } from '../../directory.queries';
import { IdTaken, userDecider, userIdDecider } from '../../domain/directory-deciders';
import { userIdStream, userStream } from '../../domain/directory-events';
import { withFreshId } from '../fresh-id';

/** A user of some accounts; the e-mail is unique. The password is hashed before any event. */
export class CreateUser extends Command<UserView> {
  constructor(
    readonly email: string,
    readonly password: string,
    readonly hubIds: number[],
    readonly context: CommandContext,
    /** An id the caller chose (a fixtures file); absent, a fresh random one. */
    readonly givenUserId?: number,
  ) {
    super();
  }
}

/**
 * Creates a user in two named steps: reserve a fresh user id (its own claim stream, since user
 * streams are keyed by e-mail), then the user's stream keyed by the normalized e-mail (409 when
 * the e-mail exists; the reserved id then stays unused).
 */
@CommandHandler(CreateUser)
export class CreateUserHandler implements ICommandHandler<CreateUser> {
  private readonly userIds;
  private readonly users;

  constructor(
    streams: EventStreams,
    private readonly answers: DirectoryAnswers,
    private readonly queries: DirectoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.userIds = streams.forDecider(userIdDecider);
    this.users = streams.forDecider(userDecider);
  }

  async execute({ email, password, hubIds, context, givenUserId }: CreateUser): Promise<UserView> {
    const normalized = email.trim().toLowerCase();
    const unknown = hubIds.filter((id) => !this.queries.getAccount(id));
    if (unknown.length > 0) {
      throw HubSpotError.validation(
        'Unknown account ids.',
        unknown.map((id) => ({ message: `No account with hubId ${id}`, in: 'hubIds', code: 'INVALID' })),
      );
    }
    const passwordHash = await hashPassword(password);
    const userId =
      givenUserId === undefined
        ? await this.reserveUserId(normalized, context)
        : await this.reserveGivenUserId(givenUserId, normalized, context);
    const { position } = await this.users.handle(
      userStream(normalized),
      { userId, email: normalized, passwordHash, hubIds, now: this.clock.now() },
      context,
    );
    return this.answers.answer(position, [userStream(normalized)], (directory) => directory.getUser(userId));
  }

  /** Step 1 with an id the caller chose: 409 when another user holds it. */
  private async reserveGivenUserId(userId: number, email: string, context: CommandContext): Promise<number> {
    try {
      await this.userIds.handle(userIdStream(userId), { userId, email }, context);
      return userId;
    } catch (error) {
      if (error instanceof IdTaken) throw HubSpotError.conflict(`A user with userId ${userId} already exists.`);
      throw error;
    }
  }

  /** Step 1: a random user id nobody holds, reserved for this e-mail. */
  private reserveUserId(email: string, context: CommandContext): Promise<number> {
    return withFreshId('directory.user-id', async (userId) => {
      await this.userIds.handle(userIdStream(userId), { userId, email }, context);
      return userId;
    });
  }
}
