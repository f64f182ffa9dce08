import {
  assertRegistryFits,
  attributeBytes,
  itemBytes,
  MAX_RULES_PER_STORE,
  REGISTRY_ENTRY_MAX_BYTES,
  REGISTRY_MAX_BYTES,
  RegistryTooLargeError,
  RULES_MAX_BYTES,
  registryBytes,
  rulesBytes,
} from '../../lib/catalog/registry-size';
import type { CatalogRule } from '../../lib/catalog/rules';
import type { ValidationIssue } from '../../lib/catalog/validate-release';
import { validateRelease } from '../../lib/catalog/validate-stream';
import type { CatalogRegistry, RegisteredCatalog } from '../../lib/store/catalog-repository';
import {
  CATALOG_RULE_DESCRIPTION_MAX,
  CATALOG_RULE_NAME_MAX,
  parseNewCatalogRule,
} from '../../lib/validation/catalog-rule';
import { MAX_CATALOGS_PER_STORE } from '../../lib/validation/pcm-catalog';

/**
 * The store's catalog registry is one item: with at most MAX_CATALOGS_PER_STORE catalogs and at most
 * REGISTRY_ENTRY_MAX_BYTES an entry (the schema bounds a catalog's rules, the publisher their bytes), it
 * stays far below DynamoDB's 400 KB whatever any catalog holds.
 */

const UUID = 'ffffffff-ffff-7fff-bfff-ffffffffffff';
const STORE = UUID;
const AT = '2024-05-01T12:00:00.000Z';
/** A character of four UTF-8 bytes: the most one character of text takes. */
const WIDE = '\u{1F600}';

const product = {
  id: '00000000-0000-4000-8000-000000000001',
  attributes: { name: 'P', sku: 'P', status: 'live', commodity_type: 'physical' },
};
const documentWith = (rules: unknown[], name = 'Main') => ({ catalog: { name }, rules, products: [product] });
const issuesOf = (input: unknown): ValidationIssue[] => {
  const result = validateRelease(input);
  return result.ok ? [] : result.issues;
};

/** A rule as the schema's bounds allow it at most: every list full, every text its longest in 4-byte characters. */
const widestRule = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: WIDE.repeat(255),
  channels: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(64, 'c')),
  tags: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(64, 't')),
  schedules: Array.from({ length: 10 }, () => ({ valid_from: AT, valid_to: '2999-12-31T23:59:59.999Z' })),
});

describe('the bounds of a catalog rule (catalog/release.schema.json)', () => {
  it('refuses a rule of 1,200 channels, and more than 10 rules, tags or schedules', () => {
    const channels = Array.from({ length: 1200 }, (_, i) => `channel-${i}`);
    expect(issuesOf(documentWith([{ name: 'many', channels }]))).toEqual([
      { path: 'rules[0].channels', rule: 'max_items', message: 'at most 10 items, got 1200' },
    ]);
    const eleven = Array.from({ length: 11 }, (_, i) => `v${i}`);
    expect(issuesOf(documentWith([{ name: 'tags', tags: eleven }]))).toEqual([
      { path: 'rules[0].tags', rule: 'max_items', message: 'at most 10 items, got 11' },
    ]);
    const schedules = Array.from({ length: 11 }, () => ({ valid_from: AT }));
    expect(issuesOf(documentWith([{ name: 's', schedules }]))).toEqual([
      { path: 'rules[0].schedules', rule: 'max_items', message: 'at most 10 items, got 11' },
    ]);
    const rules = Array.from({ length: 11 }, (_, i) => ({ name: `r${i}` }));
    expect(issuesOf(documentWith(rules))).toEqual([
      { path: 'rules', rule: 'max_items', message: 'at most 10 rules, got 11' },
    ]);
  });

  it('takes channels and tags of 1 to 64 printable ASCII characters (what a request header carries)', () => {
    expect(
      issuesOf(documentWith([{ name: 'ok', channels: ['web', 'c'.repeat(64)], tags: ['Summer Sale'] }])),
    ).toEqual([]);
    expect(issuesOf(documentWith([{ name: 'long', channels: ['c'.repeat(65)] }]))).toEqual([
      { path: 'rules[0].channels[0]', rule: 'max_length', message: 'must be at most 64 characters, got 65' },
    ]);
    expect(issuesOf(documentWith([{ name: 'wide', tags: [`${WIDE}`] }]))).toEqual([
      {
        path: 'rules[0].tags[0]',
        rule: 'pattern',
        message: 'must be 1 to 64 printable ASCII characters (a request header carries it), not only spaces',
      },
    ]);
  });

  it(`refuses a catalog whose name and rules take over ${REGISTRY_ENTRY_MAX_BYTES} bytes in the registry`, () => {
    expect(issuesOf(documentWith([widestRule(1)], WIDE.repeat(255)))).toEqual([
      {
        path: 'rules',
        rule: 'registry_size',
        message: `the catalog's name and rules take 4477 bytes in the store's catalog registry, where a catalog has ${REGISTRY_ENTRY_MAX_BYTES}: fewer rules, channels, tags or schedules, or shorter names`,
      },
    ]);
    // Ten plain rules of a channel each fit, as the sample's three do.
    const plain = Array.from({ length: 10 }, (_, i) => ({ name: `rule-${i}`, channels: [`channel-${i}`] }));
    expect(issuesOf(documentWith(plain))).toEqual([]);
  });
});

