import type { Model } from './history';

/** An HTTP answer reduced to what the models read. */
export interface Answer {
  status: number;
}

const ok = (answer: Answer | undefined) =>
  answer !== undefined && answer.status >= 200 && answer.status < 300;
const notFound = (answer: Answer | undefined) => answer?.status === 404;

/* ------------------------------------------------------------------ one application key, a register */

export type KeyState = { name: string; reserved: number } | null;
export type KeyInput =
  | { op: 'create'; name: string; reserved: number }
  | { op: 'get' }
  | { op: 'rename'; name: string }
  | { op: 'reserve'; reserved: number }
  | { op: 'delete' }
  | { op: 'grant' };
export type KeyOutput = Answer & { name?: string; reserved?: number };

/**
 * One application key's fields as a register (absent before its create and after its delete). A get
 * answers the fields as they are; a rename or a reservation change answers the key exactly as its write
 * left it (the write is conditioned on the fields it was computed from), including when the key was
 * deleted right after it. A refused write (4xx other than 404, 5xx when no faults are injected) changed
 * nothing. A token grant succeeds only while the key exists.
 */
export const keyModel: Model<KeyState, KeyInput, KeyOutput> = {
  name: 'application key (register)',
  key: (state) => (state === null ? '-' : `${state.reserved}|${state.name}`),
  readOnly: (input, output) =>
    input.op === 'get' || input.op === 'grant' || (output !== undefined && !ok(output)),
  step(state, input, output) {
    switch (input.op) {
      case 'create':
        if (output === undefined)
          return state === null ? [state, { name: input.name, reserved: input.reserved }] : [state];
        if (ok(output)) return state === null ? [{ name: input.name, reserved: input.reserved }] : [];
        return [state];
      case 'get':
        if (output === undefined) return [state];
        if (ok(output))
          return state !== null && state.name === output.name && state.reserved === output.reserved
            ? [state]
            : [];
        if (notFound(output)) return state === null ? [state] : [];
        return [state];
      case 'grant':
        if (output === undefined) return [state];
        if (ok(output)) return state !== null ? [state] : [];
        if (output.status === 400 || output.status === 401) return state === null ? [state] : [];
        return [state];
      case 'rename': {
        const renamed = state === null ? null : { ...state, name: input.name };
        if (output === undefined) return renamed === null ? [state] : [state, renamed];
        if (ok(output))
          return renamed !== null && output.name === input.name && output.reserved === renamed.reserved
            ? [renamed]
            : [];
        if (notFound(output)) return state === null ? [state] : [];
        return [state];
      }
      case 'reserve': {
        const changed = state === null ? null : { ...state, reserved: input.reserved };
        if (output === undefined) return changed === null ? [state] : [state, changed];
        if (ok(output))
          return changed !== null && output.name === changed.name && output.reserved === changed.reserved
            ? [changed]
            : [];
        if (notFound(output)) return state === null ? [state] : [];
        return [state];
      }
      case 'delete':
        if (output === undefined) return state === null ? [state] : [state, null];
        if (ok(output)) return state !== null ? [null] : [];
        if (notFound(output)) return state === null ? [state] : [];
        return [state];
    }
  },
  describe(input, output) {
    const args =
      input.op === 'create'
        ? `(${JSON.stringify(input.name)}, ${input.reserved})`
        : input.op === 'rename'
          ? `(${JSON.stringify(input.name)})`
          : input.op === 'reserve'
            ? `(${input.reserved})`
            : '()';
    // What a successful get, rename or reservation change answered, so one that matches no state shows it.
    const seen =
      input.op !== 'create' &&
      input.op !== 'delete' &&
      input.op !== 'grant' &&
      output !== undefined &&
      output.status === 200
        ? ` {name: ${JSON.stringify(output.name)}, reserved: ${output.reserved}}`
        : '';
    return `${input.op}${args} -> ${describeAnswer(output)}${seen}`;
  },
  describeState: (state) =>
    state === null ? 'absent' : `{name: ${JSON.stringify(state.name)}, reserved: ${state.reserved}}`,
};

/* ------------------------------------------------------------------ a store's key counters */

export interface StoreState {
  /** Keys whose create answered, with their reserved rate limit. */
  keys: Record<string, number>;
  /** Keys created by creates whose answer was lost: how many, and their reservations' sum. */
  ghosts: number;
  ghostReserved: number;
}
export type StoreInput =
  | { op: 'create'; reserved: number }
  | { op: 'reserve'; id: string; reserved: number }
  | { op: 'delete'; id: string }
  /**
   * A list answer, as its two reads: the store's counters (`results.total`, `total_reserved_rate_limit`)
   * and the page of keys come from separate reads, so each is a read of its own within the call.
   */
  | { op: 'list'; part: 'counters' | 'page' };
