import type { Operation, Partition } from '../../histories/checker/history';
import { checkHistory } from '../../histories/checker/index';
import {
  type KeyInput,
  type KeyOutput,
  type KeyState,
  keyModel,
  type MappingInput,
  type MappingOutput,
  mappingModel,
  type ReleaseInput,
  type ReleaseOutput,
  releaseModel,
  type StoreInput,
  type StoreOutput,
  storeModel,
} from '../../histories/checker/models';
import { reportHtml, timelineSvg } from '../../histories/checker/report';
import { checkRevocation, revokedTokenWrites } from '../../histories/checker/revocation';
import { checkPartition, minimise } from '../../histories/checker/wgl';
import { seededRandom } from '../../lib/catalog/generator';

const LOST = Number.POSITIVE_INFINITY;
let nextId = 0;
function op<I = KeyInput, O = KeyOutput>(
  client: number,
  call: number,
  ret: number,
  input: I,
  output?: O,
): Operation<I, O> {
  nextId += 1;
  return { id: nextId, client, call, ret, input, output: ret === LOST ? undefined : output };
}

const key = (initial: KeyState, operations: Operation<KeyInput, KeyOutput>[]) =>
  ({ object: 'key:k', model: keyModel, initial, operations }) as Partition<KeyState, KeyInput, KeyOutput>;
const existing = { name: 'a', reserved: 0 };
const verdict = (partition: Partition<any, any, any>) => checkPartition(partition).verdict;

