import Database from 'better-sqlite3';
import type { EventStore } from '../event-store/event-store.port';
import { isStorageFault } from '../event-store/storage-fault';
import { eventTypes } from '../events/event-type-registry';
import type { Projection } from './projection';
import type { ProjectionRunner } from './projection-runner';

/** What a committed command answers from: the position it appended at, and the streams it wrote. */
export interface Committed {
  runner: Pick<ProjectionRunner, 'readModelsReached'>;
  store: Pick<EventStore, 'readStream'>;
  /** Global position of the command's last event. */
  position: number;
  /** The streams whose events make the answer (the command's own). */
  streams: readonly string[];
}

/** A module's read model: its projection, its queries over the shared database, and the same queries over another. */
export interface ReadModel<Q> {
  projection: Projection;
  shared: Q;
  over: (db: Database.Database) => Q;
}

/**
 * The one answer-after-commit policy: a command whose events are committed answers from the read
 * model once it holds them (read-your-writes); when the read models cannot catch up (a projection
 * failed, the deadline passed, the read-model file refuses reads), from the same read model built
 * in memory by the same projection from the command's own streams, read by the same queries — so
 * the answer is the JSON the shared read model gives once it catches up. Never a failure: the
 * write happened, and a client told otherwise would retry it into a conflict. A lagging or failed
 * projection shows on `/health/ready` instead. Only the fallback reads the store.
 */
export function answerAfterCommit<Q, T>(
  committed: Committed,
  model: ReadModel<Q>,
  read: (queries: Q) => T | null | undefined,
): Promise<T> {
  return answerFromReadModelOr(
    committed.runner,
    committed.position,
    () => read(model.shared),
    async () => {
      const view = await readModelOfStreams(committed.store, model, committed.streams, read);
      if (view === null || view === undefined) {
        throw new Error(`no answer in ${model.projection.name}'s read model of ${committed.streams.join(', ')}`);
      }
      return view;
    },
  );
}

/**
 * The policy's first half with another fallback, for the one answer the command's own streams
 * cannot make (a cards migration's progress counts every account's views): the read model once it
 * holds `position`, else `fromDecision`.
 */
export async function answerFromReadModelOr<T>(
  runner: Committed['runner'],
  position: number,
  fromReadModel: () => T | null | undefined,
  fromDecision: () => T | Promise<T>,
): Promise<T> {
  if (await runner.readModelsReached(position)) {
    try {
      const view = fromReadModel();
      if (view !== null && view !== undefined) return view;
    } catch (error) {
      // The read model's file refusing a read is no reason to fail a committed write; a bug is.
      if (!isStorageFault(error)) throw error;
    }
  }
  return fromDecision();
}

/** The projection applied to these streams' events (in feed order) in a scratch in-memory database. */
async function readModelOfStreams<Q, T>(
  store: Committed['store'],
  model: ReadModel<Q>,
  streams: readonly string[],
  read: (queries: Q) => T,
): Promise<T> {
  const histories = await Promise.all(streams.map((s) => store.readStream(s)));
  const handled = new Set<string>(model.projection.handles);
  const events = histories
    .flat()
    .filter((e) => handled.has(e.type))
    .sort((a, b) => a.position - b.position);
  const db = new Database(':memory:');
  try {
    model.projection.setup(db);
    db.transaction(() => {
      for (const recorded of events) model.projection.apply(eventTypes.decode(recorded), db);
    })();
    return read(model.over(db));
  } finally {
    db.close();
  }
}

/**
 * A module's answers after commit over its read model: a module provides one subclass (its
 * projection and queries), and its handlers answer with `answer(position, streams, read)`.
 */
export class CommittedAnswers<Q> {
  constructor(
    private readonly runner: Committed['runner'],
    private readonly store: Committed['store'],
    private readonly model: ReadModel<Q>,
  ) {}

  answer<T>(position: number, streams: readonly string[], read: (queries: Q) => T | null | undefined): Promise<T> {
    return answerAfterCommit({ runner: this.runner, store: this.store, position, streams }, this.model, read);
  }
}