export type StoreOutput = Answer & {
  /** A create's new key id. */
  id?: string;
  /** A list's `meta.results.total`, `meta.total_reserved_rate_limit` and the ids on its (only) page. */
  total?: number;
  reserved?: number;
  ids?: string[];
};

const sum = (keys: Record<string, number>) => Object.values(keys).reduce((a, b) => a + b, 0);
const without = (keys: Record<string, number>, id: string) => {
  const copy = { ...keys };
  delete copy[id];
  return copy;
};

/**
 * A store's counters against the keys that exist at the same point of the linearization: a list's
 * `results.total` is the number of keys, `total_reserved_rate_limit` the sum of their reservations, and
 * its page holds exactly those keys (plus the keys of creates whose answers were lost, which may or may
 * not exist).
 */
export const storeModel: Model<StoreState, StoreInput, StoreOutput> = {
  name: 'store counters',
  key: (state) =>
    `${Object.entries(state.keys)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, reserved]) => `${id}=${reserved}`)
      .join(',')}|${state.ghosts}|${state.ghostReserved}`,
  readOnly: (input, output) => input.op === 'list' || (output !== undefined && !ok(output)),
  step(state, input, output) {
    switch (input.op) {
      case 'create':
        if (output === undefined)
          return [
            state,
            { ...state, ghosts: state.ghosts + 1, ghostReserved: state.ghostReserved + input.reserved },
          ];
        if (ok(output) && output.id !== undefined)
          return output.id in state.keys
            ? []
            : [{ ...state, keys: { ...state.keys, [output.id]: input.reserved } }];
        return [state];
      case 'reserve': {
        const exists = input.id in state.keys;
        const changed = { ...state, keys: { ...state.keys, [input.id]: input.reserved } };
        if (output === undefined) return exists ? [state, changed] : [state];
        if (ok(output)) return exists ? [changed] : [];
        if (notFound(output)) return exists ? [] : [state];
        return [state];
      }
      case 'delete': {
        const exists = input.id in state.keys;
        const removed = { ...state, keys: without(state.keys, input.id) };
        if (output === undefined) return exists ? [state, removed] : [state];
        if (ok(output)) return exists ? [removed] : [];
        if (notFound(output)) return exists ? [] : [state];
        return [state];
      }
      case 'list': {
        if (output === undefined || !ok(output)) return [state];
        const known = Object.keys(state.keys);
        const ids = new Set(output.ids ?? []);
        const unknown = [...ids].filter((id) => !(id in state.keys)).length;
        // In this branch every lost create has taken effect (the branch where one has not yet is
        // another state): its key counts, and is on the page under an id the history never saw.
        const consistent =
          input.part === 'counters'
            ? output.total === known.length + state.ghosts &&
              output.reserved === sum(state.keys) + state.ghostReserved
            : ids.size === known.length + state.ghosts &&
              unknown === state.ghosts &&
              known.every((id) => ids.has(id));
        return consistent ? [state] : [];
      }
    }
  },
  describe(input, output) {
    const args =
      input.op === 'create'
        ? `(reserved ${input.reserved})`
        : input.op === 'reserve'
          ? `(${short(input.id)}, ${input.reserved})`
          : input.op === 'delete'
            ? `(${short(input.id)})`
            : ` ${input.part}`;
    const extra =
      output?.total !== undefined
        ? ` total ${output.total} reserved ${output.reserved}`
        : output?.ids !== undefined
          ? ` [${output.ids.map(short).join(' ')}]`
          : output?.id !== undefined
            ? ` ${short(output.id)}`
            : '';
    return `${input.op}${args} -> ${describeAnswer(output)}${extra}`;
  },
  describeState: (state) =>
    `${Object.keys(state.keys).length} keys [${Object.entries(state.keys)
      .map(([id, reserved]) => `${short(id)}=${reserved}`)
      .join(' ')}], reserved ${sum(state.keys)}` +
    (state.ghosts > 0 ? `, ${state.ghosts} lost creates (reserved ${state.ghostReserved})` : ''),
};

/* ------------------------------------------------------------------ the prefix -> store map */

export type MappingState = Record<string, string | null>;
export type MappingInput = { op: 'put'; store: string; prefix: string } | { op: 'get'; store: string };
export type MappingOutput = Answer & { prefix?: string | null; taken?: boolean };

