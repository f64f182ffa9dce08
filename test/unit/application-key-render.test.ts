import fc from 'fast-check';
import {
  renderApplicationKey,
  renderApplicationKeyList,
  renderCreatedApplicationKey,
} from '../../lib/application-keys/render';
import type { ApplicationKeyRecord } from '../../lib/store/application-key-repository';

const ORIGIN = 'https://api.example.test';

function record(overrides: Partial<ApplicationKeyRecord> = {}): ApplicationKeyRecord {
  return {
    id: '0190a0c0-0000-7000-8000-000000000003',
    store_id: '0190a0c0-0000-7000-8000-000000000001',
    name: 'Web',
    client_id: 'c'.repeat(40),
    reserved_rate_limit: 5,
    created_at: '2024-07-01T10:00:00.000Z',
    updated_at: '2024-07-02T10:00:00.000Z',
    last_used_at: null,
    ...overrides,
  };
}

describe('renderApplicationKey', () => {
  it('renders exactly the application key fields, without the store id', () => {
    expect(renderApplicationKey(record())).toEqual({
      id: '0190a0c0-0000-7000-8000-000000000003',
      name: 'Web',
      type: 'application_key',
      client_id: 'c'.repeat(40),
      reserved_rate_limit: 5,
      meta: {
        timestamps: {
          created_at: '2024-07-01T10:00:00.000Z',
          updated_at: '2024-07-02T10:00:00.000Z',
          last_used_at: null,
        },
      },
    });
  });

  it('drops anything else a stored item carries', () => {
    const stored = { ...record(), secret_hash: 'h', client_secret: 's' } as ApplicationKeyRecord;
    expect(JSON.stringify(renderApplicationKey(stored))).not.toMatch(/secret|store_id/);
  });

  it('shows the secret only in the create response, before meta', () => {
    const created = renderCreatedApplicationKey(record(), 'the-secret', ORIGIN);
    expect(Object.keys(created.data)).toEqual([
      'id',
      'name',
      'type',
      'client_id',
      'reserved_rate_limit',
      'client_secret',
      'meta',
    ]);
    expect(created.data.client_secret).toBe('the-secret');
    expect(created.links).toEqual({
      self: `${ORIGIN}/v2/application-keys/0190a0c0-0000-7000-8000-000000000003`,
    });
  });
});

describe('renderApplicationKeyList', () => {
  const url = (offset: number, limit: number) =>
    `${ORIGIN}/v2/application-keys?page[offset]=${offset}&page[limit]=${limit}`;

  it('names current, first and last on an empty store, with no prev or next', () => {
    const list = renderApplicationKeyList(
      { keys: [], total: 0, reservedRateLimitTotal: 0 },
      { limit: 25, offset: 0 },
      ORIGIN,
    );
    expect(list).toEqual({
      data: [],
      links: { current: url(0, 25), first: url(0, 25), last: url(0, 25), next: null, prev: null },
      meta: {
        page: { limit: 25, offset: 0, current: 1, total: 1 },
        results: { total: 0 },
        total_reserved_rate_limit: 0,
      },
    });
  });

  it('shows the store totals, not the page sums', () => {
    const list = renderApplicationKeyList(
      { keys: [record()], total: 1000, reservedRateLimitTotal: 77 },
      { limit: 25, offset: 975 },
      ORIGIN,
    );
    expect(list.meta).toEqual({
      page: { limit: 25, offset: 975, current: 40, total: 40 },
      results: { total: 1000 },
      total_reserved_rate_limit: 77,
    });
    expect(list.links).toEqual({
      current: url(975, 25),
      first: url(0, 25),
      last: url(975, 25),
      next: null,
      prev: url(950, 25),
    });
  });

  it('visits every record once when following next from the first page (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 1, max: 100 }), (total, limit) => {
        const covered: number[] = [];
        let offset: number | null = 0;
        let pages = 0;
        while (offset !== null) {
          const list = renderApplicationKeyList(
            { keys: [], total, reservedRateLimitTotal: 0 },
            { limit, offset },
            ORIGIN,
          );
          pages += 1;
          expect(list.meta.page.current).toBe(pages);
          expect(list.links.last).toBe(url((list.meta.page.total - 1) * limit, limit));
          for (let i = offset; i < Math.min(offset + limit, total); i += 1) covered.push(i);
          const next: string | null = list.links.next;
          offset = next === null ? null : Number(/page\[offset\]=(\d+)/.exec(next)?.[1]);
        }
        expect(covered).toEqual(Array.from({ length: total }, (_, i) => i));
        expect(pages).toBe(Math.max(1, Math.ceil(total / limit)));
      }),
      { numRuns: 200 },
    );
  });
});
