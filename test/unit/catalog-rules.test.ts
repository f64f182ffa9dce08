import {
  type CatalogRule,
  type PublishedCatalog,
  resolveCatalog,
  ruleScore,
  type ShopperContext,
  storeRules,
  unselectableReason,
} from '../../lib/catalog/rules';

const NOW = new Date('2026-06-15T12:00:00.000Z');

const CATALOGS: PublishedCatalog[] = [
  { id: 'cat-web', created_at: '2026-02-01T00:00:00.000Z' },
  { id: 'cat-mobile', created_at: '2026-03-01T00:00:00.000Z' },
  { id: 'cat-sale', created_at: '2026-04-01T00:00:00.000Z' },
  { id: 'cat-oldest', created_at: '2026-01-01T00:00:00.000Z' },
];

let sequence = 0;
/** A rule that matches everything unless the overrides narrow it; created in call order by default. */
function rule(overrides: Partial<CatalogRule> & { catalog_id: string }): CatalogRule {
  sequence += 1;
  return {
    id: `rule-${String(sequence).padStart(3, '0')}`,
    name: `Rule ${sequence}`,
    channels: [],
    tags: [],
    schedules: [],
    created_at: `2026-05-01T00:00:${String(sequence % 60).padStart(2, '0')}.000Z`,
    ...overrides,
  };
}

function context(overrides: Partial<ShopperContext> = {}): ShopperContext {
  return { channel: 'web', tag: undefined, now: NOW, ...overrides };
}

describe('resolveCatalog without rules', () => {
  it('uses the oldest published catalog', () => {
    expect(resolveCatalog([], CATALOGS, context())).toBe('cat-oldest');
  });

  it('breaks a created_at tie by id', () => {
    const tied = [
      { id: 'b', created_at: '2026-01-01T00:00:00.000Z' },
      { id: 'a', created_at: '2026-01-01T00:00:00Z' },
      { id: 'c', created_at: '2026-01-02T00:00:00.000Z' },
    ];
    expect(resolveCatalog([], tied, context())).toBe('a');
  });

  it('compares created_at as times, not as text', () => {
    const catalogs = [
      { id: 'later', created_at: '2026-01-01T00:00:00.500Z' },
      { id: 'earlier', created_at: '2026-01-01T01:00:00+02:00' },
    ];
    expect(resolveCatalog([], catalogs, context())).toBe('earlier');
  });

  it('puts a catalog with an unreadable created_at after every readable one', () => {
    const catalogs = [
      { id: 'a-broken', created_at: 'yesterday' },
      { id: 'z-valid', created_at: '2026-12-31T00:00:00Z' },
    ];
    expect(resolveCatalog([], catalogs, context())).toBe('z-valid');
  });

  it('answers undefined when nothing is published', () => {
    expect(resolveCatalog([], [], context())).toBeUndefined();
  });
});

describe('resolveCatalog with rules', () => {
  const webRule = rule({ catalog_id: 'cat-web', channels: ['web'] });
  const mobileRule = rule({ catalog_id: 'cat-mobile', channels: ['mobile', 'app'] });
  const saleRule = rule({ catalog_id: 'cat-sale', channels: ['web'], tags: ['black-friday'] });
  const rules = [webRule, mobileRule, saleRule];

  const cases: [string, Partial<ShopperContext>, string | undefined][] = [
    ['the channel picks its rule', { channel: 'web' }, 'cat-web'],
    ['any channel of a rule matches', { channel: 'app' }, 'cat-mobile'],
    ['channels compare case-insensitively', { channel: 'MOBILE' }, 'cat-mobile'],
    ['channel and tag beat channel alone', { channel: 'web', tag: 'black-friday' }, 'cat-sale'],
    ['tags compare case-insensitively', { channel: 'Web', tag: 'Black-Friday' }, 'cat-sale'],
    ['an unmatched tag falls back to the channel-only rule', { channel: 'web', tag: 'other' }, 'cat-web'],
    ['no rule applies: undefined, not the oldest catalog', { channel: 'kiosk' }, undefined],
    [
      'a tag alone does not satisfy a rule that also needs a channel',
      { channel: 'kiosk', tag: 'black-friday' },
      undefined,
    ],
  ];
  it.each(cases)('%s', (_label, overrides, expected) => {
    expect(resolveCatalog(rules, CATALOGS, context(overrides))).toBe(expected);
  });

  it('a rule with no criteria applies everywhere, and loses to any rule that matched a criterion', () => {
    const catchAll = rule({ catalog_id: 'cat-oldest', created_at: '2020-01-01T00:00:00.000Z' });
    expect(resolveCatalog([catchAll, webRule], CATALOGS, context({ channel: 'web' }))).toBe('cat-web');
    expect(resolveCatalog([catchAll, webRule], CATALOGS, context({ channel: 'kiosk' }))).toBe('cat-oldest');
  });

  it('a rule with tags never applies to a request without a context tag', () => {
    const tagOnly = rule({ catalog_id: 'cat-sale', tags: ['vip'] });
    expect(resolveCatalog([tagOnly], CATALOGS, context({ tag: undefined }))).toBeUndefined();
    expect(resolveCatalog([tagOnly], CATALOGS, context({ tag: 'VIP' }))).toBe('cat-sale');
  });
});

