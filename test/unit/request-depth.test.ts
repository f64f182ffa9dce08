import { describeTrace, readTrace, serialDepth } from '../../bench/request-depth';

describe('serialDepth', () => {
  it('counts the longest chain of requests each sent after the one before it answered', () => {
    expect(serialDepth([])).toBe(0);
    // Three side by side: one wave.
    expect(
      serialDepth([
        { sent: 0, answered: 5 },
        { sent: 1, answered: 6 },
        { sent: 2, answered: 4 },
      ]),
    ).toBe(1);
    // A read, then two writes beside each other, then one more after the slower: three.
    expect(
      serialDepth([
        { sent: 0, answered: 5 },
        { sent: 6, answered: 9 },
        { sent: 6, answered: 12 },
        { sent: 13, answered: 15 },
      ]),
    ).toBe(3);
    // Sent while the one before was still answering: beside it, not after it.
    expect(
      serialDepth([
        { sent: 0, answered: 10 },
        { sent: 9, answered: 12 },
      ]),
    ).toBe(1);
  });
});

describe('readTrace and describeTrace', () => {
  it('groups the lines by process and prints each bundle with its counts', () => {
    const lines = [
      ['get-currency.mjs', 11, 'POST', 'BatchGetItem', 100, 110],
      ['get-currency.mjs', 11, 'POST', 'GetItem', 111, 115],
      ['release-merge.mjs', 12, 'GET', '/bucket/work/plan.json', 100, 104],
      ['release-merge.mjs', 12, 'POST', 'GetItem', 100, 103],
    ].map((line) => JSON.stringify(line));
    const processes = readTrace(`${lines.join('\n')}\n`);
    expect([...processes.keys()]).toEqual(['get-currency.mjs 11', 'release-merge.mjs 12']);
    expect(describeTrace(processes)).toBe(
      `${'get-currency'.padEnd(34)} requests   2  one after another 2\n` +
        `${'release-merge'.padEnd(34)} requests   2  one after another 1\n`,
    );
  });
});
