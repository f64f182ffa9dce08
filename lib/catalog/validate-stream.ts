/**
 * Validates a release document read as a stream (`readReleaseDocument`), one product at a time: every
 * check of the release validation, without holding the document, whatever its size. It is the only
 * validation of a whole document: the API's workflow, `npm run catalog -- validate` and `publish`, and the
 * publisher of documents built in memory (`validateRelease`) all run it. Each product is checked alone
 * (`validateProduct`) and dropped; what the checks across products need is kept in compact form (the
 * values that must be unique, each child's parent and variation options, a parent's variations, bundles'
 * components) and checked once the document has been read.
 *
 * The products are streamed; the other top-level values (catalog, currencies, rules, nodes, files, price
 * modifiers) are held and checked whole (`validateReleaseHead`). A document that lists
 * its nodes, files and price modifiers before its products (as `catalog generate` writes them) has each
 * product's references to them checked as it is read; otherwise they are kept until the end.
 *
 * The issues are ordered by top-level member and element, then as found within one element (the test
 * oracle, test/support/whole-release-validation.ts, orders that last part by the product's own key order,
 * which is not kept here).
 */
import { type DocumentPart, readReleaseDocument } from './document-stream';
import type { ProductInput } from './types';
import {
  type BundleDraft,
  type ChildDraft,
  checkFamily,
  componentReferences,
  type DeclaredLists,
  type FamilyParent,
  formatPath,
  Issues,
  isObject,
  listReferences,
  MAX_VALIDATION_ISSUES,
  type ProductDraft,
  parentReference,
  type ReferencingDraft,
  type ReleaseHead,
  type ValidationIssue,
  type ValidationResult,
  validateProduct,
  validateReleaseHead,
} from './validate-release';

export type StreamValidation =
  | { ok: true; products: number }
  | { ok: false; issues: ValidationIssue[]; total: number };

/** One value that must be unique across products, with the first product that has it. */
class UniqueColumn {
  private readonly values: string[] = [];
  private readonly indexes: number[] = [];
  /** The entries' order once sorted (the ids' column is asked for its repeats and its lookup). */
  private order: Int32Array | undefined;

  add(value: string | null | undefined, index: number): void {
    if (value === undefined || value === null) return;
    this.values.push(value);
    this.indexes.push(index);
    this.order = undefined;
  }

  /** The positions of the entries in value order, then document order. */
  private sorted(): Int32Array {
    if (this.order !== undefined) return this.order;
    const order = Int32Array.from(this.values.keys());
    const { values, indexes } = this;
    order.sort((a, b) => {
      const x = values[a] as string;
      const y = values[b] as string;
      return x < y ? -1 : x > y ? 1 : (indexes[a] as number) - (indexes[b] as number);
    });
    this.order = order;
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
 * The answer of the release validation for the document `source` streams (its issues, the first
 * MAX_VALIDATION_ISSUES of them, and their total), holding one product at a time. Throws
 * DocumentReadError when the source is not a JSON object (see `readReleaseDocument`).
 */
export async function validateReleaseStream(source: AsyncIterable<Uint8Array>): Promise<StreamValidation> {
  const validation = new PartsValidation();
  for await (const parts of readReleaseDocument(source)) validation.add(parts);
  const result = validation.finish();
  return result.ok ? { ok: true, products: result.products } : result;
}

/**
 * The same validation of a document already in memory (publishing a document a program built, the local
 * seed): its members read as the stream reader gives them, the products one at a time, and the document
 * normalised (defaults filled, ids lower-case, timestamps in UTC) when it is valid.
 */
export function validateRelease(input: unknown): ValidationResult {
  // Not an object: no members to read, the schema words it.
  if (!isObject(input)) return validateReleaseHead(input) as ValidationResult;
  const products: ProductInput[] = [];
  const validation = new PartsValidation((product) => products.push(product));
  validation.add(partsOf(input));
  const result = validation.finish();
  return result.ok ? { ok: true, document: { ...result.head, products } } : result;
}

/** An object's members as `readReleaseDocument` reads them from its JSON: each array element by element. */
function* partsOf(input: Record<string, unknown>): Generator<DocumentPart> {
  for (const [key, value] of Object.entries(input)) {
    // JSON leaves an undefined member out.
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      yield { kind: 'value', key, value, offset: 0, length: 0 };
      continue;
    }
    for (const [index, element] of value.entries())
      yield { kind: 'element', key, index, value: element, offset: 0, length: 0 };
    yield { kind: 'array', key, count: value.length, offset: 0, length: 0 };
  }
}

/**
 * One document's validation, fed its parts in document order (`add`), answered once they are all in
 * (`finish`). Each product is checked alone and dropped (given to `keep` when it passed its own checks);
 * what the checks across products need is kept in compact form.
 */
class PartsValidation {
  private readonly members: string[] = [];
  // No prototype: a member named `__proto__` is a member like any other (and an unknown one).
  private readonly head: Record<string, unknown> = Object.create(null);
  private readonly issues = new OrderedIssues();
  private readonly found = new Issues();
  private readonly held = new Map<string, unknown[]>();
  private known: DeclaredLists = { nodes: new Set(), files: new Set(), modifiers: new Set() };
  private products = 0;

