/**
 * The test oracle of the release validation: the whole document in memory, every product held at once,
 * the checks across products made with plain maps over all of them, and the issues ordered by their place
 * in the document. The API, the workflow and the tools validate with the streamed validation
 * (lib/catalog/validate-stream.ts), which holds one product at a time; the tests check that it answers as
 * this does (the same issues at the same paths, with the same rules and messages).
 */
import { checkShape, type PathSegments } from '../../lib/catalog/release-schema';
import type { ProductInput } from '../../lib/catalog/types';
import {
  brokenEntities,
  checkFamily,
  componentReferences,
  type DeclaredLists,
  entryValid,
  Issues,
  isObject,
  listReferences,
  normaliseHead,
  normaliseProduct,
  orderedIssues,
  type ProductDraft,
  parentReference,
  productRules,
  type ValidationResult,
} from '../../lib/catalog/validate-release';

/** The ids a document declares (any entry with a UUID id), so one bad entry does not break others' references. */
function declaredIds(list: unknown): Set<string> {
  const ids = new Set<string>();
  if (!Array.isArray(list)) return ids;
  for (const entry of list) {
    const id = isObject(entry) ? entry.id : undefined;
    if (typeof id === 'string') ids.add(id.toLowerCase());
  }
  return ids;
}

interface Declared extends DeclaredLists {
  products: ReadonlySet<string>;
}

/** The first product each value of `value(product)` belongs to; later ones are reported as repeats. */
function uniqueAcross(
  drafts: ProductDraft[],
  field: string,
  value: (product: ProductInput) => string | null | undefined,
  issues: Issues,
): void {
  const owners = new Map<string, number>();
  for (const { product, index } of drafts) {
    const key = value(product);
    if (key === undefined || key === null) continue;
    const owner = owners.get(key);
    if (owner === undefined) owners.set(key, index);
    else {
      const segments: PathSegments =
        field === 'id' ? ['products', index, 'id'] : ['products', index, 'attributes', field];
      const what = field === 'id' ? `product id ${key}` : `${field} ${JSON.stringify(key)}`;
      issues.add(segments, 'unique', `${what} is also used by products[${owner}]`);
    }
  }
}

/** Checks that need the whole document: uniqueness, references between products, nodes, files and modifiers. */
function crossCheck(drafts: ProductDraft[], declared: Declared, issues: Issues): void {
  uniqueAcross(drafts, 'id', (product) => product.id, issues);
  uniqueAcross(drafts, 'sku', (product) => product.attributes.sku, issues);
  uniqueAcross(drafts, 'slug', (product) => product.attributes.slug, issues);
  uniqueAcross(drafts, 'external_ref', (product) => product.attributes.external_ref, issues);
  const byId = new Map<string, ProductDraft>();
  for (const draft of drafts) if (!byId.has(draft.product.id)) byId.set(draft.product.id, draft);
  const isDeclared = (productId: string) => declared.products.has(productId);
  const childrenOf = new Map<string, ProductDraft[]>();
  for (const draft of drafts) {
    listReferences(draft, declared, issues);
    componentReferences(draft, isDeclared, issues);
    const parentId = draft.product.attributes.base_product_id;
    const parent = parentId === undefined ? undefined : byId.get(parentId);
    const joins = parentReference(
      draft,
      parent && { index: parent.index, child: parent.product.attributes.base_product_id !== undefined },
      isDeclared,
      issues,
    );
    if (joins && parentId !== undefined) {
      const siblings = childrenOf.get(parentId);
      if (siblings) siblings.push(draft);
      else childrenOf.set(parentId, [draft]);
    }
    productRules(draft, issues);
  }
  for (const [parentId, children] of childrenOf) {
    const parent = byId.get(parentId);
    if (parent) checkFamily(parent, children, issues);
  }
}

/**
 * Validates a whole release document held in memory: normalised, or every issue found in document order
 * (capped at MAX_VALIDATION_ISSUES; `total` counts them all).
 */
export function validateReleaseDocument(input: unknown): ValidationResult {
  const shape = checkShape(input);
  if (!isObject(input)) return orderedIssues(input, shape, []);
  const broken = brokenEntities(shape);
  const issues = new Issues();
  const { catalog, ...head } = normaliseHead(input, broken, issues);
  const products = input.products;
  const drafts: ProductDraft[] = [];
  if (Array.isArray(products)) {
    const valid = entryValid(broken, 'products');
    products.forEach((entry, index) => {
      if (valid(index)) drafts.push({ index, product: normaliseProduct(entry, index, issues) });
    });
  }
  crossCheck(
    drafts,
    {
      products: declaredIds(products),
      nodes: declaredIds(input.nodes),
      files: declaredIds(input.files),
      modifiers: new Set(isObject(input.price_modifiers) ? Object.keys(input.price_modifiers) : []),
    },
    issues,
  );
  if (shape.length > 0 || issues.list.length > 0 || catalog === undefined) {
    return orderedIssues(input, shape, issues.list);
  }
  return { ok: true, document: { catalog, ...head, products: drafts.map((draft) => draft.product) } };
}
