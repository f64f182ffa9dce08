import { type FilterExpression, type FilterGrammar, parseFilter } from '../filter/index';
import type { ApplicationKeyRecord } from '../store/application-key-repository';

/** What `GET /v2/application-keys?filter=` may test. */
export type KeyFilterAttribute = 'name' | 'client_id';

/** The key list's filter: the catalog's grammar (`eq`, `in`, `:` for AND) over `name` and `client_id`. */
export const KEY_FILTER: FilterGrammar<KeyFilterAttribute> = {
  attributes: new Map<string, KeyFilterAttribute>([
    ['name', 'name'],
    ['client_id', 'client_id'],
  ]),
  description: 'name, client_id',
  inOnly: new Set(),
  lowerCase: new Set(),
};

/** Longest client id worth looking up: generated ids are far shorter, and longer ones cannot be keys. */
const MAX_CLIENT_ID_LENGTH = 255;

/** How a filtered list is read: which keys to fetch, and the test each must pass. */
export interface KeyFilterPlan {
  /**
   * When the filter tests `client_id`: the only client ids that can match (looked up directly, one batched
   * read). Absent: every key of the store must be read.
   */
  clientIds?: string[];
  matches: (key: ApplicationKeyRecord) => boolean;
}

/** Parses `filter` for the key list: 400 (`source: "filter"`) for other attributes or operators. */
export function parseKeyFilter(text: string): FilterExpression<KeyFilterAttribute>[] {
  return parseFilter(text, KEY_FILTER);
}

/** The plan for a parsed filter: exact comparisons, every expression must hold (AND). */
export function planKeyFilter(filter: FilterExpression<KeyFilterAttribute>[]): KeyFilterPlan {
  const tests = filter.map(({ attribute, values }) => {
    const wanted = new Set(values);
    return (key: ApplicationKeyRecord) => wanted.has(key[attribute]);
  });
  const matches = (key: ApplicationKeyRecord) => tests.every((test) => test(key));
  let clientIds: Set<string> | undefined;
  for (const { attribute, values } of filter) {
    if (attribute !== 'client_id') continue;
    const own = new Set(values.filter((value) => value.length <= MAX_CLIENT_ID_LENGTH));
    clientIds = clientIds === undefined ? own : new Set([...clientIds].filter((id) => own.has(id)));
  }
  return clientIds === undefined ? { matches } : { clientIds: [...clientIds], matches };
}
