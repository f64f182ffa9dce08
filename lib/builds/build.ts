import { derivedUuidv7 } from '../ids';
import { ordered } from '../products/service';
import {
  type ChildEntry,
  type ChildWrite,
  childRepository,
  ParentChangedError,
} from '../store/child-repository';
import { startedEarly } from '../store/items';
import { type ProductAttributes, type ProductRecord, productRepository } from '../store/product-repository';
import { variationRepository } from '../store/variation-repository';
import { attributesProblem, MAX_PRODUCT_BYTES } from '../validation/product';
import {
  AMBIGUOUS_RULES,
  type BuildVariation,
  type Combination,
  childDraft,
  combinationCount,
  combinations,
  MAX_COMBINATIONS,
  ruleDecider,
} from './combinations';

/**
 * A `child-products` job's work (docs/child-products.md): one child per combination of the linked
 * variations' options that the parent's `build_rules` keep, written in transactions of many children.
 *
 * Children are keyed by their combination: a child's id derives from the parent, the generation of its
 * linked variations (which moves when a variation is linked, unlinked or reordered) and its option ids, so
 * a rebuild after an option was added or removed keeps the ids of the combinations that remain, a rebuild
 * after the variations changed gives every child a new id, and a build retried after a crash computes the
 * same children again and converges on the same result. Children of combinations no longer built are
 * deleted; a child edited directly (`detached`) is never rewritten nor deleted by a build.
 *
 * Memory: the combinations are generated one at a time and written 500 at a time; what is held for the
 * whole build is a key per combination and the parent's index entries (about 200 bytes a child).
 */

/** An error a build records on its job. */
export interface BuildError {
  message: string;
}

/** Children computed and handed to the writer at once. */
const CHUNK = 500;

const keyOf = (optionIds: readonly string[]) => optionIds.join('+');
const optionIdsOf = (combination: Combination) => combination.map(({ option }) => option.option.id);
const describe = (combination: Combination) =>
  `the child product of options ${combination.map(({ option }) => option.option.name).join(', ')}`;

/** The linked variations with their options and modifiers, or the error that stops the build. */
async function linkedVariations(
  storeId: string,
  parent: ProductRecord,
): Promise<BuildVariation[] | BuildError> {
  const links = parent.variations ?? [];
  const trees = await Promise.all(
    links.map((link) => variationRepository.getVariationTree(storeId, link.id)),
  );
  const variations: BuildVariation[] = [];
  for (const [index, tree] of trees.entries()) {
    const id = links[index]?.id;
    if (!tree) return { message: `variation ${id} is linked but does not exist any more: unlink it` };
    if (tree.options.length === 0) {
      return { message: `variation ${tree.variation.name} (${id}) has no options: add at least one` };
    }
    variations.push(tree);
  }
  return variations;
}

/**
 * Builds the children of product `productId` of store `storeId` and returns the errors to record on job
 * `jobId` (none: success). A build that cannot start (no such product, too many combinations, ambiguous
 * rules) changes nothing and returns one error; a child that cannot be written (its sku or external_ref
 * belongs to another product, its attributes break a product rule) is one error each, the others written.
 */
export async function runChildProductsBuild(input: {
  storeId: string;
  productId: string;
  jobId: string;
}): Promise<BuildError[]> {
  const { storeId, productId } = input;
  // The children built before need nothing read first: read beside the parent and its variations (a
  // store's jobs run one at a time, and each child's write is conditioned on the parent's generation).
  const existingRead = startedEarly(childRepository.entries(storeId, productId));
  const parent = await productRepository.get(storeId, productId);
  if (!parent || parent.deleting !== undefined) return [{ message: `product ${productId} not found` }];
  if (parent.parent_id !== undefined) {
    return [{ message: `product ${productId} is a child product: only a base product's children are built` }];
  }
  const variations = await linkedVariations(storeId, parent);
  if (!Array.isArray(variations)) return [variations];
  const count = combinationCount(variations);
  if (count > MAX_COMBINATIONS) {
    return [
      {
        message: `the linked variations make ${count > MAX_COMBINATIONS * 10 ? 'far ' : ''}more than ${MAX_COMBINATIONS} combinations of options (the most a product may have): unlink a variation or delete options`,
      },
    ];
  }
  const decide = ruleDecider(parent.attributes.build_rules);
  const wanted = new Set<string>();
  for (const combination of combinations(variations)) {
    const decision = decide(optionIdsOf(combination));
    if (decision === 'ambiguous') return [{ message: AMBIGUOUS_RULES }];
    if (decision === 'include') wanted.add(keyOf(optionIdsOf(combination)));
  }
  const generation = parent.variations_generation ?? 0;
  try {
    const existing = await existingRead;
    const obsolete = existing.filter(
      (entry) => entry.generation !== generation || !wanted.has(keyOf(entry.options)),
    );
    // Children edited directly stay; a kept child of an earlier generation keeps its combination's place.
    const kept = await childRepository.remove(storeId, productId, obsolete);
    const held = new Set(
      obsolete.filter((entry) => kept.has(entry.child_id)).map((entry) => keyOf(entry.options)),
    );
    const current = new Map<string, ChildEntry>();
    for (const entry of existing)
      if (entry.generation === generation) current.set(keyOf(entry.options), entry);
    return await writeChildren({ storeId, parent, variations, generation, wanted, held, current });
  } catch (error) {
    if (error instanceof ParentChangedError) {
      return [
        {
          message: `product ${productId} was deleted, or its variations changed, during the build: build it again`,
        },
      ];
    }
    throw error;
  }
}

