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
  /** Give every child its own main image and the parent a file (a top-level `files[]` entry each). */
  images?: boolean;
  /**
   * Each product at least this many bytes as JSON, its description filled with words to reach it (at most
   * `MAX_PRODUCT_BYTES`): real products weigh several KB, the bare generated ones about 400 bytes.
   */
  productBytes?: number;
}

/** The largest `productBytes`: a description holds at most 16,384 characters (catalog/release.schema.json). */
export const MAX_PRODUCT_BYTES = 16_000;

const WORDS = [
  'soft',
  'cotton',
  'jersey',
  'relaxed',
  'fit',
  'crew',
  'neck',
  'short',
  'sleeves',
  'organic',
  'washed',
  'durable',
  'stitching',
  'breathable',
  'everyday',
  'classic',
  'tee',
  'made',
  'to',
  'last',
  'machine',
  'wash',
  'cold',
  'tumble',
  'dry',
  'low',
  'printed',
  'label',
  'ribbed',
  'collar',
  'pre-shrunk',
  'fabric',
];

/**
 * Fills `product`'s description so its JSON takes at least `bytes` bytes: words from a PRNG of its own, so
 * the document's ids are the same with or without filling.
 */
function fill(product: { attributes: Record<string, unknown> }, bytes: number, words: () => number): void {
  let missing = bytes - Buffer.byteLength(JSON.stringify(product));
  while (missing > 0) {
    const current = typeof product.attributes.description === 'string' ? product.attributes.description : '';
    const parts = current === '' ? [] : [current];
    // Words (ASCII, nothing to escape) up to the missing length, then measured again.
    // A new description also adds its key, quotes and comma.
    const wanted = current === '' ? Math.max(1, missing - '"description":"",'.length) : missing;
    for (let added = 0; added < wanted; ) {
      const word = WORDS[Math.floor(words() * WORDS.length)] as string;
      parts.push(word);
      added += word.length + 1;
    }
    product.attributes.description = parts.join(' ');
    missing = bytes - Buffer.byteLength(JSON.stringify(product));
  }
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

/** A generated document as its head (every member but `products` and `files`), its products one by one, then its files. */
export interface GeneratedParts {
  head: Record<string, unknown>;
  /** Lazily generated: a million products never exist at once. */
  products: Iterable<Record<string, unknown>>;
  /** The top-level files the products refer to (only with `images`), complete once `products` is consumed. */
  files: Record<string, unknown>[];
}

/**
 * A release document with `parents` parents of `children` live children each (plus `drafts` draft ones),
 * a standalone product, a two-level node tree and a price modifier. Children differ in every filterable
 * attribute, and their `updated_at` order differs from publish order (so `in(id,...)` order is testable).
 */
export function generateRelease(options: GenerateOptions): Record<string, unknown> {
  const parts = generateParts(options);
  const products = [...parts.products];
  return { ...parts.head, ...(parts.files.length > 0 ? { files: parts.files } : {}), products };
}

/**
 * The document of `generateRelease` as JSON text in pieces (the head, then about 64 KB of products at a
 * time, then the files): written piece by piece, a document of any size takes little memory.
 */
export function* generateReleaseText(options: GenerateOptions): Generator<string> {
  const parts = generateParts(options);
  const head = JSON.stringify(parts.head);
  let piece = `${head.slice(0, -1)},"products":[`;
  let first = true;
  for (const product of parts.products) {
    piece += `${first ? '' : ','}${JSON.stringify(product)}`;
    first = false;
    if (piece.length >= 65_536) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}]${parts.files.length > 0 ? `,"files":${JSON.stringify(parts.files)}` : ''}}\n`;
}

export function generateParts(options: GenerateOptions): GeneratedParts {
  const next = seededRandom(options.seed ?? 1);
  const words = seededRandom((options.seed ?? 1) + 0x9e3779b9);
  const sized = <T extends { attributes: Record<string, unknown> }>(product: T): T => {
    if (options.productBytes !== undefined) fill(product, options.productBytes, words);
    return product;
  };
  const parents = options.parents ?? 1;
  const drafts = options.drafts ?? 0;
  const rootNode = uuidFrom(next);
  const leafNode = uuidFrom(next);
  const files: Record<string, unknown>[] = [];
  const base = Date.UTC(2024, 0, 1);
  /** A file of the document (when `images`), named by the returned id. */
  const file = (name: string, mime: string): string => {
    const fileId = uuidFrom(next);
    files.push({
      id: fileId,
      file_name: name,
      mime_type: mime,
      file_size: 20000 + files.length,
      link: { href: `https://img.example.com/generated/${name}` },
      meta: {
        dimensions: { width: 800, height: 800 },
        timestamps: { created_at: new Date(base).toISOString() },
      },
    });
    return fileId;
  };
  function* products(): Generator<Record<string, unknown>> {
    for (let p = 0; p < parents; p += 1) {
      const parentId = uuidFrom(next);
      yield sized({
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
        } as Record<string, unknown>,
        node_ids: [leafNode],
        ...(options.images
          ? {
              files: [
                {
                  id: file(`size-chart-${p + 1}.pdf`, 'application/pdf'),
                  created_at: new Date(base).toISOString(),
                },
              ],
            }
          : {}),
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
        yield sized({
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
          } as Record<string, unknown>,
          ...(options.images ? { main_image: file(`tee-${p + 1}-${number}.png`, 'image/png') } : {}),
        });
      }
    }
    yield sized({
      id: uuidFrom(next),
      attributes: {
        name: 'Generated Standalone',
        sku: 'GEN-STANDALONE',
        status: 'live',
        commodity_type: 'digital',
        price: { USD: { amount: 500, includes_tax: false } },
      } as Record<string, unknown>,
      node_ids: [rootNode],
    });
  }
  return {
    head: {
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
    },
    products: products(),
    files,
  };
}
