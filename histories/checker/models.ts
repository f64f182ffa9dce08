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
export type ReleaseOutput = Answer & {
  /** The releases whose marks a read's page shows (more than one: a page mixing releases). */
  releases?: string[];
  /**
   * When releases share what did not change (a page then shows the marks of several publishes): the
   * releases whose content the page matches in full. None: the page matches no release (a mix, or an
   * item lost).
   */
  candidates?: string[];
};

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
      if (output.candidates !== undefined)
        return kept[0] !== undefined && output.candidates.includes(kept[0]) ? [state] : [];
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
    if (output?.candidates !== undefined)
      return `read(${short(input.parent)}) -> ${describeAnswer(output)} matches ${output.candidates.join('|') || 'no release'}`;
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

/**
 * The prices of a store's price book: the same rules as products' skus (one price per sku, compared without
 * regard to case; a create answered 201 while another price held the sku is an anomaly), the price's
 * `external_ref` in the role of the product's `name`.
 */
export const pricesModel: Model<ProductsState, ProductInput, ProductOutput> = {
  ...productsModel,
  name: 'prices of a book and their skus',
};

/* ------------------------------------------------------------------ a store's hierarchy: nodes and products */

/** Levels of a hierarchy, the hierarchy itself the first. */
const MAX_LEVELS = 10;

export interface TreeState {
  /** Nodes whose create answered, by id: name and parent (null: top level). */
  nodes: Record<string, { name: string; parent: string | null }>;
  /** Creates whose answer was lost: the parent and (lower-case) name they may have taken. */
  ghosts: { parent: string | null; name: string }[];
  /** The products attached to each node, in attach order. */
  attached: Record<string, string[]>;
}
export type TreeInput =
  | { op: 'create'; name: string; parent: string | null }
  | { op: 'move'; id: string; parent: string | null }
  | { op: 'get'; id: string }
  | { op: 'attach'; id: string; products: string[] }
  | { op: 'detach'; id: string; products: string[] }
  | { op: 'products'; id: string };
export type TreeOutput = Answer & {
  /** A create's new node id. */
  id?: string;
  /** A get's name and parent (null: top level). */
  name?: string;
  parent?: string | null;
  /** A 409 naming `data.attributes.name`: a sibling holds the name. */
  taken?: boolean;
  /** A 422: no such parent, a cycle, or too deep. */
  invalid?: boolean;
  /** A products list's ids, in order. */
  products?: string[];
};

/** The node's level (a top-level node is level 2, the hierarchy level 1). */
function levelOf(state: TreeState, id: string | null): number {
  let level = 1;
  for (let at = id; at !== null && level <= 20; at = state.nodes[at]?.parent ?? null) level += 1;
  return level;
}

/** Levels of the subtree of `id`, itself included. */
function heightOf(state: TreeState, id: string): number {
  const children = Object.entries(state.nodes).filter(([, node]) => node.parent === id);
  return 1 + Math.max(0, ...children.map(([child]) => heightOf(state, child)));
}

/** Whether `id` is `ancestor` or below it. */
function isWithin(state: TreeState, id: string | null, ancestor: string): boolean {
  for (let at = id, hops = 0; at !== null && hops <= 20; at = state.nodes[at]?.parent ?? null, hops += 1)
    if (at === ancestor) return true;
  return false;
}

/** Whether a sibling under `parent` holds `name` (any case): `maybe` when only a lost create may. */
function nameHeld(
  state: TreeState,
  parent: string | null,
  name: string,
  self?: string,
): 'free' | 'taken' | 'maybe' {
  const wanted = name.toLowerCase();
  const known = Object.entries(state.nodes).some(
    ([id, node]) => id !== self && node.parent === parent && node.name.toLowerCase() === wanted,
  );
  if (known) return 'taken';
  return state.ghosts.some((ghost) => ghost.parent === parent && ghost.name === wanted) ? 'maybe' : 'free';
}

const withoutGhost = (state: TreeState, parent: string | null, name: string) => {
  const index = state.ghosts.findIndex(
    (ghost) => ghost.parent === parent && ghost.name === name.toLowerCase(),
  );
  return index < 0 ? state.ghosts : state.ghosts.filter((_, i) => i !== index);
};

/**
 * A store's hierarchy (`/pcm/hierarchies/{id}/nodes…`): a tree at every point of the order. A create or a
 * move succeeds only when the parent exists, no sibling there holds the name (any case), it makes no cycle
 * (a node never moves under itself or below it) and no node passes level 10; a 409 naming the name only
 * when a sibling holds it, a 422 only when the parent is missing, the move makes a cycle, or it is too
 * deep. A get answers the node's name and parent as they are (a node in exactly one parent). An attach or
 * detach changes the node's products as an atomic step; a products list answers them in attach order.
 */
