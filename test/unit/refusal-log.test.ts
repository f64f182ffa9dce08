import { log } from '../../lib/http/log';
import { flushRefusals, noteRefusal } from '../../lib/rate-limit/refusal-log';

jest.mock('../../lib/http/log', () => ({ log: jest.fn() }));
const logged = log as jest.MockedFunction<typeof log>;

beforeEach(() => {
  flushRefusals(0, true);
  logged.mockClear();
});

describe('refusal log', () => {
  it('writes one line per key per second with the count, not one per refused request', () => {
    const base = 1_800_000_000_000;
    const a = { storeId: 's1', keyId: 'k1' };
    const b = { storeId: 's1', keyId: 'k2' };
    for (let i = 0; i < 500; i += 1) noteRefusal(a, 20, 'GET /x', base + i);
    for (let i = 0; i < 30; i += 1) noteRefusal(b, 20, 'GET /x', base + 100 + i);
    expect(logged).not.toHaveBeenCalled();
    // The container's next refusal, in a later second, writes the finished second's lines.
    noteRefusal(a, 20, 'GET /x', base + 1000);
    expect(logged.mock.calls).toEqual([
      [
        'warn',
        'rate limited',
        { store_id: 's1', key_id: 'k1', limit: 20, refused_route: 'GET /x', second: base / 1000, count: 500 },
      ],
      [
        'warn',
        'rate limited',
        { store_id: 's1', key_id: 'k2', limit: 20, refused_route: 'GET /x', second: base / 1000, count: 30 },
      ],
    ]);
    flushRefusals(base + 2000);
    expect(logged).toHaveBeenCalledTimes(3);
    expect(logged.mock.calls[2]?.[2]).toMatchObject({ key_id: 'k1', count: 1 });
  });
});