describe('resolveCatalog schedules', () => {
  const window = (valid_from: string | null, valid_to: string | null) =>
    rule({ catalog_id: 'cat-sale', schedules: [{ valid_from, valid_to }] });

  const cases: [string, CatalogRule, Date, string | undefined][] = [
    ['inside a closed window', window('2026-06-01T00:00:00Z', '2026-07-01T00:00:00Z'), NOW, 'cat-sale'],
    ['valid_from is inclusive', window('2026-06-15T12:00:00.000Z', null), NOW, 'cat-sale'],
    ['one millisecond before valid_from', window('2026-06-15T12:00:00.001Z', null), NOW, undefined],
    ['valid_to is exclusive', window(null, '2026-06-15T12:00:00.000Z'), NOW, undefined],
    ['one millisecond before valid_to', window(null, '2026-06-15T12:00:00.001Z'), NOW, 'cat-sale'],
    ['both bounds open', window(null, null), NOW, 'cat-sale'],
    ['after the window', window('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'), NOW, undefined],
    ['an offset time is compared as UTC', window('2026-06-15T13:30:00+02:00', null), NOW, 'cat-sale'],
    ['a time without a zone is read as UTC', window('2026-06-15T12:00:00', null), NOW, 'cat-sale'],
    [
      'a time without a zone, one second later, is not yet',
      window('2026-06-15T12:00:01', null),
      NOW,
      undefined,
    ],
    ['an unreadable bound keeps the window closed', window('not a date', null), NOW, undefined],
    [
      'an empty window (from after to) never applies',
      window('2026-07-01T00:00:00Z', '2026-06-01T00:00:00Z'),
      NOW,
      undefined,
    ],
  ];
  it.each(cases)('%s', (_label, scheduled, now, expected) => {
    expect(resolveCatalog([scheduled], CATALOGS, context({ now }))).toBe(expected);
  });

  it('any one of several schedules is enough', () => {
    const twoWindows = rule({
      catalog_id: 'cat-sale',
      schedules: [
        { valid_from: '2026-01-01T00:00:00Z', valid_to: '2026-02-01T00:00:00Z' },
        { valid_from: '2026-06-01T00:00:00Z', valid_to: '2026-07-01T00:00:00Z' },
      ],
    });
    expect(resolveCatalog([twoWindows], CATALOGS, context())).toBe('cat-sale');
    expect(
      resolveCatalog([twoWindows], CATALOGS, context({ now: new Date('2026-03-01T00:00:00Z') })),
    ).toBeUndefined();
  });

  it('a scheduled channel rule beats the same channel without a schedule', () => {
    const plain = rule({ catalog_id: 'cat-web', channels: ['web'] });
    const scheduled = rule({
      catalog_id: 'cat-sale',
      channels: ['web'],
      schedules: [{ valid_from: '2026-06-01T00:00:00Z', valid_to: null }],
    });
    expect(resolveCatalog([plain, scheduled], CATALOGS, context())).toBe('cat-sale');
    expect(
      resolveCatalog([plain, scheduled], CATALOGS, context({ now: new Date('2026-05-01T00:00:00Z') })),
    ).toBe('cat-web');
  });
});

describe('resolveCatalog ties and unpublished catalogs', () => {
  it('a tie goes to the oldest rule, whatever the order of the list', () => {
    const older = rule({ catalog_id: 'cat-mobile', channels: ['web'], created_at: '2026-05-01T00:00:00Z' });
    const newer = rule({ catalog_id: 'cat-web', channels: ['web'], created_at: '2026-05-02T00:00:00Z' });
    expect(resolveCatalog([older, newer], CATALOGS, context())).toBe('cat-mobile');
    expect(resolveCatalog([newer, older], CATALOGS, context())).toBe('cat-mobile');
  });

  it('a tie on created_at goes to the smaller id', () => {
    const at = '2026-05-01T00:00:00.000Z';
    const b = rule({ id: 'b', catalog_id: 'cat-web', tags: ['x'], created_at: at });
    const a = rule({ id: 'a', catalog_id: 'cat-sale', channels: ['web'], created_at: at });
    expect(resolveCatalog([b, a], CATALOGS, context({ tag: 'x' }))).toBe('cat-sale');
  });

  it('more matched criteria beat an older rule', () => {
    const oldChannel = rule({ catalog_id: 'cat-web', channels: ['web'], created_at: '2020-01-01T00:00:00Z' });
    const newChannelTag = rule({
      catalog_id: 'cat-sale',
      channels: ['web'],
      tags: ['vip'],
      created_at: '2026-05-01T00:00:00Z',
    });
    expect(resolveCatalog([oldChannel, newChannelTag], CATALOGS, context({ tag: 'vip' }))).toBe('cat-sale');
  });

  it('ignores a rule whose catalog is not published and takes the next best', () => {
    const unpublished = rule({ catalog_id: 'cat-draft', channels: ['web'], tags: ['vip'] });
    const fallback = rule({ catalog_id: 'cat-web', channels: ['web'] });
    expect(resolveCatalog([unpublished, fallback], CATALOGS, context({ tag: 'vip' }))).toBe('cat-web');
  });

  it('rules that all point to unpublished catalogs still count as configured: no fallback to the oldest', () => {
    const unpublished = rule({ catalog_id: 'cat-draft' });
    expect(resolveCatalog([unpublished], CATALOGS, context())).toBeUndefined();
  });

  it('rules but nothing published: undefined', () => {
    expect(resolveCatalog([rule({ catalog_id: 'cat-web' })], [], context())).toBeUndefined();
  });
});

