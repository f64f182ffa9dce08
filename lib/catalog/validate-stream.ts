/**
 * Validates a release document read as a stream (`readReleaseDocument`), one product at a time: every
 * check of `validateReleaseDocument`, without holding the document. Each product is checked alone
 * (`validateProduct`) and dropped; what the checks across products need is kept in compact form (the
 * values that must be unique, each child's parent and variation options, a parent's variations, bundles'
 * components) and checked once the document has been read.
 *
 * The products are streamed; the other top-level values (catalog, currencies, rules, nodes, files, price
 * modifiers) are held and checked as the whole-document validation checks them. A document that lists
 * its nodes, files and price modifiers before its products (as `catalog generate` writes them) has each
 * product's references to them checked as it is read; otherwise they are kept until the end.
 *
 * The issues are those `validateReleaseDocument` reports, ordered by top-level member and element, then
 * as found within one element (the whole-document validation orders that last part by the product's own
 * key order, which is not kept here).
 */
import { type DocumentPart, readReleaseDocument } from './document-stream';
import {
  type BundleDraft,
  type ChildDraft,
  checkFamily,
  componentReferences,
  type DeclaredLists,
  type FamilyParent,
  formatPath,
  Issues,
  listReferences,
  MAX_VALIDATION_ISSUES,
  type ProductDraft,
  parentReference,
  type ReferencingDraft,
  type ValidationIssue,
  validateProduct,
  validateReleaseDocument,
} from './validate-release';

export type StreamValidation =
  | { ok: true; products: number }
  | { ok: false; issues: ValidationIssue[]; total: number };

/** One value that must be unique across products, with the first product that has it. */
class UniqueColumn {
  private readonly values: string[] = [];
  private readonly indexes: number[] = [];

  add(value: string | null | undefined, index: number): void {
    if (value === undefined || value === null) return;
    this.values.push(value);
    this.indexes.push(index);
  }

  /** The positions of the entries in value order, then document order. */
  private sorted(): Int32Array {
    const order = Int32Array.from(this.values.keys());
    const { values, indexes } = this;
    order.sort((a, b) => {
      const x = values[a] as string;
      const y = values[b] as string;
      return x < y ? -1 : x > y ? 1 : (indexes[a] as number) - (indexes[b] as number);
    });
    return order;
  }

  /** Each repeat, with the first product that has its value. */
  *repeats(): Generator<{ value: string; index: number; owner: number }> {
    const order = this.sorted();
    let owner = -1;
    let previous: string | undefined;
    for (const position of order) {
      const value = this.values[position] as string;
      const index = this.indexes[position] as number;
      if (value === previous) yield { value, index, owner };
      else {
        owner = index;
        previous = value;
      }
    }
  }

  /** A lookup from value to its first product (built once, after the document has been read). */
  lookup(): (value: string) => number | undefined {
    const order = this.sorted();
    const values = Array.from(order, (position) => this.values[position] as string);
    const indexes = Array.from(order, (position) => this.indexes[position] as number);
    return (value) => {
      let low = 0;
      let high = values.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((values[middle] as string) < value) low = middle + 1;
        else high = middle;
      }
      return values[low] === value ? indexes[low] : undefined;
    };
  }
}

/** Issues with their place in the document; only the first MAX_VALIDATION_ISSUES are kept, all are counted. */
class OrderedIssues {
  private kept: { order: [number, number, number]; issue: ValidationIssue }[] = [];
  total = 0;
  private rank = 0;

  add(member: number, element: number, issue: ValidationIssue): void {
    this.total += 1;
    this.kept.push({ order: [member, element, this.rank], issue });
    this.rank += 1;
    if (this.kept.length > 10 * MAX_VALIDATION_ISSUES) this.trim();
  }

  private trim(): void {
    this.kept.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2]);
    this.kept.length = Math.min(this.kept.length, MAX_VALIDATION_ISSUES);
  }

  first(): ValidationIssue[] {
    this.trim();
    return this.kept.map((entry) => entry.issue);
  }
}

const ELEMENT = /^[A-Za-z_$][A-Za-z0-9_]*\[(\d+)\]/;

/**
 * The answer of `validateReleaseDocument` for the document `source` streams (its issues, the first
 * MAX_VALIDATION_ISSUES of them, and their total), holding one product at a time. Throws
 * DocumentReadError when the source is not a JSON object (see `readReleaseDocument`).
 */
