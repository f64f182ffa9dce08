/** A store-level catalog rule: an empty list matches everything for that criterion. */
export interface CatalogRule {
  id: string;
  name: string;
  catalog_id: string;
  channels: string[];
  tags: string[];
  /** UTC windows: `valid_from` inclusive, `valid_to` exclusive, `null` open-ended. */
  schedules: { valid_from: string | null; valid_to: string | null }[];
  created_at: string;
  /**
   * Rules of the catalog rules API only: the accounts and customers the rule is for. They match a shopper
   * logged in as one of them, and the shopper routes have no such login, so a rule naming any never applies.
   */
  account_ids?: string[];
  customer_ids?: string[];
}

/**
 * Every rule the store's shoppers are matched against: those each published catalog's release document
 * carries, and those of the catalog rules API (`/pcm/catalogs/rules`), which the registry holds beside them.
 */
export function storeRules(registry: {
  catalogs: Record<string, { rules: CatalogRule[] }>;
  rules?: CatalogRule[];
}): CatalogRule[] {
  return [...Object.values(registry.catalogs).flatMap((catalog) => catalog.rules), ...(registry.rules ?? [])];
}

/** A catalog that has a current (published) release. */
export interface PublishedCatalog {
  id: string;
  created_at: string;
}

/** What the request tells about the shopper: the channel and context tag headers, and the time. */
export interface ShopperContext {
  /** Undefined when the request sent no channel: a rule naming channels then never applies. */
  channel: string | undefined;
  tag: string | undefined;
  now: Date;
}

/**
 * Picks the catalog for a shopper: the applying rule with the most non-empty criteria (ties: the oldest rule),
 * or, when the store has no rules at all, its oldest published catalog. Undefined when rules exist and none
 * applies, or nothing is published. A rule whose catalog is not published never applies, but still counts
 * as a configured rule (so it does not open the fallback to the oldest catalog).
 */
export function resolveCatalog(
  rules: CatalogRule[],
  catalogs: PublishedCatalog[],
  context: ShopperContext,
): string | undefined {
  if (rules.length === 0) return oldest(catalogs)?.id;
  const published = new Set(catalogs.map((catalog) => catalog.id));
  let best: { rule: CatalogRule; score: number } | undefined;
  for (const rule of rules) {
    if (!published.has(rule.catalog_id)) continue;
    const score = ruleScore(rule, context);
    if (score === undefined) continue;
    if (
      best === undefined ||
      score > best.score ||
      (score === best.score && compareAge(rule, best.rule) < 0)
    ) {
      best = { rule, score };
    }
  }
  return best?.rule.catalog_id;
}

/**
 * How many non-empty criteria the rule matched, or undefined when one of them does not match.
 * Channels and tags compare case-insensitively; a rule with tags never matches a request without a tag.
 */
export function ruleScore(rule: CatalogRule, context: ShopperContext): number | undefined {
  // No shopper of these routes is logged in as an account or customer (see CatalogRule.account_ids).
  if ((rule.account_ids?.length ?? 0) > 0 || (rule.customer_ids?.length ?? 0) > 0) return undefined;
  let score = 0;
  if (rule.channels.length > 0) {
    const channel = context.channel?.toLowerCase();
    if (channel === undefined || !rule.channels.some((candidate) => candidate.toLowerCase() === channel))
      return undefined;
    score += 1;
  }
  if (rule.tags.length > 0) {
    const tag = context.tag?.toLowerCase();
    if (tag === undefined || !rule.tags.some((candidate) => candidate.toLowerCase() === tag))
      return undefined;
    score += 1;
  }
  if (rule.schedules.length > 0) {
    const now = context.now.getTime();
    if (!rule.schedules.some((schedule) => isWithin(schedule, now))) return undefined;
    score += 1;
  }
  return score;
}

/** `valid_from <= now < valid_to`; an unreadable bound never matches (a broken window stays closed). */
function isWithin(schedule: CatalogRule['schedules'][number], now: number): boolean {
  const from = schedule.valid_from === null ? Number.NEGATIVE_INFINITY : parseUtc(schedule.valid_from);
  const to = schedule.valid_to === null ? Number.POSITIVE_INFINITY : parseUtc(schedule.valid_to);
  return now >= from && now < to;
}

// An ISO date-time without a zone is local time to Date.parse; rules are UTC, so read it as UTC.
const NO_ZONE = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** Epoch ms of an ISO 8601 time, NaN when unreadable. */
function parseUtc(value: string): number {
  return Date.parse(NO_ZONE.test(value) ? `${value}Z` : value);
}

/** Oldest first: `created_at` as a time (unreadable ones last, by text), then `id`; a total order. */
function compareAge(a: { id: string; created_at: string }, b: { id: string; created_at: string }): number {
  const ta = parseUtc(a.created_at);
  const tb = parseUtc(b.created_at);
  if (Number.isNaN(ta) !== Number.isNaN(tb)) return Number.isNaN(ta) ? 1 : -1;
  if (Number.isNaN(ta)) {
    if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  } else if (ta !== tb) {
    return ta < tb ? -1 : 1;
  }
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

function oldest<T extends { id: string; created_at: string }>(items: T[]): T | undefined {
  let found: T | undefined;
  for (const item of items) if (found === undefined || compareAge(item, found) < 0) found = item;
  return found;
}

/**
 * Why no shopper can ever be given the catalog `catalogId`, or undefined when some request can reach it:
 * the store has rules but none for this catalog (rules are then the only way in), the store has no rules
 * and an older catalog takes every request, or every rule of the catalog has a schedule that has ended.
 */
export function unselectableReason(
  rules: CatalogRule[],
  catalogs: PublishedCatalog[],
  catalogId: string,
  now: Date,
): string | undefined {
  if (rules.length === 0) {
    const first = oldest(catalogs);
    if (first === undefined || first.id === catalogId) return undefined;
    return `no catalog of this store has rules, so every shopper gets the store's oldest catalog (${first.id}); add rules (rules[]) to choose between catalogs`;
  }
  const own = rules.filter((rule) => rule.catalog_id === catalogId);
  if (own.length === 0) {
    return 'this catalog has no rules while other catalogs of the store have rules, and a store with rules gives shoppers only the catalogs its rules name; add a rule (rules[]) for this catalog';
  }
  const ended = (rule: CatalogRule) =>
    rule.schedules.length > 0 &&
    rule.schedules.every((window) => window.valid_to !== null && parseUtc(window.valid_to) <= now.getTime());
  if (own.every(ended)) {
    return "every rule of this catalog has schedules that have all ended, so no request can match them; extend a rule's valid_to";
  }
  return undefined;
}