async function writeChildren(build: {
  storeId: string;
  parent: ProductRecord;
  variations: BuildVariation[];
  generation: number;
  wanted: Set<string>;
  held: Set<string>;
  current: Map<string, ChildEntry>;
}): Promise<BuildError[]> {
  const { storeId, parent, generation } = build;
  const errors: BuildError[] = [];
  const claimed = { sku: new Map<string, string>(), external_ref: new Map<string, string>() };
  const since = Date.parse(parent.variations_changed_at ?? parent.created_at);
  let chunk: { write: ChildWrite; combination: Combination }[] = [];
  const flush = async () => {
    const outcomes = await childRepository.write(
      storeId,
      parent.id,
      generation,
      chunk.map(({ write }) => write),
    );
    for (const { write, combination } of chunk) {
      const outcome = outcomes.get(write.id);
      if (outcome === 'sku-taken') {
        errors.push({
          message: `${describe(combination)} (sku ${write.attributes.sku}): data.attributes.sku: Must be unique amongst products.`,
        });
      } else if (outcome === 'external-ref-taken') {
        errors.push({
          message: `${describe(combination)} (external_ref ${write.attributes.external_ref}): data.attributes.external_ref: Must be unique amongst products.`,
        });
      }
    }
    chunk = [];
  };
  for (const combination of combinations(build.variations)) {
    const optionIds = optionIdsOf(combination);
    const key = keyOf(optionIds);
    if (!build.wanted.has(key) || build.held.has(key)) continue;
    const draft = childDraft(parent.attributes, combination);
    const attributes = ordered(draft.attributes);
    const problem =
      attributesProblem(attributes) ??
      tooLarge(attributes) ??
      duplicate(claimed, attributes, describe(combination));
    if (problem !== undefined) {
      errors.push({
        message: `${describe(combination)}: ${problem}`,
      });
      continue;
    }
    const previous = build.current.get(key);
    chunk.push({
      combination,
      write: {
        id: derivedUuidv7(since, `${parent.id}|${generation}|${key}`),
        options: optionIds,
        generation,
        attributes,
        child_variations: draft.child_variations,
        price_modifiers: draft.price_modifiers,
        ...(previous === undefined ? {} : { previous }),
      },
    });
    if (chunk.length >= CHUNK) await flush();
  }
  if (chunk.length > 0) await flush();
  return errors;
}

/**
 * Two children of one build with the same sku (or external_ref) would take one claim: the second is an
 * error naming the first.
 */
function duplicate(
  claimed: { sku: Map<string, string>; external_ref: Map<string, string> },
  attributes: { sku?: string; external_ref?: string },
  child: string,
): string | undefined {
  for (const field of ['sku', 'external_ref'] as const) {
    const value = attributes[field];
    if (value === undefined) continue;
    const key = field === 'sku' ? value.toLowerCase() : value;
    const first = claimed[field].get(key);
    if (first !== undefined) {
      return `data.attributes.${field}: Must be unique amongst products (${first} has ${field} ${value} too).`;
    }
    claimed[field].set(key, child);
  }
  return undefined;
}

/** A child may take what a product may (MAX_PRODUCT_BYTES of JSON), modifiers included. */
function tooLarge(attributes: ProductAttributes): string | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(attributes));
  if (bytes <= MAX_PRODUCT_BYTES) return undefined;
  return `it would take ${bytes} bytes, at most ${MAX_PRODUCT_BYTES} are allowed: shorten the parent's attributes or the modifiers' values`;
}
