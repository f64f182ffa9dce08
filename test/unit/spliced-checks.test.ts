import { familyGroups } from '../../lib/catalog/pipeline/spliced-checks';

/**
 * The families a spliced document wrote again are read in groups (lib/catalog/pipeline/spliced-checks.ts):
 * neighbours close together in both documents in one ranged read each, a group's reads bounded.
 */

const MiB = 1024 * 1024;

describe('the groups families written again are read in', () => {
  it('join neighbours close in both documents, and part where either gap is wide or the group would grow too long', () => {
    expect(familyGroups([])).toEqual([]);
    expect(
      familyGroups([
        [0, 10, 0, 12],
        [100, 10, 102, 10],
        // Close before, far now (the families between grew by a megabyte).
        [200, 10, MiB, 10],
        [10 * MiB, 5, 11 * MiB, 5],
        [10 * MiB + 100, 5, 11 * MiB + 100, 5],
      ]),
    ).toEqual([
      [0, 2],
      [2, 3],
      [3, 5],
    ]);
    // A family longer than a group's reads is read alone; neighbours past 4 MiB start another group.
    expect(
      familyGroups([
        [0, 5 * MiB, 0, 5 * MiB],
        [5 * MiB + 1, 10, 5 * MiB + 1, 10],
        [5 * MiB + 100, 10, 5 * MiB + 100, 10],
      ]),
    ).toEqual([
      [0, 1],
      [1, 3],
    ]);
  });
});
