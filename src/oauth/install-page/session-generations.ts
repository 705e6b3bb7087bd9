import { Injectable } from '@nestjs/common';

/**
 * Sign-out on the server side: each user has a session generation, written into the session at
 * sign-in; signing out moves the user's generation on, so every session cookie issued before (one
 * copied from the browser included) stops being a sign-in. Memory is one number per user who
 * signed out. In memory, per instance: after a restart, cookies of generation 0 are valid again
 * until they expire (SESSION_TTL_SECONDS), later ones are not (README, install page).
 */
@Injectable()
export class SessionGenerations {
  private readonly byUser = new Map<number, number>();

  current(userId: number): number {
    return this.byUser.get(userId) ?? 0;
  }

  /** Ends every session of the user issued so far. */
  endAll(userId: number): void {
    this.byUser.set(userId, this.current(userId) + 1);
  }

  /** The session's user while its generation is the user's current one; undefined otherwise. */
  signedInUser(userId: unknown, generation: unknown): number | undefined {
    if (typeof userId !== 'number') return undefined;
    return (typeof generation === 'number' ? generation : 0) === this.current(userId) ? userId : undefined;
  }
}