describe('the worst case of the store-wide registry item', () => {
  /** The largest entry the validator accepts: rules added one by one, each as wide as the schema allows. */
  function largestAcceptedEntry(catalogId: string): RegisteredCatalog {
    const name = WIDE.repeat(255);
    const rules: ReturnType<typeof widestRule>[] = [];
    // Grow one rule's channel list until the next one would be refused (the other fields at their widest).
    for (let n = 0; n < 10; n += 1) {
      const candidate = [...rules, widestRule(n)];
      if (issuesOf(documentWith(candidate, name)).length > 0) break;
      rules.push(widestRule(n));
    }
    let channels = 0;
    const grow = () => [
      ...rules,
      {
        ...widestRule(99),
        channels: widestRule(99).channels.slice(0, channels + 1),
        tags: [],
        schedules: [],
      },
    ];
    while (channels < 10 && issuesOf(documentWith(grow(), name)).length === 0) channels += 1;
    const final =
      channels === 0
        ? rules
        : [
            ...rules,
            {
              ...widestRule(99),
              channels: widestRule(99).channels.slice(0, channels),
              tags: [],
              schedules: [],
            },
          ];
    expect(issuesOf(documentWith(final, name))).toEqual([]);
    return {
      id: catalogId,
      name,
      created_at: AT,
      release: { id: UUID, shards: 64, chunk_size: 100, published_at: AT, filter_index: 1 },
      rules: final.map(
        (rule): CatalogRule => ({ ...rule, catalog_id: catalogId, created_at: AT, tags: rule.tags }),
      ),
    };
  }

  it(`is at most ${MAX_CATALOGS_PER_STORE} entries of ${REGISTRY_ENTRY_MAX_BYTES} bytes: 153,681 bytes, 38% of 400 KB`, () => {
    expect(MAX_CATALOGS_PER_STORE).toBe(50);
    const bound =
      registryBytes(STORE, { version: Number.MAX_SAFE_INTEGER, catalogs: {} }) +
      MAX_CATALOGS_PER_STORE * REGISTRY_ENTRY_MAX_BYTES;
    expect(bound).toBe(153_681);
    expect(bound / (400 * 1024)).toBeLessThan(0.38);

    // The same registry built of the largest entries the validator accepts stays within it.
    const catalogs: CatalogRegistry['catalogs'] = {};
    for (let n = 0; n < MAX_CATALOGS_PER_STORE; n += 1) {
      const catalogId = `ffffffff-ffff-7fff-bfff-${String(n).padStart(12, 'f')}`;
      catalogs[catalogId] = largestAcceptedEntry(catalogId);
    }
    const registry = { version: Number.MAX_SAFE_INTEGER, catalogs };
    const bytes = registryBytes(STORE, registry);
    expect(bytes).toBeLessThanOrEqual(bound);
    expect(bytes).toBeGreaterThan(bound - MAX_CATALOGS_PER_STORE * 300);
    expect(() => assertRegistryFits(STORE, registry)).not.toThrow();
  });

  it(`with the catalog rules API's rules (at most ${MAX_RULES_PER_STORE}, ${RULES_MAX_BYTES} bytes together) is at most 219,217 bytes, 54% of 400 KB`, () => {
    const bound =
      registryBytes(STORE, { version: Number.MAX_SAFE_INTEGER, catalogs: {} }) +
      MAX_CATALOGS_PER_STORE * REGISTRY_ENTRY_MAX_BYTES +
      RULES_MAX_BYTES;
    expect(bound).toBe(219_217);
    expect(bound / (400 * 1024)).toBeLessThan(0.54);

    // The widest rule the API accepts: every list full, every text its longest in 4-byte characters.
    const attributes = parseNewCatalogRule({
      data: {
        type: 'catalog_rule',
        attributes: {
          name: WIDE.repeat(CATALOG_RULE_NAME_MAX),
          description: WIDE.repeat(CATALOG_RULE_DESCRIPTION_MAX),
          catalog_id: UUID,
          account_ids: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(64, 'a')),
          customer_ids: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(64, 'u')),
          channels: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(64, 'c')),
          tags: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(64, 't')),
          schedules: Array.from({ length: 10 }, () => ({ valid_from: AT, valid_to: '2999-12-31T23:59:59Z' })),
        },
      },
    });
    const widest = (n: number) => ({
      ...attributes,
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      created_at: AT,
      updated_at: AT,
    });
    // Fifty of them would not fit the budget: the bytes bound the rules before their count does.
    const fifty = Array.from({ length: MAX_RULES_PER_STORE }, (_, n) => widest(n));
    expect(rulesBytes(fifty)).toBeGreaterThan(RULES_MAX_BYTES);
    const rules = fifty.slice(0, Math.floor(RULES_MAX_BYTES / rulesBytes([widest(0)])));
    expect(rulesBytes(rules)).toBeLessThanOrEqual(RULES_MAX_BYTES);

    const catalogs: CatalogRegistry['catalogs'] = {};
    for (let n = 0; n < MAX_CATALOGS_PER_STORE; n += 1) {
      const catalogId = `ffffffff-ffff-7fff-bfff-${String(n).padStart(12, 'f')}`;
      catalogs[catalogId] = largestAcceptedEntry(catalogId);
    }
    const registry = { version: Number.MAX_SAFE_INTEGER, catalogs, rules: rules as CatalogRule[] };
    const bytes = registryBytes(STORE, registry);
    expect(bytes).toBeLessThanOrEqual(bound);
    expect(bytes).toBeGreaterThan(bound - MAX_CATALOGS_PER_STORE * 300 - rulesBytes([widest(0)]));
    expect(() => assertRegistryFits(STORE, registry)).not.toThrow();
  });

  it('refuses, with what to do, a registry past one item (written before the bounds)', () => {
    const rule: CatalogRule = {
      id: UUID,
      name: 'many',
      catalog_id: UUID,
      channels: Array.from({ length: 1200 }, (_, i) => `${i}`.padEnd(255, 'c')),
      tags: [],
      schedules: [],
      created_at: AT,
    };
    const big: RegisteredCatalog = {
      id: UUID,
      name: 'Big',
      created_at: AT,
      release: { id: UUID, shards: 64, chunk_size: 100, published_at: AT },
      rules: [rule, { ...rule, id: `${UUID.slice(0, -1)}0` }],
    };
    const registry = { version: 3, catalogs: { [UUID]: big } };
    expect(() => assertRegistryFits(STORE, registry)).toThrow(RegistryTooLargeError);
    expect(() => assertRegistryFits(STORE, registry)).toThrow(
      `the store's catalog registry would take 615049 bytes, over the ${REGISTRY_MAX_BYTES} one item holds; its largest entry is catalog ${UUID} (614975 bytes): publish that catalog again with fewer rules (each catalog's entry holds at most ${REGISTRY_ENTRY_MAX_BYTES} bytes now)`,
    );
  });
});

describe('DynamoDB item sizes', () => {
  it('counts strings in UTF-8 bytes, numbers by their digits, lists and maps with their overhead', () => {
    expect(attributeBytes('abc')).toBe(3);
    expect(attributeBytes(WIDE)).toBe(4);
    expect(attributeBytes(7)).toBe(2);
    expect(attributeBytes(123456)).toBe(4);
    expect(attributeBytes(null)).toBe(1);
    expect(attributeBytes(['a', 'bc'])).toBe(3 + 2 + 3);
    expect(attributeBytes({ a: 'xy' })).toBe(3 + 1 + 1 + 2);
    expect(itemBytes({ pk: 'p', n: 10 })).toBe(2 + 1 + 1 + 2);
  });
});
