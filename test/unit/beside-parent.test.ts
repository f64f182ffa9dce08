import { besideParent } from '../../lib/store/items';

/** A promise and the functions that settle it, for ordering settlements by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const notFound = new Error('parent not found');

describe('besideParent', () => {
  it("answers the read's value, once the parent's read has settled too", async () => {
    const parent = deferred<{ id: string }>();
    let answered = false;
    const done = besideParent(parent.promise, Promise.resolve(['a', 'b'])).then((value) => {
      answered = true;
      return value;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    parent.resolve({ id: 'book' });
    expect(await done).toEqual(['a', 'b']);
  });

  it("throws the parent's failure first, even when the read failed before it", async () => {
    const parent = deferred<unknown>();
    const read = Promise.reject(new Error('read failed'));
    const done = besideParent(parent.promise, read);
    parent.reject(notFound);
    await expect(done).rejects.toBe(notFound);
  });

  it("throws the read's failure when the parent is there", async () => {
    const failure = new Error('read failed');
    await expect(besideParent(Promise.resolve({}), Promise.reject(failure))).rejects.toBe(failure);
  });

  it('leaves nothing in flight: a missing parent is thrown only once the read has settled', async () => {
    const read = deferred<string[]>();
    let settled = false;
    const done = besideParent(Promise.reject(notFound), read.promise).catch((error: unknown) => {
      settled = true;
      throw error;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    read.resolve([]);
    await expect(done).rejects.toBe(notFound);
  });
});
