import './silent-logs';
import { pathToFileURL } from 'node:url';
import releaseSchema from '../catalog/release.schema.json' with { type: 'json' };
import {
  CACHE_BUDGETS,
  chunkCache,
  clearCatalogCaches,
  positionCache,
  productCache,
  resultCache,
} from '../lib/catalog/cache';
import { CHILD_CHUNK_SIZE } from '../lib/catalog/child-index';
import { generateRelease } from '../lib/catalog/generator';
import { listChildProducts } from '../lib/catalog/list-children';
import { ReleaseValidationError } from '../lib/catalog/validate-release';
import { storeRepository } from '../lib/store/store-repository';
import { checkRelease, publishRelease } from '../test/support/one-process-publisher';
import { intOption, progress, round, startBenchDatabase } from './support';

/** Most tags a product may have, as the release schema says. */
const MAX_TAGS: number = releaseSchema.$defs.attributes.properties.tags.maxItems;

/**
 * The catalog caches under the worst valid catalog: every child of one parent carries the most tags
 * of the longest text (250 characters) that the response budget lets it carry (the schema's 100 for a few
 * children, fewer when 100 such children would pass it), and the longest name, SKU and part number (255), and
 * requests read every child-index chunk of the parent (one one-product page per chunk; a filtered
 * request reads only its page's chunks since releases carry a filter index). Each store gets its own release (the
 * caches are keyed by release), and each is requested once. Reports the heap after each store, what
 * the caches charged, and what they really held (the heap freed by emptying them), against the
 * documented budget. Run with `--expose-gc` (and `--max-old-space-size=256`, the Lambda's memory):
 * `node --expose-gc --max-old-space-size=256 --import tsx bench/cache-worst-case.ts [--stores N]
 * [--children N] [--json]`; uses DYNAMODB_ENDPOINT's tables when set, else its own DynamoDB Local.
 */

const MB = 1024 * 1024;
/** What the catalog caches may hold in all, in bytes (lib/catalog/cache.ts). */
export const CACHE_BUDGET_BYTES = CACHE_BUDGETS.products + CACHE_BUDGETS.chunks + CACHE_BUDGETS.results;

export interface WorstCaseFigures {
  stores: number;
  children_per_store: number;
  /** Tags of 250 characters on each child: the most the response budget allows for this many children. */
  tags_per_child: number;
  /** Heap used (MB, after a full GC) before the first store and after each store's request. */
  heap_mb: number[];
  /** Heap growth over the run, MB. */
  heap_growth_mb: number;
  /** Sum of the weights the caches charged, MB. */
  charged_mb: number;
  /** Heap the caches really held: freed by emptying them (after a full GC), MB. */
  held_mb: number;
  /** The caches' documented budget, MB. */
  budget_mb: number;
}

/** Text of `length` characters; repetitive, as the worst case is: it deflates well, so the child-index chunks
 * stay under DynamoDB's 400 KB item limit (a release whose chunks do not is refused), while decoded they are
 * as large as the limits allow. Two-byte characters (CJK) take twice the heap of ASCII in V8. */
const text = (length: number, char: string) => char.repeat(length);

/** The generated release with every child's filterable text at its maximum, with `tags` tags each. */
function releaseWithTags(children: number, seed: number, tags: number): Record<string, unknown> {
  const release = generateRelease({ children, seed, catalogName: `Worst case ${seed}` });
  const products = release.products as { attributes: Record<string, unknown> }[];
  products.forEach((product, i) => {
    if (product.attributes.base_product_id === undefined) return;
    const unique = `${seed}-${i}-`;
    product.attributes.name = `${unique}${text(255 - unique.length, '\u540d')}`;
    product.attributes.sku = `${unique}${text(255 - unique.length, 'S')}`;
    product.attributes.manufacturer_part_num = text(255, '\u578b');
    product.attributes.tags = Array.from(
      { length: tags },
      (_, t) => `${t}-${text(250 - `${t}-`.length, '\u6807')}`,
    );
  });
  return release;
}

/**
 * The worst valid release: every child with the longest texts and as many tags of 250 characters as the
 * publisher accepts, the schema's 100 when that fits, else fewer, so that the 100 heaviest products still fit
 * the response budget (lib/catalog/size-budget.ts; 300 such children would make a 7.5 MB page).
 */
export function worstCaseRelease(children: number, seed: number): Record<string, unknown> {
  for (let tags = MAX_TAGS; tags > 0; tags -= 5) {
    const release = releaseWithTags(children, seed, tags);
    try {
      checkRelease(release);
      return release;
    } catch (error) {
      const overBudget =
        error instanceof ReleaseValidationError &&
        error.issues.every((issue) => issue.rule === 'response_size');
      if (!overBudget) throw error;
    }
  }
  throw new Error('no worst-case release fits the response budget');
}

function heapMb(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed / MB;
}

/** Publishes `stores` worst-case releases, reads every index chunk of each, and measures the heap. */
export async function measureWorstCaseCache(stores: number, children: number): Promise<WorstCaseFigures> {
  clearCatalogCaches();
  const heap = [heapMb()];
  let tags = 0;
  for (let s = 0; s < stores; s += 1) {
    const store = await storeRepository.create({ name: `Worst case ${s}` });
    const release = worstCaseRelease(children, 1000 + s);
    tags = Math.max(
      0,
      ...(release.products as { attributes: { tags?: unknown[] } }[]).map(
        (p) => p.attributes.tags?.length ?? 0,
      ),
    );
    await publishRelease(store.id, release);
    const parentId = findParent(release);
    for (let offset = 0; offset < children; offset += CHILD_CHUNK_SIZE) {
      await listChildProducts({
        storeId: store.id,
        defaultLocale: 'en-US',
        productId: parentId,
        channel: 'web',
        tag: undefined,
        acceptLanguage: undefined,
        filter: [],
        page: { limit: 1, offset },
      });
    }
    heap.push(heapMb());
    progress(`store ${s + 1}/${stores}: heap ${round(heap[heap.length - 1] ?? 0, 1)} MB`);
  }
  const charged =
    productCache.totalWeight + chunkCache.totalWeight + resultCache.totalWeight + positionCache.totalWeight;
  const before = heapMb();
  clearCatalogCaches();
  const after = heapMb();
  return {
    stores,
    children_per_store: children,
    tags_per_child: tags,
    heap_mb: heap.map((value) => round(value, 1)),
    heap_growth_mb: round((heap[heap.length - 1] ?? 0) - (heap[0] ?? 0), 1),
    charged_mb: round(charged / MB, 1),
    held_mb: round(before - after, 1),
    budget_mb: round(CACHE_BUDGET_BYTES / MB, 1),
  };
}

/** The parent's id (the generator's first product; the same seed gives the same ids). */
function findParent(release: Record<string, unknown>): string {
  const [parent] = release.products as { id: string }[];
  if (!parent) throw new Error('the generated release has no parent');
  return parent.id;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const run = async () => {
    const database = process.env.DYNAMODB_ENDPOINT ? undefined : await startBenchDatabase();
    try {
      const figures = await measureWorstCaseCache(
        intOption(args, '--stores', 6),
        intOption(args, '--children', 300),
      );
      process.stdout.write(
        args.includes('--json')
          ? `${JSON.stringify(figures)}\n`
          : `worst-case catalog caches: ${figures.stores} stores x ${figures.children_per_store} children of ${figures.tags_per_child} tags; heap ${figures.heap_mb.join(' -> ')} MB; charged ${figures.charged_mb} MB, held ${figures.held_mb} MB, budget ${figures.budget_mb} MB\n`,
      );
    } finally {
      await database?.stop();
    }
  };
  run().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