describe('ruleScore', () => {
  const cases: [string, Partial<CatalogRule>, Partial<ShopperContext>, number | undefined][] = [
    ['no criteria', {}, {}, 0],
    ['channel matched', { channels: ['web'] }, {}, 1],
    ['channel missed', { channels: ['app'] }, {}, undefined],
    ['no channel sent, rule names one', { channels: ['web'] }, { channel: undefined }, undefined],
    ['no channel sent, rule names none', { tags: ['vip'] }, { channel: undefined, tag: 'vip' }, 1],
    ['tag matched', { tags: ['vip'] }, { tag: 'vip' }, 1],
    ['tag missed', { tags: ['vip'] }, { tag: 'new' }, undefined],
    ['schedule matched', { schedules: [{ valid_from: null, valid_to: null }] }, {}, 1],
    [
      'all three matched',
      {
        channels: ['web'],
        tags: ['vip'],
        schedules: [{ valid_from: '2026-01-01T00:00:00Z', valid_to: null }],
      },
      { tag: 'vip' },
      3,
    ],
    [
      'two matched, schedule missed',
      {
        channels: ['web'],
        tags: ['vip'],
        schedules: [{ valid_from: '2027-01-01T00:00:00Z', valid_to: null }],
      },
      { tag: 'vip' },
      undefined,
    ],
  ];
  it.each(cases)('%s -> %p', (_label, overrides, contextOverrides, expected) => {
    expect(ruleScore(rule({ catalog_id: 'cat-web', ...overrides }), context(contextOverrides))).toBe(
      expected,
    );
  });
});

describe('unselectableReason', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const rule = (catalog_id: string, extra: Partial<CatalogRule> = {}): CatalogRule => ({
    id: `rule-${catalog_id}`,
    name: 'r',
    catalog_id,
    channels: ['web'],
    tags: [],
    schedules: [],
    created_at: '2025-01-01T00:00:00.000Z',
    ...extra,
  });
  const catalogs = [
    { id: 'a', created_at: '2025-01-01T00:00:00.000Z' },
    { id: 'b', created_at: '2025-02-01T00:00:00.000Z' },
  ];

  it('is undefined for a catalog a rule names, and for the oldest catalog when there are no rules', () => {
    expect(unselectableReason([rule('b')], catalogs, 'b', now)).toBeUndefined();
    expect(unselectableReason([], catalogs, 'a', now)).toBeUndefined();
    expect(unselectableReason([], [catalogs[1] as PublishedCatalog], 'b', now)).toBeUndefined();
  });

  it('names why a catalog can never be selected', () => {
    expect(unselectableReason([rule('a')], catalogs, 'b', now)).toContain(
      'has no rules while other catalogs',
    );
    expect(unselectableReason([], catalogs, 'b', now)).toContain("the store's oldest catalog (a)");
    const ended = rule('b', { schedules: [{ valid_from: null, valid_to: '2025-06-01T00:00:00Z' }] });
    expect(unselectableReason([ended], catalogs, 'b', now)).toContain('have all ended');
    const open = rule('b', { schedules: [{ valid_from: null, valid_to: '2027-01-01T00:00:00Z' }] });
    expect(unselectableReason([ended, open], catalogs, 'b', now)).toBeUndefined();
  });
});

describe('rules for accounts and customers', () => {
  it('never apply to the shopper routes, which have no shopper login, and never open the fallback', () => {
    const accounts = rule({ catalog_id: 'cat-sale', account_ids: ['acc-1'] });
    const customers = rule({ catalog_id: 'cat-sale', customer_ids: ['cust-1'] });
    expect(ruleScore(accounts, context())).toBeUndefined();
    expect(ruleScore(customers, context())).toBeUndefined();
    expect(ruleScore({ ...accounts, account_ids: [] }, context())).toBe(0);
    expect(resolveCatalog([accounts], CATALOGS, context())).toBeUndefined();
    const open = rule({ catalog_id: 'cat-web' });
    expect(resolveCatalog([accounts, customers, open], CATALOGS, context())).toBe('cat-web');
  });
});

describe('storeRules', () => {
  it("gives the release documents' rules of every catalog and the catalog rules API's together", () => {
    const own = rule({ catalog_id: 'cat-web' });
    const api = rule({ catalog_id: 'cat-sale' });
    expect(storeRules({ catalogs: { 'cat-web': { rules: [own] } }, rules: [api] })).toEqual([own, api]);
    expect(storeRules({ catalogs: { 'cat-web': { rules: [own] } } })).toEqual([own]);
  });
});
