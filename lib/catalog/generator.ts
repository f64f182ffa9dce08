/** Options of `npm run catalog -- generate`: large, valid release documents for tests and benchmarks. */
export interface GenerateOptions {
  /** Live children per parent. */
  children: number;
  /** Draft children per parent, interleaved with the live ones (never listed). */
  drafts?: number;
  parents?: number;
  /** Same seed, same document (ids included). */
  seed?: number;
  catalogName?: string;
}

/** mulberry32: a small seeded PRNG, uniform in [0, 1), so generated documents (and test faults) are reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuidFrom(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Math.floor(next() * 4) + 8) as number).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

const COLORS = ['black', 'white', 'navy', 'red', 'green', 'grey', 'blue', 'yellow'];
const SIZES = ['xs', 's', 'm', 'l', 'xl', 'xxl'];

/**
 * A release document with `parents` parents of `children` live children each (plus `drafts` draft ones),
 * a standalone product, a two-level node tree and a price modifier. Children differ in every filterable
 * attribute, and their `updated_at` order differs from publish order (so `in(id,...)` order is testable).
 */
export function generateRelease(options: GenerateOptions): Record<string, unknown> {
  const next = seededRandom(options.seed ?? 1);
  const parents = options.parents ?? 1;
  const drafts = options.drafts ?? 0;
  const rootNode = uuidFrom(next);
  const leafNode = uuidFrom(next);
  const products: Record<string, unknown>[] = [];
  const base = Date.UTC(2024, 0, 1);
  for (let p = 0; p < parents; p += 1) {
    const parentId = uuidFrom(next);
    products.push({
      id: parentId,
      attributes: {
        name: `Generated Tee ${p + 1}`,
        description: 'A generated parent product.',
        sku: `GEN-${p + 1}`,
        status: 'live',
        commodity_type: 'physical',
        tags: ['generated'],
        price: {
          USD: { amount: 2000 + p, includes_tax: false },
          EUR: { amount: 1800 + p, includes_tax: true },
          tiers: { bulk: { minimum_quantity: 10, price: { USD: { amount: 1800, includes_tax: false } } } },
        },
        locales: { 'fr-FR': { name: `T-shirt généré ${p + 1}` } },
      },
      node_ids: [leafNode],
    });
    const total = options.children + drafts;
    const draftEvery = drafts > 0 ? Math.floor(total / drafts) : 0;
    let draftCount = 0;
    for (let i = 0; i < total; i += 1) {
      const draft = draftEvery > 0 && draftCount < drafts && i % draftEvery === draftEvery - 1;
      if (draft) draftCount += 1;
      const color = COLORS[i % COLORS.length] as string;
      const size = SIZES[Math.floor(i / COLORS.length) % SIZES.length] as string;
      const number = String(i + 1).padStart(6, '0');
      // A permutation of 0..total-1 (1,000,003 is prime and larger than any count used here).
      const order = (i * 1000003) % total;
      products.push({
        id: uuidFrom(next),
        attributes: {
          name: `Generated Tee ${p + 1} ${color} ${size} #${number}`,
          sku: `GEN-${p + 1}-${number}`,
          slug: `gen-${p + 1}-${number}`,
          status: draft ? 'draft' : 'live',
          base_product_id: parentId,
          manufacturer_part_num: `MPN-${i % 50}`,
          upc_ean: String(4000000000000 + i),
          tags: [color, size],
          ...(size === 'xxl' ? { price_modifiers: ['xxl-surcharge'] } : {}),
          created_at: new Date(base).toISOString(),
          updated_at: new Date(base + order * 1000).toISOString(),
        },
      });
    }
  }
  products.push({
    id: uuidFrom(next),
    attributes: {
      name: 'Generated Standalone',
      sku: 'GEN-STANDALONE',
      status: 'live',
      commodity_type: 'digital',
      price: { USD: { amount: 500, includes_tax: false } },
    },
    node_ids: [rootNode],
  });
  return {
    $schema: './release.schema.json',
    catalog: { name: options.catalogName ?? 'Generated catalog' },
    rules: [],
    nodes: [
      { id: rootNode, name: 'Generated', parent_id: null },
      { id: leafNode, name: 'Tees', parent_id: rootNode },
    ],
    price_modifiers: {
      'xxl-surcharge': {
        modifier_type: 'price_increment',
        currencies: { USD: { amount: 250, includes_tax: false } },
      },
    },
    products,
  };
}