describe('the linearizability checker, on one key as a register', () => {
  it('accepts a read overlapping a write that answers either value', () => {
    for (const seen of ['a', 'b']) {
      expect(
        verdict(
          key(existing, [
            op(1, 0, 10, { op: 'rename', name: 'b' }, { status: 200, name: 'b', reserved: 0 }),
            op(2, 5, 15, { op: 'get' }, { status: 200, name: seen, reserved: 0 }),
          ]),
        ),
      ).toBe('ok');
    }
  });

  it('flags a stale read: the old name after the rename completed', () => {
    const rename = op<KeyInput, KeyOutput>(
      1,
      0,
      10,
      { op: 'rename', name: 'b' },
      { status: 200, name: 'b', reserved: 0 },
    );
    const stale = op<KeyInput, KeyOutput>(2, 20, 30, { op: 'get' }, { status: 200, name: 'a', reserved: 0 });
    const partition = key(existing, [
      rename,
      stale,
      op(3, 40, 50, { op: 'get' }, { status: 200, name: 'b', reserved: 0 }),
    ]);
    const result = checkPartition(partition);
    expect(result.verdict).toBe('violation');
    expect(result.longest?.order.map((o) => o.id)).toEqual([rename.id]);
    expect(result.stuck?.map((o) => o.id)).toEqual([stale.id]);
    // The last get is not needed for the failure: the minimal sub-history is the rename and the stale get.
    expect(minimise(partition).operations.map((o) => o.id)).toEqual([rename.id, stale.id]);
  });

  it('flags a lost update: a rename and a reservation change both succeed, then the reservation is the old one', () => {
    const history = key(existing, [
      op(1, 0, 10, { op: 'rename', name: 'b' }, { status: 200, name: 'b', reserved: 0 }),
      op(2, 1, 12, { op: 'reserve', reserved: 5 }, { status: 200, name: 'b', reserved: 5 }),
      op(1, 20, 25, { op: 'get' }, { status: 200, name: 'b', reserved: 0 }),
    ]);
    expect(verdict(history)).toBe('violation');
    // The same two writes with the get seeing both changes are fine.
    history.operations[2] = op(1, 20, 25, { op: 'get' }, { status: 200, name: 'b', reserved: 5 });
    expect(verdict(history)).toBe('ok');
  });

  it('flags a reservation change whose answer shows a name the key did not have when it was written', () => {
    const history = key(existing, [
      op(1, 0, 10, { op: 'rename', name: 'b' }, { status: 200, name: 'b', reserved: 0 }),
      op(2, 20, 30, { op: 'reserve', reserved: 5 }, { status: 200, name: 'a', reserved: 5 }),
    ]);
    expect(verdict(history)).toBe('violation');
    history.operations[1] = op(
      2,
      20,
      30,
      { op: 'reserve', reserved: 5 },
      { status: 200, name: 'b', reserved: 5 },
    );
    expect(verdict(history)).toBe('ok');
  });

  it('flags a rename whose answer carries a reservation the key never had at that moment', () => {
    expect(
      verdict(
        key(existing, [op(1, 0, 10, { op: 'rename', name: 'b' }, { status: 200, name: 'b', reserved: 9 })]),
      ),
    ).toBe('violation');
  });

  it('lets a lost rename take effect or not, but not take effect and then be undone', () => {
    const lost = () => op<KeyInput, KeyOutput>(1, 0, LOST, { op: 'rename', name: 'b' });
    const get = (at: number, name: string) =>
      op<KeyInput, KeyOutput>(2, at, at + 5, { op: 'get' }, { status: 200, name, reserved: 0 });
    expect(verdict(key(existing, [lost(), get(10, 'b')]))).toBe('ok');
    expect(verdict(key(existing, [lost(), get(10, 'a')]))).toBe('ok');
    expect(verdict(key(existing, [lost(), get(10, 'a'), get(20, 'b'), get(30, 'b')]))).toBe('ok');
    expect(verdict(key(existing, [lost(), get(10, 'b'), get(20, 'a')]))).toBe('violation');
  });

  it('keeps indeterminate operations in the sub-history it reports', () => {
    const lostDelete = op<KeyInput, KeyOutput>(1, 0, LOST, { op: 'delete' });
    const partition = key(existing, [
      lostDelete,
      op(2, 10, 15, { op: 'get' }, { status: 404 }),
      op(2, 20, 25, { op: 'get' }, { status: 200, name: 'a', reserved: 0 }),
    ]);
    expect(verdict(partition)).toBe('violation');
    expect(minimise(partition).operations.map((o) => o.id)).toContain(lostDelete.id);
  });

  it('grants tokens only while the key exists', () => {
    expect(
      verdict(
        key(existing, [
          op(1, 0, 10, { op: 'delete' }, { status: 204 }),
          op(2, 20, 25, { op: 'grant' }, { status: 200 }),
        ]),
      ),
    ).toBe('violation');
    expect(
      verdict(
        key(existing, [
          op(1, 0, 10, { op: 'delete' }, { status: 204 }),
          op(2, 5, 25, { op: 'grant' }, { status: 200 }),
          op(2, 30, 35, { op: 'grant' }, { status: 401 }),
        ]),
      ),
    ).toBe('ok');
  });
});

