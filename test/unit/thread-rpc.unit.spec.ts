import { MessageChannel } from 'node:worker_threads';
import { ThreadRpc } from '../../src/platform/threads/thread-rpc';

/** Calls both ways over one port pair (as between the API's thread and the delivery thread). */
describe('ThreadRpc', () => {
  const pair = (a: ConstructorParameters<typeof ThreadRpc>[1], b: ConstructorParameters<typeof ThreadRpc>[1]) => {
    const { port1, port2 } = new MessageChannel();
    const left = new ThreadRpc(port1, a);
    const right = new ThreadRpc(port2, b);
    return {
      left,
      right,
      close: () => {
        left.close(new Error('closed'));
        right.close(new Error('closed'));
        port1.close();
      },
    };
  };

  it('answers calls both ways, in any order, with what the handler returned or resolved to', async () => {
    const p = pair(
      { double: (n: number) => n * 2 },
      { later: async (s: string) => `${s}!`, copy: (o: { a: number[] }) => ({ ...o, seen: true }) },
    );
    try {
      const [a, b, c] = await Promise.all([
        p.left.call('later', 'x'),
        p.right.call('double', 21),
        p.left.call('copy', { a: [1] }),
      ]);
      expect([a, b, c]).toEqual(['x!', 42, { a: [1], seen: true }]);
    } finally {
      p.close();
    }
  });

  it('rejects with the handler’s error message, and for an operation nobody handles', async () => {
    const p = pair(
      {},
      {
        fail: () => {
          throw new Error('refused: no lease');
        },
      },
    );
    try {
      await expect(p.left.call('fail')).rejects.toThrow('refused: no lease');
      await expect(p.left.call('nothing')).rejects.toThrow('no handler for nothing');
    } finally {
      p.close();
    }
  });

  it('delivers notifications without an answer, in order', async () => {
    const seen: number[] = [];
    let done: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (done = resolve));
    const p = pair(
      {},
      {
        note: (n: number) => {
          seen.push(n);
          if (n === 3) done();
        },
      },
    );
    try {
      for (const n of [1, 2, 3]) p.left.notify('note', n);
      await all;
      expect(seen).toEqual([1, 2, 3]);
    } finally {
      p.close();
    }
  });

  it('once closed, fails the calls waiting and every later one', async () => {
    const p = pair({}, { never: () => new Promise(() => undefined) });
    const waiting = p.left.call('never');
    p.left.close(new Error('the delivery thread exited with code 1'));
    await expect(waiting).rejects.toThrow('exited with code 1');
    await expect(p.left.call('never')).rejects.toThrow('exited with code 1');
    p.close();
  });
});
