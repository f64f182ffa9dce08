import { readAhead } from '../../lib/catalog/pipeline/share';

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