describe('the store counters model', () => {
  const store = (operations: Operation<StoreInput, StoreOutput>[]) =>
    ({
      object: 'store:s',
      model: storeModel,
      initial: { keys: { k0: 0 }, ghosts: 0, ghostReserved: 0 },
      operations,
    }) as Partition;

  it('accepts totals that match the keys of the same moment, and rejects a total off by one', () => {
    const create = op<StoreInput, StoreOutput>(
      1,
      0,
      10,
      { op: 'create', reserved: 3 },
      { status: 201, id: 'k1' },
    );
    const list = (total: number, reserved: number, ids: string[], at = 20) => [
      op<StoreInput, StoreOutput>(
        2,
        at,
        at + 5,
        { op: 'list', part: 'counters' },
        { status: 200, total, reserved },
      ),
      op<StoreInput, StoreOutput>(2, at, at + 5, { op: 'list', part: 'page' }, { status: 200, ids }),
    ];
    expect(verdict(store([create, ...list(2, 3, ['k0', 'k1'])]))).toBe('ok');
    expect(verdict(store([create, ...list(1, 0, ['k0'])]))).toBe('violation');
    expect(verdict(store([create, ...list(2, 0, ['k0', 'k1'])]))).toBe('violation');
    expect(verdict(store([create, ...list(2, 3, ['k0'])]))).toBe('violation');
    // A list racing the create may read the counters before it and the page after it (two reads).
    expect(verdict(store([create, ...list(1, 0, ['k0', 'k1'], 5)]))).toBe('ok');
  });

  it('counts the key of a create whose answer was lost, under an id the history never saw, or not at all', () => {
    const lost = op<StoreInput, StoreOutput>(1, 0, LOST, { op: 'create', reserved: 4 });
    const list = (at: number, total: number, reserved: number, ids: string[]) => [
      op<StoreInput, StoreOutput>(
        2,
        at,
        at + 5,
        { op: 'list', part: 'counters' },
        { status: 200, total, reserved },
      ),
      op<StoreInput, StoreOutput>(2, at, at + 5, { op: 'list', part: 'page' }, { status: 200, ids }),
    ];
    expect(verdict(store([lost, ...list(10, 1, 0, ['k0'])]))).toBe('ok');
    expect(verdict(store([lost, ...list(10, 2, 4, ['k0', 'x'])]))).toBe('ok');
    expect(verdict(store([lost, ...list(10, 2, 0, ['k0', 'x'])]))).toBe('violation');
    expect(verdict(store([lost, ...list(10, 2, 4, ['k0', 'x']), ...list(20, 1, 0, ['k0'])]))).toBe(
      'violation',
    );
  });
});

describe('the prefix map model', () => {
  const map = (operations: Operation<MappingInput, MappingOutput>[]) =>
    ({ object: 'mappings', model: mappingModel, initial: { A: 'a', B: 'b' }, operations }) as Partition;

  it('allows one of two racing claims of a prefix, and flags two owners', () => {
    const claim = (store: string, status: number) =>
      op<MappingInput, MappingOutput>(
        1,
        0,
        10,
        { op: 'put', store, prefix: 'shop' },
        { status, taken: status === 409 },
      );
    expect(verdict(map([claim('A', 200), claim('B', 409)]))).toBe('ok');
    expect(verdict(map([claim('A', 200), claim('B', 200)]))).toBe('violation');
  });

  it('compares prefixes case-insensitively and allows a swap through a free prefix', () => {
    expect(
      verdict(
        map([
          op(1, 0, 10, { op: 'put', store: 'A', prefix: 'tmp' }, { status: 200 }),
          op(2, 20, 30, { op: 'put', store: 'B', prefix: 'A' }, { status: 200 }),
          op(1, 40, 50, { op: 'put', store: 'A', prefix: 'B' }, { status: 200 }),
          op(3, 60, 65, { op: 'get', store: 'A' }, { status: 200, prefix: 'B' }),
        ]),
      ),
    ).toBe('ok');
    expect(
      verdict(map([op(1, 0, 10, { op: 'put', store: 'B', prefix: 'A' }, { status: 409, taken: false })])),
    ).toBe('ok');
    expect(
      verdict(map([op(1, 0, 10, { op: 'put', store: 'B', prefix: 'A' }, { status: 409, taken: true })])),
    ).toBe('ok');
    expect(
      verdict(map([op(1, 0, 10, { op: 'put', store: 'B', prefix: 'c' }, { status: 409, taken: true })])),
    ).toBe('violation');
  });
});

