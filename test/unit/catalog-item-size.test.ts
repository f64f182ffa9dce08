import { CHILD_CHUNK_SIZE } from '../../lib/catalog/child-index';
import { RELEASE_SHARDS } from '../../lib/catalog/publisher';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { DEFAULT_CURRENCIES } from '../../lib/store/store-repository';
import { buildReleaseItems } from '../support/one-process-publisher';

const layout = {
  id: 'release',
  shards: RELEASE_SHARDS,
  chunk_size: CHILD_CHUNK_SIZE,
  published_at: '2026-01-01T00:00:00.000Z',
};

function build(spec: string) {
  const validated = validateRelease({
    catalog: { name: 'Sizes' },
    products: [
      {
        id: '00000000-0000-4000-8000-000000000001',
        attributes: { name: 'Small', sku: 'S', status: 'live', commodity_type: 'physical' },
      },
      {
        id: '00000000-0000-4000-8000-000000000002',
        attributes: {
          name: 'Big',
          sku: 'B',
          status: 'live',
          commodity_type: 'physical',
          extensions: { specs: { text: spec } },
        },
      },
    ],
  });
  if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
  return () =>
    buildReleaseItems(validated.document, { catalogId: 'catalog', layout, currencies: DEFAULT_CURRENCIES });
}

describe('buildReleaseItems item size check', () => {
  it('rejects a product whose stored item would exceed a DynamoDB item, naming it', () => {
    expect(build('x'.repeat(400 * 1024))).toThrow(
      expect.objectContaining({
        issues: [expect.objectContaining({ path: 'products[1]', rule: 'item_size' })],
      }),
    );
  });

  it('counts UTF-8 bytes, not characters: 140,000 euro signs are 420,000 bytes', () => {
    expect(build('€'.repeat(140000))).toThrow(
      expect.objectContaining({
        issues: [expect.objectContaining({ path: 'products[1]', rule: 'item_size' })],
      }),
    );
  });

  it('accepts a large product that fits (140,000 ASCII characters)', () => {
    const { items } = build('a'.repeat(140000))();
    expect(items.length).toBeGreaterThanOrEqual(2);
  });
});
