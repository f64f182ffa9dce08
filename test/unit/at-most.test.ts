import { atMost, mapAtMost } from '../../lib/at-most';

/** A work that checks how many run beside it, logs its start and end, and answers its name. */
function works(limit: number) {
  const log: string[] = [];
  let running = 0;
  const work = (name: string, ms: number) => async () => {
    running += 1;
    expect(running).toBeLessThanOrEqual(limit);
    log.push(`start ${name}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    log.push(`end ${name}`);
    running -= 1;
    return name;
  };
  return { log, work };
}

describe('atMost', () => {
  it('runs the works given to it one at a time, in the order given, each answering its own caller', async () => {
    const run = atMost(1);
    const { log, work } = works(1);
    const answers = await Promise.all([run(work('a', 20)), run(work('b', 1)), run(work('c', 5))]);
    expect(answers).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('runs up to its limit at once', async () => {
    const run = atMost(2);
    const { log, work } = works(2);
    await Promise.all([run(work('a', 10)), run(work('b', 10)), run(work('c', 1))]);
    expect(log.slice(0, 2)).toEqual(['start a', 'start b']);
    expect(log.indexOf('start c')).toBeGreaterThan(log.indexOf('end a'));
  });

  it('fails only the caller of a work that fails; the next work still runs', async () => {
    const run = atMost(1);
    const failing = run(async () => {
      throw new Error('range 3 failed');
    });
    const next = run(async () => 'range 4');
    await expect(failing).rejects.toThrow('range 3 failed');
    await expect(next).resolves.toBe('range 4');
  });
});

describe('mapAtMost', () => {
  it("answers each item's result in the items' order, running up to its limit at once", async () => {
    // a runs until d has ended, by a gate rather than a longer timer (a timer's lead is lost on a busy
    // machine): b's slot must go on to c and d meanwhile, or the map never settles.
    const log: string[] = [];
    let running = 0;
    let letAEnd!: () => void;
    const aMayEnd = new Promise<void>((resolve) => {
      letAEnd = resolve;
    });
    const results = await mapAtMost(['a', 'b', 'c', 'd'], 2, async (name) => {
      running += 1;
      expect(running).toBeLessThanOrEqual(2);
      log.push(`start ${name}`);
      await (name === 'a' ? aMayEnd : new Promise((resolve) => setImmediate(resolve)));
      log.push(`end ${name}`);
      running -= 1;
      if (name === 'd') letAEnd();
      return name;
    });
    expect(results).toEqual(['a', 'b', 'c', 'd']);
    expect(log).toEqual(['start a', 'start b', 'end b', 'start c', 'end c', 'start d', 'end d', 'end a']);
  });

  it('answers an empty list without running anything', async () => {
    await expect(mapAtMost([], 4, async () => 'never')).resolves.toEqual([]);
  });

  it('stops new work at the first failure and throws it once the running works have ended', async () => {
    const { log, work } = works(2);
    const run = mapAtMost(['a', 'fail', 'c', 'd'], 2, async (name) => {
      if (name === 'fail') throw new Error('book 2 failed');
      return work(name, 10)();
    });
    await expect(run).rejects.toThrow('book 2 failed');
    expect(log).toEqual(['start a', 'end a']);
  });
});