describe('the release model', () => {
  const release = (operations: Operation<ReleaseInput, ReleaseOutput>[]) =>
    ({ object: 'release:s', model: releaseModel, initial: 'r0', operations }) as Partition;
  const read = (at: number, releases: string[]) =>
    op<ReleaseInput, ReleaseOutput>(2, at, at + 5, { op: 'read', parent: 'p' }, { status: 200, releases });
  const publish = op<ReleaseInput, ReleaseOutput>(
    1,
    0,
    20,
    { op: 'publish', release: 'r1' },
    { status: 200 },
  );

  it('lets a read racing a publish see either release, never a mix, never the old one after it', () => {
    expect(verdict(release([publish, read(5, ['r0', 'r0'])]))).toBe('ok');
    expect(verdict(release([publish, read(5, ['r1'])]))).toBe('ok');
    expect(verdict(release([publish, read(5, ['r0', 'r1'])]))).toBe('violation');
    expect(verdict(release([publish, read(30, ['r0'])]))).toBe('violation');
  });

  it('makes the release before the current one current when the current one is deleted', () => {
    const rollback = (at: number, name: string, status: number | undefined) =>
      op<ReleaseInput, ReleaseOutput>(
        1,
        at,
        at + 10,
        { op: 'rollback', release: name },
        status === undefined ? undefined : { status },
      );
    expect(verdict(release([publish, rollback(30, 'r1', 204), read(50, ['r0'])]))).toBe('ok');
    expect(verdict(release([publish, rollback(30, 'r1', 204), read(50, ['r1'])]))).toBe('violation');
    // Refused, nothing changed; its answer lost, either.
    expect(verdict(release([publish, rollback(30, 'r1', 409), read(50, ['r1'])]))).toBe('ok');
    expect(verdict(release([publish, rollback(30, 'r1', undefined), read(50, ['r0'])]))).toBe('ok');
    // The only release deleted: unpublished, no read finds a release.
    expect(verdict(release([rollback(0, 'r0', 204), read(20, ['r0'])]))).toBe('violation');
    // Deleting a release that was no longer current cannot succeed as a rollback.
    expect(verdict(release([publish, rollback(30, 'r0', 204)]))).toBe('violation');
  });
});

describe('tokens of deleted keys', () => {
  it('flags a successful write invoked after the delete of its key completed, not one racing it', () => {
    const deletions = [{ id: 1, store: 's', key: 'k', ret: 10 }];
    const write = (call: number, succeeded: boolean) => ({
      id: 2,
      store: 's',
      tokenKey: 'k',
      call,
      succeeded,
    });
    expect(checkRevocation([write(11, true)], deletions)).toHaveLength(1);
    expect(checkRevocation([write(5, true)], deletions)).toEqual([]);
    expect(checkRevocation([write(11, false)], deletions)).toEqual([]);
    expect(revokedTokenWrites([write(11, false), write(5, true)], deletions)).toEqual([write(11, false)]);
    expect(checkRevocation([write(11, true)], [{ ...deletions[0], ret: LOST } as never])).toEqual([]);
  });
});