  // Compact state for the checks across products.
  private readonly ids = new UniqueColumn();
  private readonly unique = {
    sku: new UniqueColumn(),
    slug: new UniqueColumn(),
    external_ref: new UniqueColumn(),
  };
  private readonly brokenIds = new Set<string>();
  private childFlags = new Uint8Array(1 << 16); // 1 for a product that names a parent
  private readonly parents = new Map<number, FamilyParent>();
  private readonly interned = new Map<string, string>();
  private readonly laterLists: ReferencingDraft[] = [];
  private readonly bundles: BundleDraft[] = [];
  private readonly children = {
    indexes: [] as number[],
    parents: [] as string[],
    options: [] as (string[] | undefined)[],
  };

  constructor(private readonly keep?: (product: ProductInput) => void) {}

  private position(member: string): number {
    const at = this.members.indexOf(member);
    return at < 0 ? this.members.length : at;
  }

  private intern(value: string): string {
    const known = this.interned.get(value);
    if (known !== undefined) return known;
    this.interned.set(value, value);
    return value;
  }

  /** The issues `found` holds, as issues of products, emptied. */
  private addFound(): void {
    for (const issue of this.found.list) {
      const [, index] = issue.segments;
      this.issues.add(this.position('products'), typeof index === 'number' ? index : -1, {
        path: formatPath(issue.segments),
        rule: issue.rule,
        message: issue.message,
      });
    }
    this.found.list.length = 0;
  }

  add(parts: Iterable<DocumentPart>): void {
    for (const part of parts) {
      if (!this.members.includes(part.key)) this.members.push(part.key);
      if (part.key !== 'products') this.addHeld(part);
      else if (part.kind === 'value') {
        // `products` not an array: the head's validation words it.
        this.head.products = part.value;
      } else if (part.kind === 'element') this.addProduct(part.index, part.value);
    }
  }

  /** The catalog, currencies, rules, nodes, files, price modifiers (and any unknown member): held whole. */
  private addHeld(part: DocumentPart): void {
    const list = () => {
      const kept = this.held.get(part.key) ?? [];
      this.held.set(part.key, kept);
      return kept;
    };
    if (part.kind === 'value') this.head[part.key] = part.value;
    else if (part.kind === 'element') list().push(part.value);
    else this.head[part.key] = list();
    this.known = declaredLists(this.head, this.known, part);
  }

