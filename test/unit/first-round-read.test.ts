import { firstRoundRead } from '../../lib/store/transact-retrying';

describe('firstRoundRead', () => {
  it("answers the caller's read in the first round and reads afresh in every later one", async () => {
    let fresh = 0;
    const read = firstRoundRead(Promise.resolve('handed'), async () => {
      fresh += 1;
      return `fresh ${fresh}`;
    });
    expect(await read()).toBe('handed');
    expect(await read()).toBe('fresh 1');
    expect(await read()).toBe('fresh 2');
  });

  it('takes a value as the first read, and reads from the first round when none is handed', async () => {
    const handed = firstRoundRead({ id: 'node' }, async () => ({ id: 'read' }));
    expect(await handed()).toEqual({ id: 'node' });
    expect(await handed()).toEqual({ id: 'read' });
    const none = firstRoundRead<{ id: string }>(undefined, async () => ({ id: 'read' }));
    expect(await none()).toEqual({ id: 'read' });
  });

  it('hands a first read that found nothing as it is: an absent entry, not a missing read', async () => {
    const fresh = jest.fn(async () => ({ version: 2 }));
    const read = firstRoundRead<{ version: number } | undefined>(Promise.resolve(undefined), fresh);
    expect(await read()).toBeUndefined();
    expect(fresh).not.toHaveBeenCalled();
    expect(await read()).toEqual({ version: 2 });
  });

  it('hands on a first read that failed, then reads afresh', async () => {
    const read = firstRoundRead(Promise.reject(new Error('throttled')), async () => 'fresh');
    await expect(read()).rejects.toThrow('throttled');
    await expect(read()).resolves.toBe('fresh');
  });
});
