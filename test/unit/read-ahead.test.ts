import { objectsInTurn, readAhead } from '../../lib/catalog/pipeline/share';
import { askedFirst, withAskedFirst } from '../../lib/store/items';
import { objectStore } from '../../lib/store/object-store';

/** A read of part n that answers when released, and what was started so far. */
function reads() {
  const started: number[] = [];
  const release = new Map<number, (value: string) => void>();
  const fail = new Map<number, (error: Error) => void>();
  const read = (n: number) =>
    new Promise<string>((resolve, reject) => {
      started.push(n);
      release.set(n, resolve);
      fail.set(n, reject);
    });
  return { started, release, fail, read };
}

describe('readAhead', () => {
  it('starts each read up to `ahead` places before it is asked for, and answers each part in turn', async () => {
    const { started, release, read } = reads();
    const part = readAhead(10, 2, read);
    const first = part(0);
    expect(started).toEqual([0, 1, 2]);
    release.get(0)?.('p0');
    await expect(first).resolves.toBe('p0');
    const second = part(1);
    expect(started).toEqual([0, 1, 2, 3]);
    release.get(1)?.('p1');
    await expect(second).resolves.toBe('p1');
    // Near the end nothing past the last part is started.
    for (let n = 2; n < 10; n += 1) {
      const answer = part(n);
      release.get(n)?.(`p${n}`);
      await expect(answer).resolves.toBe(`p${n}`);
    }
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('throws a read that failed ahead when its part is asked for, and leaves no rejection unhandled', async () => {
    const { release, fail, read } = reads();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const part = readAhead(3, 2, read);
      const first = part(0);
      fail.get(2)?.(new Error('part 2 is gone'));
      release.get(0)?.('p0');
      await expect(first).resolves.toBe('p0');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      const second = part(1);
      release.get(1)?.('p1');
      await expect(second).resolves.toBe('p1');
      await expect(part(2)).rejects.toThrow('part 2 is gone');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('refuses a part asked for twice or out of order', () => {
    const { read } = reads();
    const part = readAhead(5, 1, read);
    void part(0);
    expect(() => part(0)).toThrow('part 0 was asked for out of order');
  });
});

/** Object reads faked over `objectStore.read`: each records when its request is sent and when it is closed. */
function fakeObjects(bodies: Record<string, string[] | Error>) {
  const sent: string[] = [];
  const closed: string[] = [];
  jest.spyOn(objectStore, 'read').mockImplementation((key: string) => {
    const body = bodies[key];
    return (async function* () {
      sent.push(key);
      try {
        if (body instanceof Error) throw body;
        for (const piece of body ?? []) yield Buffer.from(piece);
      } finally {
        closed.push(key);
      }
    })();
  });
  return { sent, closed };
}

const text = async (body: AsyncIterable<Uint8Array>) => {
  let out = '';
  for await (const piece of body) out += Buffer.from(piece).toString();
  return out;
};

describe('objectsInTurn', () => {
  afterEach(() => jest.restoreAllMocks());

  it('answers each object in turn, the next one sent as the one before starts to be read', async () => {
    const { sent, closed } = fakeObjects({ a: ['a1', 'a2'], b: ['b1'], c: ['c1', 'c2', 'c3'] });
    const objects = objectsInTurn(['a', 'b', 'c']);
    const first = await objects.next();
    // `a` is handed over unread, `b`'s request is already out.
    expect(sent).toEqual(['a', 'b']);
    expect(await text(first.value as AsyncIterable<Uint8Array>)).toBe('a1a2');
    const second = await objects.next();
    expect(sent).toEqual(['a', 'b', 'c']);
    expect(await text(second.value as AsyncIterable<Uint8Array>)).toBe('b1');
    expect(await text((await objects.next()).value as AsyncIterable<Uint8Array>)).toBe('c1c2c3');
    expect((await objects.next()).done).toBe(true);
    expect(closed).toEqual(['a', 'b', 'c']);
  });

  it('closes the object being read and the one started ahead when the reader stops early', async () => {
    const { sent, closed } = fakeObjects({ a: ['a1', 'a2'], b: ['b1'], c: ['c1'] });
    for await (const body of objectsInTurn(['a', 'b', 'c'])) {
      for await (const piece of body) {
        expect(Buffer.from(piece).toString()).toBe('a1');
        break;
      }
      break;
    }
    expect(sent).toEqual(['a', 'b']);
    expect(closed.sort()).toEqual(['a', 'b']);
  });

  it('throws a read that failed ahead only when its object is read, and leaves no rejection unhandled', async () => {
    fakeObjects({ a: ['a1'], b: new Error('b is gone') });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const objects = objectsInTurn(['a', 'b']);
      const first = (await objects.next()).value as AsyncIterable<Uint8Array>;
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(await text(first)).toBe('a1');
      const second = (await objects.next()).value as AsyncIterable<Uint8Array>;
      await expect(text(second)).rejects.toThrow('b is gone');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('reads nothing for no keys', async () => {
    const { sent } = fakeObjects({});
    expect((await objectsInTurn([]).next()).done).toBe(true);
    expect(sent).toEqual([]);
  });
});

describe('askedFirst', () => {
  /** Pages of items that record when each page is asked for and whether the reader let go early. */
  function pages(items: number[], fail?: Error) {
    const asked: number[] = [];
    let returned = false;
    const source = (async function* () {
      try {
        for (const [n, item] of items.entries()) {
          asked.push(n);
          if (fail) throw fail;
          yield item;
        }
      } finally {
        returned = true;
      }
    })();
    return { source, asked, returned: () => returned };
  }

  it('asks for the first item at once and answers every item in order', async () => {
    const { source, asked } = pages([1, 2, 3]);
    const primed = askedFirst(source);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([0]);
    const seen: number[] = [];
    for await (const item of primed) seen.push(item);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('lets go of the source when the reader stops early', async () => {
    const { source, returned } = pages([1, 2, 3]);
    for await (const item of askedFirst(source)) {
      expect(item).toBe(1);
      break;
    }
    expect(returned()).toBe(true);
  });

  it('throws a failed first ask where the reader gets to it, never unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const primed = askedFirst(pages([1], new Error('the query failed')).source);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      await expect(
        (async () => {
          for await (const _ of primed) return;
        })(),
      ).rejects.toThrow('the query failed');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  describe('withAskedFirst', () => {
    it('hands the read over asked ahead, and answers what the use answers', async () => {
      const { source, asked } = pages([1, 2]);
      const seen: number[] = [];
      const answer = await withAskedFirst(source, async (read) => {
        expect(asked).toEqual([0]);
        for await (const item of read ?? []) seen.push(item);
        return 'done';
      });
      expect([answer, seen]).toEqual(['done', [1, 2]]);
    });

    it('lets go of the source when the use never opens the read, or throws', async () => {
      const unopened = pages([1, 2]);
      await withAskedFirst(unopened.source, async () => undefined);
      expect(unopened.returned()).toBe(true);
      const thrown = pages([1, 2]);
      await expect(
        withAskedFirst(thrown.source, async () => {
          throw new Error('the step failed');
        }),
      ).rejects.toThrow('the step failed');
      expect(thrown.returned()).toBe(true);
    });

    it('hands nothing over when there is nothing to read', async () => {
      await expect(withAskedFirst(undefined, async (read) => read === undefined)).resolves.toBe(true);
    });
  });
});