const holder = (state: MappingState, prefix: string) =>
  Object.entries(state).find(([, held]) => held !== null && held.toLowerCase() === prefix.toLowerCase())?.[0];

/**
 * Merchant realm mappings: each store's prefix, where a prefix (compared case-insensitively) has one
 * owner at a time. A PUT succeeds only when no other store holds the prefix; its 409 "in use" only when
 * another store does; a get answers the store's prefix.
 */
export const mappingModel: Model<MappingState, MappingInput, MappingOutput> = {
  name: 'prefix -> store map',
  key: (state) =>
    Object.entries(state)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([store, prefix]) => `${store}=${prefix}`)
      .join(','),
  readOnly: (input, output) => input.op === 'get' || (output !== undefined && !ok(output)),
  step(state, input, output) {
    if (input.op === 'get') {
      if (output === undefined || !ok(output)) return [state];
      return state[input.store] === output.prefix ? [state] : [];
    }
    const owner = holder(state, input.prefix);
    const free = owner === undefined || owner === input.store;
    const set = { ...state, [input.store]: input.prefix };
    if (output === undefined) return free ? [state, set] : [state];
    if (ok(output)) return free ? [set] : [];
    if (output.taken) return free ? [] : [state];
    return [state];
  },
  describe(input, output) {
    const store = short(input.store);
    if (input.op === 'get')
      return `get(${store}) -> ${describeAnswer(output)} ${output?.prefix ?? ''}`.trim();
    return `put(${store}, ${input.prefix}) -> ${describeAnswer(output)}${output?.taken ? ' in use' : ''}`;
  },
  describeState: (state) =>
    Object.entries(state)
      .map(([store, prefix]) => `${short(store)}=${prefix}`)
      .join(', '),
};

/* ------------------------------------------------------------------ a store's published release */

/**
 * The catalog's kept releases, newest (current) first, comma-joined: a publish puts one in front (the
 * catalog keeps three), deleting the current one (`rollback`) makes the one after it current; empty when
 * unpublished.
 */
export type ReleaseState = string;
export type ReleaseInput =
  | { op: 'publish'; release: string }
  | { op: 'read'; parent: string }
  | { op: 'rollback'; release: string };
export type ReleaseOutput = Answer & { releases?: string[] };

/** Releases a catalog keeps: its current one and the two before it. */
const KEPT_RELEASES = 3;
const keptOf = (state: ReleaseState) => (state === '' ? [] : state.split(','));

/** A register of the current release, with the kept ones behind it for rollbacks. */
export const releaseModel: Model<ReleaseState, ReleaseInput, ReleaseOutput> = {
  name: 'published release (register, with rollback)',
  key: (state) => state,
  readOnly: (input, output) => input.op === 'read' || (output !== undefined && !ok(output)),
  step(state, input, output) {
    const kept = keptOf(state);
    if (input.op === 'read') {
      if (output === undefined || !ok(output)) return [state];
      const releases = new Set(output.releases ?? []);
      return releases.size === 1 && kept[0] !== undefined && releases.has(kept[0]) ? [state] : [];
    }
    if (input.op === 'rollback') {
      // It deleted `release`, which the driver read as current: applied only while it still is.
      if (kept[0] !== input.release) return output !== undefined && ok(output) ? [] : [state];
      const next = kept.slice(1).join(',');
      if (output === undefined) return [state, next];
      return ok(output) ? [next] : [state];
    }
    const next = [input.release, ...kept].slice(0, KEPT_RELEASES).join(',');
    if (output === undefined) return [state, next];
    return ok(output) ? [next] : [state];
  },
  describe(input, output) {
    if (input.op === 'publish') return `publish(${input.release}) -> ${describeAnswer(output)}`;
    if (input.op === 'rollback') return `delete current(${input.release}) -> ${describeAnswer(output)}`;
    return `read(${short(input.parent)}) -> ${describeAnswer(output)} ${[...new Set(output?.releases ?? [])].join('+')}`.trim();
  },
  describeState: (state) => `releases ${state === '' ? '(none: unpublished)' : state}`,
};

/* ------------------------------------------------------------------ a store's authored products */

export interface ProductsState {
  /** Products whose create answered, by id: their sku and name. */
  products: Record<string, { sku: string; name: string }>;
  /** The skus (lower case) of products created by creates whose answer was lost. */
  ghosts: string[];
}
export type ProductInput =
  | { op: 'create'; sku: string; name: string }
  | { op: 'update'; id: string; sku?: string; name?: string }
  | { op: 'delete'; id: string }
  | { op: 'get'; id: string };
