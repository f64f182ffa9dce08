import {
  type BuildVariation,
  childDraft,
  combinationCount,
  combinations,
  MAX_COMBINATIONS,
  ruleDecider,
} from '../../lib/builds/combinations';
import type { ProductAttributes } from '../../lib/store/product-repository';
import type { ModifierAttributes } from '../../lib/validation/variation';

/** The pure part of a build: combinations, build rules and a child's attributes. */

const AT = '2026-01-01T00:00:00.000Z';
function variation(
  id: string,
  options: string[],
  modifiers: Record<string, ModifierAttributes[]> = {},
): BuildVariation {
  return {
    variation: { id, name: id.toUpperCase(), created_at: AT, updated_at: AT },
    options: options.map((name) => ({
      option: {
        id: `${id}-${name}`,
        variation_id: id,
        name,
        description: '',
        created_at: AT,
        updated_at: AT,
      },
      modifiers: (modifiers[name] ?? []).map((m, index) => ({
        ...m,
        id: `${name}-m${index}`,
        variation_id: id,
        option_id: `${id}-${name}`,
        created_at: AT,
        updated_at: AT,
      })),
    })),
  };
}
const PARENT: ProductAttributes = {
  name: 'Tee',
  sku: 'TEE',
  slug: 'tee',
  status: 'draft',
  commodity_type: 'physical',
  external_ref: 'tee-ref',
  build_rules: { default: 'include' },
};

describe('combinations', () => {
  it('are every option of each variation, the first varying slowest', () => {
    const names = [...combinations([variation('c', ['Red', 'Blue']), variation('s', ['S', 'M', 'L'])])].map(
      (c) => c.map(({ option }) => option.option.name).join(''),
    );
    expect(names).toEqual(['RedS', 'RedM', 'RedL', 'BlueS', 'BlueM', 'BlueL']);
  });

  it('are none when a variation has no options, or no variation is linked', () => {
    expect([...combinations([variation('c', ['Red']), variation('s', [])])]).toEqual([]);
    expect([...combinations([])]).toEqual([]);
  });

  it('are counted up to just past the cap', () => {
    expect(combinationCount([variation('a', ['1', '2']), variation('b', ['1', '2', '3'])])).toBe(6);
    const wide = variation(
      'w',
      Array.from({ length: 101 }, (_, i) => `o${i}`),
    );
    expect(combinationCount([wide, wide, wide])).toBeGreaterThan(MAX_COMBINATIONS);
  });
});

describe('build rules', () => {
  it('without rules include everything; a default applies where no rule matches', () => {
    expect(ruleDecider(undefined)(['a'])).toBe('include');
    expect(ruleDecider({ default: 'exclude' })(['a', 'b'])).toBe('exclude');
  });

  it('pick the most specific matching rule, ambiguous when an include and an exclude tie', () => {
    const decide = ruleDecider({ default: 'include', exclude: [['red']], include: [['red', 'l']] });
    expect(decide(['red', 's'])).toBe('exclude');
    expect(decide(['red', 'l'])).toBe('include');
    expect(decide(['blue', 'l'])).toBe('include');
    expect(ruleDecider({ default: 'include', include: [['red']], exclude: [['l']] })(['red', 'l'])).toBe(
      'ambiguous',
    );
    expect(ruleDecider({ default: 'exclude', include: [['RED']] })(['red', 's'])).toBe('include');
  });
});

describe('a child', () => {
  it('takes the parent attributes but build_rules, components and external_ref, names appended by default', () => {
    const [combination] = [...combinations([variation('c', ['Red']), variation('s', ['S'])])];
    const draft = childDraft(PARENT, combination ?? []);
    expect(draft.attributes).toEqual({
      name: 'Tee',
      sku: 'TEERedS',
      slug: 'teeRedS',
      status: 'draft',
      commodity_type: 'physical',
    });
    expect(draft.child_variations.map((v) => [v.id, v.option.name, v.options])).toEqual([
      ['c', 'Red', null],
      ['s', 'S', null],
    ]);
  });

  it('without a parent sku has none by default; a sku modifier of one option stops the default for the sku only', () => {
    const { sku: _sku, ...withoutSku } = PARENT;
    const [plain] = [...combinations([variation('c', ['Red'])])];
    expect(childDraft(withoutSku, plain ?? []).attributes.sku).toBeUndefined();
    const [modified] = [
      ...combinations([
        variation('c', ['Red'], { Red: [{ type: 'sku_append', value: '-R' }] }),
        variation('s', ['S']),
      ]),
    ];
    const draft = childDraft(PARENT, modified ?? []);
    expect([draft.attributes.sku, draft.attributes.slug]).toEqual(['TEE-R', 'teeRedS']);
  });

  it('applies builders to every occurrence of seek, in option order', () => {
    const [combination] = [
      ...combinations([
        variation('c', ['Red'], { Red: [{ type: 'sku_builder', seek: '{c}', set: 'R' }] }),
        variation('s', ['S'], { S: [{ type: 'sku_builder', seek: '{s}', set: 'SM' }] }),
      ]),
    ];
    const draft = childDraft({ ...PARENT, sku: '{c}-{s}-{c}' }, combination ?? []);
    expect(draft.attributes.sku).toBe('R-SM-R');
  });

  it('does not change the parent it is drawn from', () => {
    const parent = structuredClone(PARENT);
    const [combination] = [
      ...combinations([
        variation('c', ['Red'], { Red: [{ type: 'locales_equals', value: { fr: { name: 'x' } } }] }),
      ]),
    ];
    childDraft(parent, combination ?? []);
    expect(parent).toEqual(PARENT);
  });
});
