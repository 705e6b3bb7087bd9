import { request as httpRequest, type IncomingMessage } from 'node:http';
import { REPLAY_LIMIT } from '../../src/console/application/live-tail';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ConsoleClient } from '../support/console-client';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

interface Sse {
  id?: string;
  event?: string;
  data?: string;
}

/** An EventSource's view of /console/events/live over real HTTP: the messages as they arrive. */
class SseReader {
  readonly messages: Sse[] = [];
  private buffer = '';
  private waiting: Array<() => void> = [];
  private constructor(private readonly response: IncomingMessage) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const m: Sse = {};
        for (const line of block.split('\n')) {
          const [, field, value] = /^(id|event|data): ?(.*)$/.exec(line) ?? [];
          if (field) m[field as keyof Sse] = value;
        }
        if (Object.keys(m).length > 0) this.messages.push(m);
      }
      for (const w of this.waiting.splice(0)) w();
    });
  }

  static open(url: string, headers: Record<string, string>): Promise<SseReader> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, { headers }, (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toContain('text/event-stream');
        resolve(new SseReader(res));
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Resolves once `count` messages arrived (bounded: fails after 10 s of silence). */
  async atLeast(count: number): Promise<Sse[]> {
    while (this.messages.length < count) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${this.messages.length} of ${count} messages`)), 10_000);
        this.waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.messages;
  }

  close(): void {
    this.response.destroy();
  }
}

/** The live tail's reconnection: `id:` per event, Last-Event-ID replays what the browser missed (bounded). */
describe('console live tail: Last-Event-ID', () => {
  let t: TestApp;
  let cookie: string;
  let store: EventStore;
  const TYPE = 'directory.AccountCreated';
  const open = (lastEventId?: number | string) =>
    SseReader.open(`${t.url}/console/events/live?type=${TYPE}`, {
      cookie,
      ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    });
  const hubIdOf = (m: Sse) => Number(/&quot;hubId&quot;: (\d+)/.exec(JSON.parse(m.data!) as string)?.[1]);

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    store = t.app.get<EventStore>(EVENT_STORE);
    const c = new ConsoleClient(t);
    await c.signIn();
    cookie = c.cookie;
  }, 30_000);
  afterAll(() => t.close());

  it('replays the matching events committed after Last-Event-ID, each with its position as id, then follows live', async () => {
    const first = await createAccount(t);
    const seen = await store.headPosition();
    const missed = [await createAccount(t), await createAccount(t)];
    const tail = await open(seen);
    try {
      const replayed = await tail.atLeast(2);
      expect(replayed.map(hubIdOf)).toEqual(missed.map((a) => a.hubId));
      expect(replayed.map((m) => Number(m.id))).toEqual(
        (await store.readAll({ after: seen, limit: 100, type: TYPE })).map((e) => e.position),
      );
      expect(replayed.map(hubIdOf)).not.toContain(first.hubId);
      const live = await createAccount(t);
      const [, , third] = await tail.atLeast(3);
      expect(hubIdOf(third!)).toBe(live.hubId);
      expect(Number(third!.id)).toBe(await store.headPosition());
    } finally {
      tail.close();
    }
  });

  it('starts a first connection where the page was rendered: what was committed since reaches it', async () => {
    const c = new ConsoleClient(t);
    c.cookie = cookie;
    const page = await c.get(`/console/events?type=${TYPE}`);
    const live = /data-live="([^"]+)"/.exec(page.body)![1]!.replace(/&amp;/g, '&');
    const shownNewest = Number(/<tr>\s*<td>(\d+)<\/td>/.exec(page.body)![1]);
    const [, from] = /^\/console\/events\/live\?type=directory\.AccountCreated&from=(\d+)$/.exec(live) ?? [];
    expect(Number(from)).toBeGreaterThanOrEqual(shownNewest);
    expect(Number(from)).toBeLessThanOrEqual(await store.headPosition());
    // Committed after the render, before "Follow live": the tail's first message, once.
    const between = await createAccount(t);
    const tail = await SseReader.open(`${t.url}${live}`, { cookie });
    try {
      const after = await createAccount(t);
      const messages = await tail.atLeast(2);
      expect(messages.map(hubIdOf)).toEqual([between.hubId, after.hubId]);
      // A reconnection's Last-Event-ID wins over the page's position.
      const again = await SseReader.open(`${t.url}${live}`, { cookie, 'last-event-id': messages[0]!.id! });
      try {
        expect((await again.atLeast(1)).map(hubIdOf)).toEqual([after.hubId]);
      } finally {
        again.close();
      }
    } finally {
      tail.close();
    }
  });

  it('answers a `from` that is no position with a 400 page', async () => {
    for (const from of ['x', '-1', '1.5', '99999999999999999999']) {
      const r = await t.inject({ method: 'GET', url: `/console/events/live?from=${from}`, headers: { cookie } });
      expect([from, r.statusCode]).toEqual([from, 400]);
      expect(r.headers['content-type']).toContain('text/html');
    }
  });

  it('without Last-Event-ID (or with one that is no position) starts at the head', async () => {
    await createAccount(t);
    for (const id of [undefined, 'x', '-1', '1.5']) {
      const tail = await open(id);
      try {
        const live = await createAccount(t);
        const [m] = await tail.atLeast(1);
        expect([id, hubIdOf(m!)]).toEqual([id, live.hubId]);
      } finally {
        tail.close();
      }
    }
  });

  it(`tells a browser away for more than ${REPLAY_LIMIT} events to reload, then follows from the head`, async () => {
    const seen = await store.headPosition();
    await store.append(
      'test.noise',
      Array.from({ length: REPLAY_LIMIT + 1 }, (_, i) => ({
        type: 'test.Noise',
        data: { i },
        metadata: { eventId: `noise-${i}`, correlationId: 'c', causationId: null, actor: 'test', occurredAt: 0 },
      })),
      'any',
    );
    const tail = await open(seen);
    try {
      const [gap] = await tail.atLeast(1);
      expect(gap).toEqual({ event: 'gap', data: 'reload' });
      const live = await createAccount(t);
      const [, m] = await tail.atLeast(2);
      expect(hubIdOf(m!)).toBe(live.hubId);
    } finally {
      tail.close();
    }
  });
});