export const treeModel: Model<TreeState, TreeInput, TreeOutput> = {
  name: 'hierarchy nodes (a tree) and their products',
  key: (state) =>
    `${Object.entries(state.nodes)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, node]) => `${id}=${node.parent}|${node.name}|${(state.attached[id] ?? []).join('+')}`)
      .join(',')}|${state.ghosts.map((ghost) => `${ghost.parent}/${ghost.name}`).join(',')}`,
  readOnly: (input, output) =>
    input.op === 'get' || input.op === 'products' || (output !== undefined && !ok(output)),
  step(state, input, output) {
    // Lost creates may add nodes the history never saw: a depth refusal is then always explainable.
    const lenient = state.ghosts.length > 0;
    switch (input.op) {
      case 'create': {
        const parentOk = input.parent === null || input.parent in state.nodes;
        const deepOk = levelOf(state, input.parent) + 1 <= MAX_LEVELS;
        const held = nameHeld(state, input.parent, input.name);
        const allowed = parentOk && deepOk && held !== 'taken';
        const ghost = { parent: input.parent, name: input.name.toLowerCase() };
        if (output === undefined)
          return allowed ? [state, { ...state, ghosts: [...state.ghosts, ghost] }] : [state];
        if (ok(output) && output.id !== undefined)
          return allowed && !(output.id in state.nodes)
            ? [
                {
                  ...state,
                  nodes: { ...state.nodes, [output.id]: { name: input.name, parent: input.parent } },
                  ghosts: withoutGhost(state, input.parent, input.name),
                },
              ]
            : [];
        if (output.taken) return held !== 'free' ? [state] : [];
        if (output.invalid) return !parentOk || !deepOk || lenient ? [state] : [];
        return [state];
      }
      case 'move': {
        const node = state.nodes[input.id];
        if (output !== undefined && notFound(output)) return node === undefined ? [state] : [];
        if (node === undefined) return output === undefined || !ok(output) ? [state] : [];
        const same = node.parent === input.parent;
        const parentOk = input.parent === null || input.parent in state.nodes;
        const cycle = input.parent !== null && isWithin(state, input.parent, input.id);
        const deepOk = levelOf(state, input.parent) + heightOf(state, input.id) <= MAX_LEVELS;
        const held = same ? 'free' : nameHeld(state, input.parent, node.name, input.id);
        const allowed = parentOk && !cycle && deepOk && held !== 'taken';
        const moved = { ...state, nodes: { ...state.nodes, [input.id]: { ...node, parent: input.parent } } };
        if (output === undefined) return allowed ? [state, moved] : [state];
        if (ok(output)) return allowed ? [moved] : [];
        if (output.taken) return held !== 'free' ? [state] : [];
        if (output.invalid) return !parentOk || cycle || !deepOk || lenient ? [state] : [];
        return [state];
      }
      case 'get': {
        if (output === undefined || !(ok(output) || notFound(output))) return [state];
        const node = state.nodes[input.id];
        if (notFound(output)) return node === undefined ? [state] : [];
        return node !== undefined && node.name === output.name && node.parent === output.parent
          ? [state]
          : [];
      }
      case 'attach':
      case 'detach': {
        const exists = input.id in state.nodes;
        const before = state.attached[input.id] ?? [];
        const after =
          input.op === 'attach'
            ? [...before, ...input.products.filter((id) => !before.includes(id))]
            : before.filter((id) => !input.products.includes(id));
        const changed = { ...state, attached: { ...state.attached, [input.id]: after } };
        if (output === undefined) return exists ? [state, changed] : [state];
        if (ok(output)) return exists ? [changed] : [];
        if (notFound(output)) return exists ? [] : [state];
        return [state];
      }
      case 'products': {
        if (output === undefined || !(ok(output) || notFound(output))) return [state];
        if (notFound(output)) return input.id in state.nodes ? [] : [state];
        const attached = state.attached[input.id] ?? [];
        return input.id in state.nodes && JSON.stringify(attached) === JSON.stringify(output.products)
          ? [state]
          : [];
      }
    }
  },
  describe(input, output) {
    const parent = (id: string | null | undefined) =>
      id === null ? 'top' : id === undefined ? '?' : short(id);
    const args =
      input.op === 'create'
        ? `(${input.name} under ${parent(input.parent)})`
        : input.op === 'move'
          ? `(${short(input.id)} under ${parent(input.parent)})`
          : input.op === 'attach' || input.op === 'detach'
            ? `(${short(input.id)}, ${input.products.map(short).join(' ')})`
            : `(${short(input.id)})`;
    const seen =
      output?.id !== undefined
        ? ` ${short(output.id)}`
        : output?.name !== undefined
          ? ` {${output.name} under ${parent(output.parent)}}`
          : output?.products !== undefined
            ? ` [${output.products.map(short).join(' ')}]`
            : output?.taken
              ? ' name taken'
              : '';
    return `${input.op}${args} -> ${describeAnswer(output)}${seen}`;
  },
  describeState: (state) =>
    `${Object.entries(state.nodes)
      .map(([id, node]) => `${short(id)}=${node.name}<${node.parent === null ? 'top' : short(node.parent)}`)
      .join(
        ' ',
      )}${state.ghosts.length > 0 ? `; lost creates ${state.ghosts.map((g) => g.name).join(' ')}` : ''}`,
};