  private addProduct(index: number, raw: unknown): void {
    const { issues, found, members } = this;
    this.products += 1;
    const checked = validateProduct(raw, index);
    if (!checked.ok) {
      for (const issue of checked.issues) issues.add(this.position('products'), index, issue);
      issues.total += checked.total - checked.issues.length;
    }
    if (checked.product === undefined) {
      // Broken in its shape: left out of the checks across products, but its id still counts as declared.
      const id = (raw as { id?: unknown } | null)?.id;
      if (typeof id === 'string') this.brokenIds.add(id.toLowerCase());
      return;
    }
    if (checked.ok) this.keep?.(checked.product);
    const draft: ProductDraft = { index, product: checked.product };
    const { product } = draft;
    this.ids.add(product.id, index);
    this.unique.sku.add(product.attributes.sku, index);
    this.unique.slug.add(product.attributes.slug, index);
    this.unique.external_ref.add(product.attributes.external_ref, index);
    if (this.childFlags.length <= index) {
      const grown = new Uint8Array(Math.max(this.childFlags.length * 2, index + 1));
      grown.set(this.childFlags);
      this.childFlags = grown;
    }
    const parentId = product.attributes.base_product_id;
    if (parentId !== undefined) {
      this.childFlags[index] = 1;
      if (parentId === product.id) {
        parentReference(draft, undefined, () => true, found);
        this.addFound();
      } else {
        // Kept as three entries of parallel arrays, not as objects: a million children are cheaper so.
        const picked = Object.entries(product.variation_options).flatMap(([variation, option]) => [
          this.intern(variation),
          this.intern(option),
        ]);
        this.children.indexes.push(index);
        this.children.parents.push(this.intern(parentId));
        this.children.options.push(picked.length > 0 ? picked : undefined);
      }
    } else {
      const { base_product, product_types } = product.attributes;
      if (product.variations.length > 0 || base_product === false || product_types !== undefined)
        this.parents.set(index, {
          index,
          product: { attributes: { base_product, product_types }, variations: product.variations },
        });
    }
    // Against the nodes, files and modifiers read so far: a reference not found among a list still to
    // come is checked again at the end (only then is the product's list of references kept).
    listReferences(draft, this.known, found);
    if (found.list.some((issue) => !members.includes(listOf(issue.segments)))) {
      found.list.length = 0;
      this.laterLists.push({
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
      this.bundles.push({
        index,
        product: { id: product.id, attributes: { components: product.attributes.components } },
      });
    this.addFound();
  }

  /** The answer, once every part is in: with the document's members but its products when valid. */
  finish():
    | { ok: true; products: number; head: ReleaseHead }
    | { ok: false; issues: ValidationIssue[]; total: number } {
    const { issues, found, members, head, children } = this;
    // The rest of the document (its products are checked above). A `products` that is an array is
    // checked above; one that is not (`null` included) is left for this to word.
    const rest = validateReleaseHead(
      members.includes('products') && !Object.hasOwn(head, 'products') ? { ...head, products: [] } : head,
    );
    if (!rest.ok) {
      rest.issues.forEach((issue) => {
        const member = /^[^.[]+/.exec(issue.path)?.[0] ?? '';
        const element = ELEMENT.exec(issue.path);
        issues.add(this.position(member), element ? Number(element[1]) : -1, issue);
      });
      issues.total += rest.total - rest.issues.length;
    }

    // Checks across products.
    for (const draft of this.laterLists) listReferences(draft, this.known, found);
    const firstWithId = this.ids.lookup();
    const declared = (productId: string) =>
      firstWithId(productId) !== undefined || this.brokenIds.has(productId);
    for (const draft of this.bundles) componentReferences(draft, declared, found);
    for (const [field, column] of [['id', this.ids], ...Object.entries(this.unique)] as const) {
      for (const { value, index, owner } of column.repeats()) {
        const segments =
          field === 'id' ? ['products', index, 'id'] : ['products', index, 'attributes', field];
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
    const childrenOf = new Map<string, number[]>(); // positions in `children`
    children.indexes.forEach((_, position) => {
      const parentId = children.parents[position] as string;
      const parentIndex = firstWithId(parentId);
      const parent =
        parentIndex === undefined
          ? undefined
          : { index: parentIndex, child: this.childFlags[parentIndex] === 1 };
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
      const parent = this.parents.get(parentIndex) ?? {
        index: parentIndex,
        product: { attributes: {}, variations: [] },
      };
      checkFamily(parent, family, found);
    }
    this.addFound();
    if (issues.total === 0 && rest.ok) return { ok: true, products: this.products, head: rest.head };
    return { ok: false, issues: issues.first(), total: issues.total };
  }
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
