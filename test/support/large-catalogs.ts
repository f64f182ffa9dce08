import { RELEASE_SCHEMA } from '../../lib/catalog/release-schema';
import {
  EXACT,
  PAGE_BUDGET_BYTES,
  PAGE_SIZE,
  productPageWeights,
  worstPageBytes,
} from '../../lib/catalog/size-budget';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { DEFAULT_CURRENCIES } from '../../lib/store/store-repository';
import { prepareRelease } from './one-process-publisher';

/**
 * Release documents at the schema's limits, for the publisher's response budget: every text at its maximum
 * length in the character that weighs most in a Lambda response (`"`: 2 bytes in the body, 4 once the body
 * is a JSON string of the response), every product naming the most files.
 */

const defs = RELEASE_SCHEMA.$defs;
export const MAX_TEXT: number = defs.text.maxLength;
export const MAX_LONG_TEXT: number = defs.longText.maxLength;
export const MAX_FILES: number = defs.product.properties.files.maxItems;
export const MAX_TAGS: number = defs.attributes.properties.tags.maxItems;
export const MAX_HREF: number = defs.file.properties.link.properties.href.maxLength;
export const MAX_COMPONENTS: number = defs.attributes.properties.components.maxProperties;
export const MAX_OPTIONS: number = defs.component.properties.options.maxItems;

/** The catalog id of releaseWithChildren's documents (renderings carry it, so sizes depend on it). */
export const CATALOG_ID = '00000000-0000-4000-8000-0000000000c0';
export const PARENT_ID = '00000000-0000-4000-8000-00000000000a';
export const BUNDLE_ID = '00000000-0000-4000-8000-00000000000b';
const CREATED = '2024-01-01T00:00:00Z';

const uuid = (kind: number, n: number) =>
  `00000000-0000-4000-8${kind.toString(16).padStart(3, '0')}-${n.toString(16).padStart(12, '0')}`;
export const childId = (n: number) => uuid(1, n);
const fileId = (n: number) => uuid(2, n);

function files(count: number, hrefLength: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, n) => {
    const prefix = `https://img.example.com/${n}/`;
    return {
      id: fileId(n),
      file_name: `"${'"'.repeat(MAX_TEXT - 2)}"`,
      mime_type: 'image/png',
      file_size: 9007199254740991,
      link: { href: prefix + 'x'.repeat(Math.max(0, hrefLength - prefix.length)) },
    };
  });
}

/**
 * A parent with `children` live children, each with a description of `description` quote characters; with
 * `maximal`, also every other text at its limit, MAX_TAGS tags, MAX_FILES files and a main image (files
 * with the longest names and links). With `ownFiles`, each child instead names a main image and `ownFiles`
 * files of its own.
 */
export function releaseWithChildren(options: {
  children: number;
  description: number;
  maximal?: boolean;
  ownFiles?: number;
}): Record<string, unknown> {
  const maximal = options.maximal === true;
  const own = options.ownFiles ?? 0;
  const ownFileIds = (n: number) =>
    Array.from({ length: own + 1 }, (_, f) => fileId(MAX_FILES + n * (own + 1) + f));
  const longest = (n: number, at: number) => `${n}${'"'.repeat(at - String(n).length)}`;
  const products: Record<string, unknown>[] = [
    {
      id: PARENT_ID,
      attributes: { name: 'Parent', sku: 'PARENT', status: 'live', commodity_type: 'physical' },
    },
  ];
  for (let n = 0; n < options.children; n += 1) {
    products.push({
      id: childId(n),
      attributes: {
        name: maximal ? longest(n, MAX_TEXT) : `Child ${n}`,
        description: '"'.repeat(options.description),
        sku: maximal ? longest(n, MAX_TEXT).replaceAll('"', 'S') : `CHILD-${n}`,
        status: 'live',
        base_product_id: PARENT_ID,
        ...(maximal
          ? { tags: Array.from({ length: MAX_TAGS }, (_, t) => `${t}`.padEnd(MAX_TEXT, '"')) }
          : {}),
      },
      ...(maximal
        ? {
            main_image: fileId(0),
            files: Array.from({ length: MAX_FILES }, (_, f) => ({ id: fileId(f), created_at: CREATED })),
          }
        : own > 0
          ? {
              main_image: ownFileIds(n)[0],
              files: ownFileIds(n)
                .slice(1)
                .map((id) => ({ id, created_at: CREATED })),
            }
          : {}),
    });
  }
  const documentFiles = [
    ...(maximal ? files(MAX_FILES, MAX_HREF) : []),
    ...(own > 0 ? files(MAX_FILES + options.children * (own + 1), 64).slice(MAX_FILES) : []),
  ];
  return {
    catalog: { id: CATALOG_ID, name: 'Large' },
    ...(documentFiles.length > 0 ? { files: documentFiles } : {}),
    products,
  };
}

/**
 * One bundle with the most components and options, each option a distinct live product with a description
 * of `description` quote characters.
 */
export function maximalBundleRelease(description: number): Record<string, unknown> {
  const components: Record<string, unknown> = {};
  const products: Record<string, unknown>[] = [];
  for (let c = 0; c < MAX_COMPONENTS; c += 1) {
    const options: Record<string, unknown>[] = [];
    for (let o = 0; o < MAX_OPTIONS; o += 1) {
      const id = childId(c * MAX_OPTIONS + o);
      options.push({ id, type: 'product', quantity: 1 });
      products.push({
        id,
        attributes: {
          name: `Option ${c}-${o}`,
          description: '"'.repeat(description),
          sku: `OPT-${c}-${o}`,
          status: 'live',
          commodity_type: 'physical',
          price: { USD: { amount: 100, includes_tax: false } },
        },
      });
    }
    components[`component-${c}`] = { name: `Component ${c}`, options };
  }
  products.push({
    id: BUNDLE_ID,
    attributes: { name: 'Bundle', sku: 'BUNDLE', status: 'live', commodity_type: 'physical', components },
  });
  return { catalog: { name: 'Bundle' }, products };
}

/** The exact worst page (see lib/catalog/size-budget.ts) of releaseWithChildren's 100-child document. */
export function worstChildPage(description: number, ownFiles: number): number {
  const result = validateRelease(releaseWithChildren({ children: PAGE_SIZE, description, ownFiles }));
  if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
  const release = prepareRelease(result.document, {
    catalogId: CATALOG_ID,
    publishedAt: new Date().toISOString(),
    currencies: DEFAULT_CURRENCIES,
  });
  return worstPageBytes(productPageWeights(release.products, release.files, EXACT));
}

/**
 * The longest description (in quotes, 4 bytes each in a response, on each of the page's 100 children) with
 * which releaseWithChildren's 100-child document still fits the response budget: one more is refused.
 */
export function heaviestAcceptedDescription(ownFiles: number): number {
  return Math.floor((PAGE_BUDGET_BYTES - worstChildPage(0, ownFiles)) / (4 * PAGE_SIZE));
}