describe('checkHistory and the report', () => {
  it('labels operations a reduced sub-history cut short as running, not lost', () => {
    const rename = op<KeyInput, KeyOutput>(
      1,
      0,
      10,
      { op: 'rename', name: 'b' },
      { status: 200, name: 'b', reserved: 0 },
    );
    const stale = op<KeyInput, KeyOutput>(2, 20, 30, { op: 'get' }, { status: 200, name: 'a', reserved: 0 });
    const running = op<KeyInput, KeyOutput>(
      3,
      25,
      500,
      { op: 'rename', name: 'c' },
      { status: 200, name: 'c', reserved: 0 },
    );
    const [anomaly] = checkHistory([key(existing, [rename, stale, running]) as Partition], {
      writes: [],
      deletions: [],
    }).anomalies;
    expect(anomaly?.minimal.map((o) => [o.id, o.cut ?? false])).toEqual([
      [rename.id, false],
      [stale.id, false],
      [running.id, true],
    ]);
    expect(anomaly?.lines.join('\n')).toContain('25.0 ms .. still running at the cut  rename("c") -> ?');
    expect(anomaly?.caughtAt).toBe(running.id);
  });

  it('explains each failing partition with its operations and draws them on a timeline', () => {
    const partitions = [
      key(existing, [
        op(1, 0, 10, { op: 'rename', name: 'b' }, { status: 200, name: 'b', reserved: 0 }),
        op(2, 20, 30, { op: 'get' }, { status: 200, name: 'a', reserved: 0 }),
        op(3, 0, LOST, { op: 'delete' }),
      ]),
      key(existing, [op(1, 0, 10, { op: 'get' }, { status: 200, name: 'a', reserved: 0 })]),
    ] as Partition[];
    const check = checkHistory(partitions, { writes: [], deletions: [] });
    expect(check.partitions).toBe(2);
    expect(check.operations).toBe(4);
    expect(check.largest.operations).toBe(3);
    expect(check.anomalies).toHaveLength(1);
    const [anomaly] = check.anomalies;
    expect(anomaly?.lines[1]).toMatch(
      /client 1 {2}0\.0 ms \.\. 10\.0 ms {2}rename\("b"\) -> 200 \{name: "b", reserved: 0\}$/,
    );
    // A get shows what it read, so a get that matches no state says what it saw.
    expect(anomaly?.lines.join('\n')).toContain(
      'get() -> 200 {name: "a", reserved: 0}   <- cannot be linearized here',
    );
    const svg = timelineSvg(anomaly as never);
    expect(svg.match(/<rect /g)).toHaveLength(anomaly?.minimal.length ?? -1);
    expect(svg).toContain('stroke-dasharray');
    const html = reportHtml('Histories', check.anomalies, []);
    expect(html).toContain('<svg');
    expect(html).toContain('key:k');
  });

  it('searches a long valid history of overlapping operations quickly', () => {
    // A sequential run of 3,000 renames and gets, then every interval stretched over its neighbours.
    const operations: Operation<KeyInput, KeyOutput>[] = [];
    let name = 'a';
    for (let i = 0; i < 3000; i += 1) {
      const input: KeyInput = i % 3 === 0 ? { op: 'rename', name: `n${i}` } : { op: 'get' };
      if (input.op === 'rename') name = input.name;
      operations.push(op(i % 8, i * 10 - 25, i * 10 + 25, input, { status: 200, name, reserved: 0 }));
    }
    const result = checkPartition(key(existing, operations));
    expect(result.verdict).toBe('ok');
    expect(result.explored).toBeLessThan(30_000);
  });

  it('searches a long prefix-map history with many lost writes, some applied and some not, quickly', () => {
    // A sequential run of 2,000 puts and gets over 3 stores and 5 prefixes, every interval stretched
    // over its neighbours, 4% of the answers lost (whether or not the put happened).
    const random = seededRandom(5);
    const state: Record<string, string | null> = { A: 'a', B: 'b', C: 'c' };
    const operations: Operation<MappingInput, MappingOutput>[] = [];
    let lostOps = 0;
    for (let i = 0; i < 2000; i += 1) {
      const store = ['A', 'B', 'C'][Math.floor(random() * 3)] as string;
      const call = i * 10 - 25;
      if (random() < 0.3) {
        operations.push(
          op(i % 8, call, call + 50, { op: 'get', store }, { status: 200, prefix: state[store] }),
        );
        continue;
      }
      const prefix = `p${Math.floor(random() * 5)}`;
      const owner = Object.entries(state).find(([, held]) => held === prefix)?.[0];
      const free = owner === undefined || owner === store;
      if (random() < 0.04) {
        lostOps += 1;
        if (free && random() < 0.5) state[store] = prefix;
        operations.push(op(i % 8, call, LOST, { op: 'put', store, prefix }));
        continue;
      }
      if (free) state[store] = prefix;
      operations.push(
        op(i % 8, call, call + 50, { op: 'put', store, prefix }, { status: free ? 200 : 409, taken: !free }),
      );
    }
    expect(lostOps).toBeGreaterThan(40);
    const result = checkPartition({
      object: 'mappings',
      model: mappingModel,
      initial: { A: 'a', B: 'b', C: 'c' },
      operations,
    } as Partition);
    expect(result.verdict).toBe('ok');
    expect(result.explored).toBeLessThan(100_000);
  });
});