export async function validateReleaseStream(source: AsyncIterable<Uint8Array>): Promise<StreamValidation> {
  const members: string[] = [];
  // No prototype: a member named `__proto__` is a member like any other (and an unknown one).
  const head: Record<string, unknown> = Object.create(null);
  const issues = new OrderedIssues();
  const position = (member: string) => {
    const at = members.indexOf(member);
    return at < 0 ? members.length : at;
  };
  const addFound = (found: Issues) => {
    for (const issue of found.list) {
      const [, index] = issue.segments;
      issues.add(position('products'), typeof index === 'number' ? index : -1, {
        path: formatPath(issue.segments),
        rule: issue.rule,
        message: issue.message,
      });
    }
    found.list.length = 0;
  };

  // Compact state for the checks across products.
  const ids = new UniqueColumn();
  const unique = { sku: new UniqueColumn(), slug: new UniqueColumn(), external_ref: new UniqueColumn() };
  const brokenIds = new Set<string>();
  let childFlags = new Uint8Array(1 << 16); // 1 for a product that names a parent
  const childrenOf = new Map<string, number[]>(); // positions in `children`
  const parents = new Map<number, FamilyParent>();
  const interned = new Map<string, string>();
  const intern = (value: string) => {
    const known = interned.get(value);
    if (known !== undefined) return known;
    interned.set(value, value);
    return value;
  };
  const laterLists: ReferencingDraft[] = [];
  const bundles: BundleDraft[] = [];
  const children = {
    indexes: [] as number[],
    parents: [] as string[],
    options: [] as (string[] | undefined)[],
  };
  let known: DeclaredLists = { nodes: new Set(), files: new Set(), modifiers: new Set() };
  let products = 0;
  const found = new Issues();

  const held = new Map<string, unknown[]>();
  const heldList = (member: string) => {
    const list = held.get(member) ?? [];
    held.set(member, list);
    return list;
  };

  for await (const parts of readReleaseDocument(source)) {
    for (const part of parts) {
      if (!members.includes(part.key)) members.push(part.key);
      if (part.key !== 'products') {
        // Held whole: the catalog, currencies, rules, nodes, files, price modifiers (and any unknown member).
        if (part.kind === 'value') head[part.key] = part.value;
        else if (part.kind === 'element') heldList(part.key).push(part.value);
        else head[part.key] = heldList(part.key);
        known = declaredLists(head, known, part);
        continue;
      }
      if (part.kind === 'array') continue;
      if (part.kind === 'value') {
        // `products` not an array: the whole-document validation words it.
        head.products = part.value;
        continue;
      }
      products += 1;
      const { index, value: raw } = part;
      const checked = validateProduct(raw, index);
      if (!checked.ok) {
        for (const issue of checked.issues) issues.add(position('products'), index, issue);
        issues.total += checked.total - checked.issues.length;
      }
      if (checked.product === undefined) {
        // Broken in its shape: left out of the checks across products, but its id still counts as declared.
        const id = (raw as { id?: unknown } | null)?.id;
        if (typeof id === 'string') brokenIds.add(id.toLowerCase());
        continue;
      }
      const draft: ProductDraft = { index, product: checked.product };
      const { product } = draft;
      ids.add(product.id, index);
      unique.sku.add(product.attributes.sku, index);
      unique.slug.add(product.attributes.slug, index);
      unique.external_ref.add(product.attributes.external_ref, index);
      if (childFlags.length <= index) {
        const grown = new Uint8Array(Math.max(childFlags.length * 2, index + 1));
        grown.set(childFlags);
        childFlags = grown;
      }
      const parentId = product.attributes.base_product_id;
      if (parentId !== undefined) {
        childFlags[index] = 1;
        if (parentId === product.id) {
          parentReference(draft, undefined, () => true, found);
          addFound(found);
        } else {
          // Kept as three entries of parallel arrays, not as objects: a million children are cheaper so.
          const picked = Object.entries(product.variation_options).flatMap(([variation, option]) => [
            intern(variation),
            intern(option),
          ]);
          children.indexes.push(index);
          children.parents.push(intern(parentId));
          children.options.push(picked.length > 0 ? picked : undefined);
        }
      } else {
        const { base_product, product_types } = product.attributes;
        if (product.variations.length > 0 || base_product === false || product_types !== undefined)
          parents.set(index, {
            index,
            product: { attributes: { base_product, product_types }, variations: product.variations },
          });
      }
      // Against the nodes, files and modifiers read so far: a reference not found among a list still to
      // come is checked again at the end (only then is the product's list of references kept).
      listReferences(draft, known, found);
      if (found.list.some((issue) => !members.includes(listOf(issue.segments)))) {
        found.list.length = 0;
        laterLists.push({
          index,
          product: {
            node_ids: product.node_ids,
            files: product.files,
            ...(product.main_image === undefined ? {} : { main_image: product.main_image }),
            attributes: { price_modifiers: product.attributes.price_modifiers },
          },
        });
      }
      if (product.attributes.components !== undefined)
        bundles.push({
          index,
          product: { id: product.id, attributes: { components: product.attributes.components } },
        });
      addFound(found);
    }
  }

  // The rest of the document, as the whole-document validation checks it (its products are checked above).
  // A `products` that is an array is checked above; one that is not is left for this to word.
  const rest = validateReleaseDocument(
    members.includes('products') ? { ...head, products: head.products ?? [] } : head,
  );
  if (!rest.ok) {
    rest.issues.forEach((issue) => {
      const member = /^[^.[]+/.exec(issue.path)?.[0] ?? '';
      const element = ELEMENT.exec(issue.path);
      issues.add(position(member), element ? Number(element[1]) : -1, issue);
    });
    issues.total += rest.total - rest.issues.length;
  }

  // Checks across products.
  for (const draft of laterLists) listReferences(draft, known, found);
  const firstWithId = ids.lookup();
  const declared = (productId: string) => firstWithId(productId) !== undefined || brokenIds.has(productId);
  for (const draft of bundles) componentReferences(draft, declared, found);
  for (const [field, column] of [['id', ids], ...Object.entries(unique)] as const) {
    for (const { value, index, owner } of column.repeats()) {
      const segments = field === 'id' ? ['products', index, 'id'] : ['products', index, 'attributes', field];
      const what = field === 'id' ? `product id ${value}` : `${field} ${JSON.stringify(value)}`;
      found.add(segments, 'unique', `${what} is also used by products[${owner}]`);
    }
  }
  const child = (position: number): ChildDraft => {
    const picked = children.options[position] ?? [];
    const variationOptions: Record<string, string> = {};
    for (let i = 0; i < picked.length; i += 2)
      variationOptions[picked[i] as string] = picked[i + 1] as string;
    return {
      index: children.indexes[position] as number,
      // A child naming itself was reported as it was read; the id is only compared with the parent's.
      product: {
        id: '',
        attributes: { base_product_id: children.parents[position] },
        variation_options: variationOptions,
      },
    };
  };
  children.indexes.forEach((_, position) => {
    const parentId = children.parents[position] as string;
    const parentIndex = firstWithId(parentId);
    const parent =
      parentIndex === undefined ? undefined : { index: parentIndex, child: childFlags[parentIndex] === 1 };
    if (parentReference(child(position), parent, declared, found)) {
      const family = childrenOf.get(parentId);
      if (family) family.push(position);
      else childrenOf.set(parentId, [position]);
    }
  });
  for (const [parentId, positions] of childrenOf) {
    // One child made at a time: a parent may have a million.
    const family = (function* () {
      for (const position of positions) yield child(position);
    })();
    const parentIndex = firstWithId(parentId) as number;
    const parent = parents.get(parentIndex) ?? {
      index: parentIndex,
      product: { attributes: {}, variations: [] },
    };
    checkFamily(parent, family, found);
  }
  addFound(found);
  if (issues.total === 0) return { ok: true, products };
  return { ok: false, issues: issues.first(), total: issues.total };
}

/** The list a reference issue is about: `nodes`, `files` or `price_modifiers`. */
function listOf(segments: readonly (string | number)[]): string {
  if (segments.includes('node_ids')) return 'nodes';
  if (segments.includes('price_modifiers')) return 'price_modifiers';
  return 'files';
}

/** The declared lists with what `part` adds: a node's or file's id, or the price modifiers' names. */
function declaredLists(
  head: Record<string, unknown>,
  known: DeclaredLists,
  part: DocumentPart,
): DeclaredLists {
  if (part.key === 'price_modifiers' && part.kind === 'value') {
    const modifiers = head.price_modifiers;
    const names =
      typeof modifiers === 'object' && modifiers !== null && !Array.isArray(modifiers)
        ? Object.keys(modifiers)
        : [];
    return { ...known, modifiers: new Set(names) };
  }
  if (part.kind !== 'element' || (part.key !== 'nodes' && part.key !== 'files')) return known;
  const id = (part.value as { id?: unknown } | null)?.id;
  if (typeof id === 'string') (known[part.key] as Set<string>).add(id.toLowerCase());
  return known;
}
