import { MAX_RULES_PER_STORE, RULES_MAX_BYTES, rulesBytes } from '../catalog/registry-size';
import type { CatalogRule } from '../catalog/rules';
import { type FilterGrammar, parseFilter } from '../filter/index';
import { ApiError, ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import type { WriteCaller } from '../store/caller-check';
import { type CatalogRegistry, catalogRepository } from '../store/catalog-repository';
import { catalogExistsCheck } from '../store/pcm-repository';
import type { CatalogRuleAttributes } from '../validation/catalog-rule';

/**
 * The catalog rules API (`/pcm/catalogs/rules`, docs/catalog-rules.md). The store's rules live in its
 * catalog registry item (`rules`), the item shoppers' catalog selection reads: a rule write is one
 * transaction that replaces the registry on condition of its version (bumping it) and of the rule's catalog
 * still existing, so readers see a rule together with the releases it selects, and a catalog is never
 * deleted while a rule names it (the deletion is conditioned on the registry's version in turn).
 */

/** A rule of the API as the registry holds it. */
export interface StoredCatalogRule extends CatalogRule {
  description?: string;
  account_ids: string[];
  customer_ids: string[];
  updated_at: string;
}

const ATTEMPTS = 5;

export const catalogRuleUrl = (origin: string, id: string) => `${origin}/pcm/catalogs/rules/${id}`;

export function renderCatalogRule(rule: StoredCatalogRule, origin: string): Record<string, unknown> {
  return {
    id: rule.id,
    type: 'catalog_rule',
    attributes: {
      name: rule.name,
      ...(rule.description === undefined ? {} : { description: rule.description }),
      catalog_id: rule.catalog_id,
      account_ids: rule.account_ids,
      customer_ids: rule.customer_ids,
      channels: rule.channels,
      tags: rule.tags,
      schedules: rule.schedules,
      created_at: rule.created_at,
      updated_at: rule.updated_at,
    },
    links: { self: catalogRuleUrl(origin, rule.id) },
    meta: { owner: 'store' },
  };
}

/** The store's rules of the API, oldest first. */
export async function listCatalogRules(storeId: string): Promise<StoredCatalogRule[]> {
  const registry = await catalogRepository.getRegistry(storeId);
  return (registry?.rules ?? []) as StoredCatalogRule[];
}

export async function catalogRuleOf(storeId: string, ruleId: string): Promise<StoredCatalogRule> {
  const found = (await listCatalogRules(storeId)).find((rule) => rule.id === ruleId);
  if (!found) throw new NotFoundError('catalog rule not found');
  return found;
}

export function createCatalogRule(
  storeId: string,
  attributes: CatalogRuleAttributes & { name: string; catalog_id: string },
  /** Absent for a trusted local tool or fixture, which writes with the table's own credentials. */
  caller: WriteCaller | undefined,
): Promise<StoredCatalogRule> {
  const at = new Date().toISOString();
  const rule: StoredCatalogRule = {
    id: uuidv7(),
    name: attributes.name,
    ...(attributes.description === undefined ? {} : { description: attributes.description }),
    catalog_id: attributes.catalog_id.toLowerCase(),
    account_ids: attributes.account_ids ?? [],
    customer_ids: attributes.customer_ids ?? [],
    channels: attributes.channels ?? [],
    tags: attributes.tags ?? [],
    schedules: attributes.schedules ?? [],
    created_at: at,
    updated_at: at,
  };
  return writeRules(storeId, caller, (rules) => {
    if (rules.length >= MAX_RULES_PER_STORE) {
      throw new ConflictError(
        `the store has ${MAX_RULES_PER_STORE} catalog rules, the most it may hold: delete one first`,
      );
    }
    return { rules: [...rules, rule], rule };
  });
}

export function updateCatalogRule(
  storeId: string,
  ruleId: string,
  changes: CatalogRuleAttributes,
  caller: WriteCaller,
): Promise<StoredCatalogRule> {
  return writeRules(storeId, caller, (rules) => {
    const index = rules.findIndex((rule) => rule.id === ruleId);
    const previous = rules[index];
    if (previous === undefined) throw new NotFoundError('catalog rule not found');
    if (Object.keys(changes).length === 0) return { rules: undefined, rule: previous };
    const rule: StoredCatalogRule = {
      ...previous,
      ...changes,
      catalog_id: (changes.catalog_id ?? previous.catalog_id).toLowerCase(),
      updated_at: new Date().toISOString(),
    };
    return { rules: rules.map((each, i) => (i === index ? rule : each)), rule };
  });
}

export async function deleteCatalogRule(
  storeId: string,
  ruleId: string,
  caller: WriteCaller | undefined,
): Promise<void> {
  await writeRules(storeId, caller, (rules) => {
    const previous = rules.find((rule) => rule.id === ruleId);
    if (previous === undefined) throw new NotFoundError('catalog rule not found');
    return { rules: rules.filter((rule) => rule !== previous), rule: undefined };
  });
}

/**
 * Replaces the store's rules with what `change` makes of them (`rules` undefined: nothing changes), in one
 * transaction with the registry's version bumped, on condition that the registry did not change meanwhile
 * (retried) and that the catalog of the rule written exists (422 otherwise).
 */
async function writeRules<T extends StoredCatalogRule | undefined>(
  storeId: string,
  caller: WriteCaller | undefined,
  change: (rules: StoredCatalogRule[]) => { rules: StoredCatalogRule[] | undefined; rule: T },
): Promise<T> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const registry = await catalogRepository.getRegistry(storeId);
    const { rules, rule } = change((registry?.rules ?? []) as StoredCatalogRule[]);
    if (rules === undefined) return rule;
    const bytes = rulesBytes(rules);
    if (bytes > RULES_MAX_BYTES) {
      throw new ConflictError(
        `the store's catalog rules would take ${bytes} bytes, over the ${RULES_MAX_BYTES} they may take together: shorten or delete rules first`,
      );
    }
    const next: CatalogRegistry = {
      version: (registry?.version ?? 0) + 1,
      catalogs: registry?.catalogs ?? {},
      rules,
    };
    // The catalog named is checked in the transaction, not read before it: a missing one cancels it (422).
    const checks = rule === undefined ? [] : [catalogExistsCheck(storeId, rule.catalog_id)];
    const codes = await catalogRepository.replaceRegistry(storeId, registry?.version, next, checks, caller);
    if (codes === undefined) return rule;
    if (codes[1] === 'ConditionalCheckFailed') throw catalogMissing();
  }
  throw new ConflictError(WRITE_CONFLICT);
}

const catalogMissing = () =>
  new ApiError(422, 'must be the id of a catalog of the store', { source: 'data.attributes.catalog_id' });

/** The store's rules of the API that give shoppers `catalogId` (a catalog with any cannot be deleted). */
export function rulesNaming(registry: CatalogRegistry | undefined, catalogId: string): CatalogRule[] {
  return (registry?.rules ?? []).filter((rule) => rule.catalog_id === catalogId);
}

const RULE_FILTER: FilterGrammar<'id'> = {
  attributes: new Map([['id', 'id']]),
  description: 'id',
  inOnly: new Set(['id']),
  lowerCase: new Set(['id']),
};

/** The ids of `filter=in(id,…)` (or `eq(id,…)`), the list's only filter; 400 for anything else. */
export function parseRuleFilter(filter: string): Set<string> {
  const expressions = parseFilter(filter, RULE_FILTER);
  // Every expression must hold: the ids in all of them.
  let ids: Set<string> | undefined;
  for (const expression of expressions) {
    const values = new Set(expression.values.map((value) => value.toLowerCase()));
    ids = ids === undefined ? values : new Set([...ids].filter((id) => values.has(id)));
  }
  return ids ?? new Set();
}
