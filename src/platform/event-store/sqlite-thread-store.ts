import type { MessagePort } from 'node:worker_threads';
import type { NewEvent, RecordedEvent } from '../events/envelope';
import type { AppendResult, ExpectedRevision, StreamStore } from './event-store.port';
import { appendAnswer, wireAppendOf, writerError } from './sqlite-appends';
import { SqliteFeedReader } from './sqlite-feed-reader';
import { toRecorded } from './sqlite-row-format';
import type { WireAppend, WireGroupResult } from './sqlite-writer';

type PortReply = { result: WireGroupResult } | { failed: string; code?: string };

interface Waiting {
  wire: WireAppend;
  resolve: (result: AppendResult) => void;
  reject: (error: Error) => void;
}

/**
 * The embedded store as another thread of the process uses it (the webhooks' delivery thread):
 * the feed and streams read on a connection of its own (SqliteFeedReader), appends sent through a
 * port to the store's one writer thread (SqliteEventStore.openWriterPort), so they commit in the
 * same order as the store's own and need nothing of the store's thread but the commit's notice.
 * Each append is a group of its own, answered in the order sent (the writer takes the port's
 * messages one by one); resolved once committed, like the store's own.
 */
export class SqliteThreadStore extends SqliteFeedReader implements StreamStore {
  readonly appendsInCallOrder = true;
  private readonly waiting: Waiting[] = [];
  private portClosed = false;

  constructor(
    file: string,
    private readonly writer: MessagePort,
  ) {
    super(file);
    writer.on('message', (reply: PortReply) => this.onReply(reply));
    // The writer thread ended (the store closed, or it died): nothing sent can be answered any more.
    writer.on('close', () => {
      this.portClosed = true;
      const error = new Error("the event store's writer thread is gone");
      for (const w of this.waiting.splice(0)) w.reject(error);
    });
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.portClosed) return Promise.reject(new Error("the event store's writer thread is gone"));
    let wire: WireAppend;
    try {
      wire = wireAppendOf(streamId, events, expected);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.waiting.push({ wire, resolve, reject });
      this.writer.postMessage({ group: [wire] });
    });
  }

  readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    return Promise.resolve(this.feed.streamRows(streamId, fromRevision).map(toRecorded));
  }

  private onReply(reply: PortReply): void {
    const w = this.waiting.shift();
    if (!w) return;
    if ('failed' in reply) return w.reject(writerError(reply.failed, reply.code));
    const answer = appendAnswer(w.wire, reply.result.outcomes[0]!);
    if (answer instanceof Error) return w.reject(answer);
    // This thread's own subscriptions read on at once, not after the store's thread passed it on.
    if (reply.result.written > 0) this.committed();
    w.resolve(answer);
  }

  override close(): void {
    super.close();
    this.writer.close();
  }
}
