import { oneAtATime } from '../../lib/catalog/pipeline/run-local';

describe('oneAtATime', () => {
  it('runs the works given to it one at a time, in the order given, each answering its own caller', async () => {
    const run = oneAtATime();
    const log: string[] = [];
    let running = 0;
    const work = (name: string, ms: number) => async () => {
      running += 1;
      expect(running).toBe(1);
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`end ${name}`);
      running -= 1;
      return name;
    };
    const answers = await Promise.all([run(work('a', 20)), run(work('b', 1)), run(work('c', 5))]);
    expect(answers).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('fails only the caller of a work that fails; the next work still runs', async () => {
    const run = oneAtATime();
    const failing = run(async () => {
      throw new Error('range 3 failed');
    });
    const next = run(async () => 'range 4');
    await expect(failing).rejects.toThrow('range 3 failed');
    await expect(next).resolves.toBe('range 4');
  });
});