export type ProductOutput = Answer & {
  /** A create's new product id. */
  id?: string;
  /** The product's sku and name, as a get or an update answered them. */
  sku?: string;
  name?: string;
  /** A 409 saying the sku is held by another product. */
  taken?: boolean;
};

/** Whether `sku` is free for product `self` (skus compare without regard to case). */
const skuFree = (state: ProductsState, sku: string, self?: string) => {
  const wanted = sku.toLowerCase();
  if (state.ghosts.includes(wanted)) return false;
  return Object.entries(state.products).every(([id, p]) => id === self || p.sku.toLowerCase() !== wanted);
};

/**
 * A store's authored products (`/pcm/products`): a sku is held by at most one product at a time. A create
 * or an sku change succeeds only when no other product holds the sku, its 409 "must be unique" only when
 * one does; a partial update changes only what it sends and answers the product as it left it (so one
 * update never loses another's attribute); a delete frees the sku; a get answers the product as it is.
 */
export const productsModel: Model<ProductsState, ProductInput, ProductOutput> = {
  name: 'products and their skus',
  key: (state) =>
    `${Object.entries(state.products)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, p]) => `${id}=${p.sku}|${p.name}`)
      .join(',')}|${[...state.ghosts].sort().join(',')}`,
  readOnly: (input, output) => input.op === 'get' || (output !== undefined && !ok(output)),
  step(state, input, output) {
    switch (input.op) {
      case 'create': {
        const free = skuFree(state, input.sku);
        if (output === undefined)
          return free ? [state, { ...state, ghosts: [...state.ghosts, input.sku.toLowerCase()] }] : [state];
        if (ok(output) && output.id !== undefined)
          return free && !(output.id in state.products)
            ? [
                {
                  ...state,
                  products: { ...state.products, [output.id]: { sku: input.sku, name: input.name } },
                },
              ]
            : [];
        if (output.taken) return free ? [] : [state];
        return [state];
      }
      case 'update': {
        const current = state.products[input.id];
        const allowed =
          current !== undefined && (input.sku === undefined || skuFree(state, input.sku, input.id));
        const after = current && {
          sku: input.sku ?? current.sku,
          name: input.name ?? current.name,
        };
        const changed = after && { ...state, products: { ...state.products, [input.id]: after } };
        if (output === undefined) return allowed && changed ? [state, changed] : [state];
        if (ok(output))
          return allowed && changed && output.sku === after.sku && output.name === after.name
            ? [changed]
            : [];
        if (notFound(output)) return current === undefined ? [state] : [];
        if (output.taken) return current !== undefined && !allowed ? [state] : [];
        return [state];
      }
      case 'delete': {
        const exists = input.id in state.products;
        const products = { ...state.products };
        delete products[input.id];
        if (output === undefined) return exists ? [state, { ...state, products }] : [state];
        if (ok(output)) return exists ? [{ ...state, products }] : [];
        if (notFound(output)) return exists ? [] : [state];
        return [state];
      }
      case 'get': {
        if (output === undefined || !(ok(output) || notFound(output))) return [state];
        const current = state.products[input.id];
        if (notFound(output)) return current === undefined ? [state] : [];
        return current !== undefined && current.sku === output.sku && current.name === output.name
          ? [state]
          : [];
      }
    }
  },
  describe(input, output) {
    const args =
      input.op === 'create'
        ? `(${input.sku}, ${input.name})`
        : input.op === 'update'
          ? `(${short(input.id)}, ${input.sku !== undefined ? `sku ${input.sku}` : `name ${input.name}`})`
          : `(${short(input.id)})`;
    const seen =
      output?.id !== undefined
        ? ` ${short(output.id)}`
        : output?.sku !== undefined
          ? ` {sku: ${output.sku}, name: ${output.name}}`
          : output?.taken
            ? ' sku taken'
            : '';
    return `${input.op}${args} -> ${describeAnswer(output)}${seen}`;
  },
  describeState: (state) =>
    `${Object.entries(state.products)
      .map(([id, p]) => `${short(id)}=${p.sku}`)
      .join(' ')}${state.ghosts.length > 0 ? `; lost creates holding ${state.ghosts.join(' ')}` : ''}`,
};

export function describeAnswer(output: Answer | undefined): string {
  return output === undefined ? '?' : String(output.status);
}

/** The last 8 characters of an id (time-ordered ids share their first ones). */
export function short(id: string): string {
  return id.slice(-8);
}
