import type { ReleaseCounts } from '../catalog/derive';
import { recordableIssues } from '../catalog/recorded-issues';
import { MAX_CATALOGS_PER_STORE } from '../validation/pcm-catalog';
import { transactAsCaller as transact, type WriteCaller } from './caller-check';
import { catalogKeys, catalogRepository, type ReleaseMarker } from './catalog-repository';
import { getDocumentClient } from './client';
import { GetCommand, PutCommand, type TransactWriteCommand, UpdateCommand } from './dynamodb';
import { countItems, queryAll, queryPage } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { tableName } from './schema';

/**
 * The catalogs of the platform's catalog API (`/pcm/catalogs`, docs/catalog-api.md) and the API's view of
 * their releases, in the products table beside the registry:
 *
 * - `STORE#<store>` / `PCM#<catalog>`: a catalog: name, description, hierarchy ids, price book, its current
 *   document (an immutable object in the documents bucket) and, while a release of it is being published,
 *   that release's id (`publishing`), which makes a second publish of the same catalog a 409.
 * - `STORE#<store>` / `RELEASE#<catalog>#<release>`: the release marker the publisher already keeps
 *   (lib/store/catalog-repository.ts), with what the API shows: `state`, progress, totals and errors.
 */
export interface PcmCatalog {
  id: string;
  name: string;
  description: string;
  hierarchy_ids: string[];
  pricebook_id: string | null;
  /** Several price books by priority (the highest first wins a sku); empty or absent with `pricebook_id`. */
  pricebook_ids?: PrioritizedPricebook[];
  created_at: string;
  updated_at: string;
  /**
   * The document a new release publishes: its object key, size and when it was stored; `copy_from`, the
   * upload it is copied from by the first release's workflow (until then the key holds nothing), and
   * `upload_requested_by`, the application key that asked for that upload (the copy is refused once it is
   * deleted).
   */
  document?: {
    key: string;
    bytes: number;
    updated_at: string;
    copy_from?: string;
    upload_requested_by?: string;
  };
  /** The release being published, if any. */
  publishing?: string;
  /** The newest pre-signed upload (`POST …/document-uploads`), until a release takes it in or it lapses. */
  upload?: PendingUpload;
}

/**
 * A pre-signed upload of a document: its key under `uploads/`, when its URL was issued and when it expires,
 * and the application key that asked for it (absent on uploads recorded before it was kept): the upload is
 * refused once that key is deleted.
 */
export interface PendingUpload {
  key: string;
  created_at: string;
  expires_at: string;
  requested_by?: string;
}

/** A validation issue as a release keeps it (the shape of lib/catalog/validate-release.ts's). */
export interface ReleaseIssue {
  path: string;
  rule: string;
  message: string;
}

/** What an authored catalog's release publishes: its hierarchies in order, its price books by priority. */
export interface AuthoredSources {
  hierarchy_ids: string[];
  pricebook_ids: string[];
}

/** What the API says of a release (EPCC's `meta.release_status`). */
export type ReleaseState = 'PENDING' | 'IN_PROGRESS' | 'PUBLISHED' | 'FAILED';

/** A release marker with the API's fields. */
export interface PcmRelease extends ReleaseMarker {
  state: ReleaseState;
  name: string;
  /** The create body's `export_full_delta` (absent on releases created before it was recorded: false). */
  full_delta?: boolean;
  /**
   * `meta.is_full_publish`: the first release, one written whole, a hierarchy or price book added or
   * removed, `export_full_delta` asked, or 90 days since the release before (lib/catalog/pipeline/share.ts);
   * absent on releases published before it was recorded: true, as they all were.
   */
  is_full_publish?: boolean;
  /**
   * The release's delta file (lib/catalog/pipeline/delta-file.ts), once written: its key in the documents
   * bucket, whether it holds the whole catalog (`meta.is_full_delta`) and its number of lines.
   */
  delta?: { key: string; full: boolean; lines: number };
  document_key: string;
  /** The upload the workflow copies to `document_key` first, when the catalog's document is still one. */
  copy_from?: string;
  /** The application key that asked for that upload: Validate refuses the copy once it is deleted. */
  upload_requested_by?: string;
  /**
   * An authored catalog's release: the hierarchies and price books (highest priority first) it publishes,
   * as the catalog named them when the release was created; Export writes them out as `document_key`.
   */
  authored?: AuthoredSources;
  created_at: string;
  updated_at: string;
  /** Items the release writes (known once derived) and written so far: `percent_completed` (progressOf). */
  total_items?: number;
  written_items?: number;
  /** Items readers see in the release: those it wrote and those it shares with the releases below it. */
  release_items?: number;
  /** What the comparison with the release before found (docs/publishing.md, "Releases that share"). */
  sharing?: {
    /** The delta file holds the whole catalog (`meta.is_full_delta`). */
    full_delta: boolean;
    /** Products created or updated, and removed, against the release before (-1: written whole). */
    changed_products: number;
    removed_products: number;
    /** Why the release was written whole, when it was. */
    whole?: string;
  };
  percent_completed?: number;
  /**
   * An authored release's Export: the release before's document with the changed families written again
   * (`spliced`, with how many products the change log named and families it wrote), or the whole catalog
   * and why (lib/catalog/pipeline/export-splice.ts).
   */
  export?: { spliced: boolean; why?: string; changed_products?: number; families?: number };
  /**
   * The derivation's ranges, and how many were taken up from the release before it rather than derived
   * (lib/catalog/pipeline/derive-memo.ts; a range taken up and then derived again for its lines is not).
   */
  derivation?: { ranges: number; kept: number };
  /**
   * How a spliced export was validated and planned (lib/catalog/pipeline/spliced-checks.ts): by the families
   * written again (`spliced`, with how many, and the ranges the plan read), or over the whole document and why.
   */
  validation?: { spliced: boolean; why?: string; families?: number };
  planning?: { spliced: boolean; why?: string; ranges_read?: number };
  total_products?: number;
  total_nodes?: number;
  /** What Derive counted: live and draft products, parents, children, bundles (the CLI prints them). */
  counts?: ReleaseCounts;
  published_at?: string;
  /**
   * Where the publish's time went, when the local harness ran it: each state's wall time in seconds, as it
   * ended (`lib/catalog/pipeline/run-local.ts`; in AWS the execution's history has the same).
   */
  step_seconds?: Partial<Record<WorkflowState, number>>;
  /** The peak RSS, MB, of the local harness's workflow process that ran it (local/workflow-process.ts). */
  workflow_peak_rss_mb?: number;
  /** Why it failed: the first validation issues (JSON paths) or the workflow's error. */
  errors?: ReleaseIssue[];
  /** PUBLISHED only: why no shopper can ever be given the catalog (`selectionWarnings`); empty when one can. */
  warnings?: string[];
  errors_total?: number;
}

/** The publishing workflow's states in their order, as the local harness times them. */
export const WORKFLOW_STATES = ['export', 'validate', 'plan', 'derive', 'merge', 'write', 'switch'] as const;
export type WorkflowState = (typeof WORKFLOW_STATES)[number];

export class CatalogNotFoundError extends Error {
  override name = 'CatalogNotFoundError';
}
export class CatalogBusyError extends Error {
  override name = 'CatalogBusyError';
  constructor(readonly releaseId: string) {
    super(`a release of this catalog is being published (${releaseId})`);
  }
}
/** The store holds MAX_CATALOGS_PER_STORE catalogs already. */
export class CatalogLimitError extends Error {
  override name = 'CatalogLimitError';
  constructor() {
    super(
      `the store already has ${MAX_CATALOGS_PER_STORE} catalogs, the most it may hold: delete one before creating another`,
    );
  }
}
/** The store's catalog registry (its rules) changed since it was read: read it again. */
export class RegistryChangedError extends Error {
  override name = 'RegistryChangedError';
}
export class NoDocumentError extends Error {
  override name = 'NoDocumentError';
}
/**
 * A catalog publishes one source: its hierarchies (authored) or its document. `authored`: a document or
 * upload was refused because the catalog names hierarchies; `document`: hierarchies were refused because
 * the catalog has a document (or an upload pending).
 */
export class CatalogSourceError extends Error {
  override name = 'CatalogSourceError';
  constructor(readonly source: 'authored' | 'document') {
    super(
      source === 'authored'
        ? 'the catalog names hierarchies: a release publishes them, not a document (set hierarchy_ids to [] to publish documents)'
        : 'the catalog publishes a document: it cannot name hierarchies (create another catalog for authored data)',
    );
  }
}

/** The fields of a catalog its merchant changes (`PUT /pcm/catalogs/{catalog_id}`). */
const CATALOG_ATTRIBUTES = ['name', 'description', 'hierarchy_ids', 'pricebook_id', 'pricebook_ids'] as const;

/** A price book of a catalog with its priority: of the books with a price for a sku, the highest wins. */
export interface PrioritizedPricebook {
  id: string;
  priority: number;
}

const PCM_PREFIX = 'PCM#';
export const pcmKeys = {
  catalog: (storeId: string, catalogId: string) => ({
    pk: `STORE#${storeId}`,
    sk: `${PCM_PREFIX}${catalogId}`,
  }),
  /** The store's catalog counter (`catalog_count`): the list's total, and the cap's check. */
  counter: (storeId: string) => ({ pk: `STORE#${storeId}`, sk: 'PCM_COUNT' }),
};
const pcmKey = pcmKeys.catalog;

/** A transaction item that holds only while the catalog exists. */
export function catalogExistsCheck(storeId: string, catalogId: string) {
  return {
    ConditionCheck: {
      TableName: tableName('products'),
      Key: pcmKey(storeId, catalogId),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
}

function strip<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as T;
}

/** `#field = :field` for each field with a value (undefined ones left out), its name and value recorded. */
function assignments(
  fields: [string, unknown][],
  names: Record<string, string>,
  values: Record<string, unknown>,
): string[] {
  return fields.flatMap(([field, value]) => {
    if (value === undefined) return [];
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    return [`#${field} = :${field}`];
  });
}

/**
 * Updates a catalog record through the caller's checks, on condition that it exists (and `condition`):
 * CatalogNotFoundError when it does not; false when it does but `condition` failed.
 */
async function updateCatalogRecord(
  storeId: string,
  catalogId: string,
  update: {
    expression: string;
    condition?: string;
    names?: Record<string, string>;
    values?: Record<string, unknown>;
  },
  caller: WriteCaller | undefined,
): Promise<boolean> {
  const codes = await transact(
    [
      {
        Update: {
          TableName: tableName('products'),
          Key: pcmKey(storeId, catalogId),
          UpdateExpression: update.expression,
          ConditionExpression: ['attribute_exists(pk)', update.condition].filter(Boolean).join(' AND '),
          ExpressionAttributeNames: update.names,
          ExpressionAttributeValues: update.values,
        },
      },
    ],
    caller,
  );
  if (codes === undefined) return true;
  if (codes[0] !== 'ConditionalCheckFailed') {
    throw new Error(`catalog ${catalogId} could not be updated (${codes.join(', ')})`);
  }
  if (update.condition === undefined || !(await pcmRepository.getCatalog(storeId, catalogId))) {
    throw new CatalogNotFoundError(catalogId);
  }
  return false;
}

/** The Query of a store's catalog records, in id (creation) order. */
const catalogsQuery = (storeId: string) => ({
  TableName: tableName('products'),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  ExpressionAttributeValues: { ':pk': `STORE#${storeId}`, ...skPrefix(PCM_PREFIX) },
  ConsistentRead: true,
});

/** The store's catalogs counted one by one (COUNT queries): for a store without a counter yet. */
function countCatalogRecords(storeId: string): Promise<number> {
  return countItems(catalogsQuery(storeId));
}

/** How many catalogs the store has: its counter, or (a store whose catalogs predate it) a count. */
async function countCatalogs(storeId: string): Promise<number> {
  const found = await getDocumentClient().send(
    new GetCommand({ TableName: tableName('products'), Key: pcmKeys.counter(storeId), ConsistentRead: true }),
  );
  if (found.Item) return found.Item.catalog_count as number;
  return countCatalogRecords(storeId);
}

/**
 * Creates the store's counter from a count of its catalogs, unless it exists. While it does not exist no
 * catalog can be created or deleted (each such write needs it), so the count cannot miss one.
 */
async function initialiseCounter(storeId: string): Promise<void> {
  const count = await countCatalogRecords(storeId);
  try {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName('products'),
        Item: { ...pcmKeys.counter(storeId), catalog_count: count },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

const COUNTER_ATTEMPTS = 8;

/**
 * Runs a catalog creation (`delta` 1) or deletion (-1) with the store's counter moved by `delta` in the
 * same transaction (the counter is the item after `items`). A creation is conditioned on the count
 * staying under MAX_CATALOGS_PER_STORE (CatalogLimitError); a store without a counter gets one first;
 * transaction conflicts are retried. Returns the cancellation codes `fail` let through (undefined: done).
 */
async function withCatalogCounter(
  storeId: string,
  delta: 1 | -1,
  items: NonNullable<TransactWriteCommand['input']['TransactItems']>,
  caller: WriteCaller | undefined,
  fail: (codes: string[]) => Error | undefined,
): Promise<string[] | undefined> {
  const counter = {
    Update: {
      TableName: tableName('products'),
      Key: pcmKeys.counter(storeId),
      UpdateExpression: 'ADD catalog_count :delta',
      ConditionExpression:
        delta > 0 ? 'attribute_exists(pk) AND catalog_count < :max' : 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ':delta': delta,
        ...(delta > 0 ? { ':max': MAX_CATALOGS_PER_STORE } : {}),
      },
    },
  };
  for (let attempt = 1; ; attempt += 1) {
    const codes = await transact([...items, counter], caller);
    if (codes === undefined) return undefined;
    const refused = (code: string | undefined) =>
      code !== 'None' && code !== undefined && code !== 'TransactionConflict';
    if (codes.slice(0, items.length).some(refused)) {
      const error = fail(codes);
      if (error) throw error;
      return codes;
    }
    if (codes[items.length] === 'ConditionalCheckFailed') {
      const found = await getDocumentClient().send(
        new GetCommand({
          TableName: tableName('products'),
          Key: pcmKeys.counter(storeId),
          ConsistentRead: true,
        }),
      );
      if (!found.Item) await initialiseCounter(storeId);
      else if (delta > 0 && (found.Item.catalog_count as number) >= MAX_CATALOGS_PER_STORE) {
        throw new CatalogLimitError();
      }
    } else if (!codes.includes('TransactionConflict') || attempt >= COUNTER_ATTEMPTS) {
      throw fail(codes) ?? new Error(`the store's catalogs could not be counted (${codes.join(', ')})`);
    }
    if (attempt >= COUNTER_ATTEMPTS) throw new Error("the store's catalog counter kept changing: try again");
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 5 * 2 ** attempt)));
  }
}

/**
 * Sets the catalog's document, on condition that its document is still `replaces` (a key, or null: none;
 * no condition when undefined) and, with `takes`, that `takes` is its pending upload, which goes.
 */
function writeDocument(
  storeId: string,
  catalogId: string,
  document: NonNullable<PcmCatalog['document']>,
  caller: WriteCaller | undefined,
  replaces: string | null | undefined,
  takes?: string,
): Promise<boolean> {
  const names: Record<string, string> = { '#doc': 'document', '#key': 'key' };
  const values: Record<string, unknown> = { ':doc': document, ':at': document.updated_at };
  const conditions: string[] = [];
  if (takes !== undefined) {
    names['#upload'] = 'upload';
    values[':upload'] = takes;
    conditions.push('#upload.#key = :upload');
  }
  // An authored catalog (one naming hierarchies) publishes its hierarchies, never a document.
  names['#hierarchies'] = 'hierarchy_ids';
  values[':none'] = 0;
  conditions.push('(attribute_not_exists(#hierarchies) OR size(#hierarchies) = :none)');
  if (replaces === null) conditions.push('attribute_not_exists(#doc)');
  if (typeof replaces === 'string') {
    values[':replaces'] = replaces;
    conditions.push('#doc.#key = :replaces');
  }
  // DynamoDB refuses a name the expressions do not use.
  if (!conditions.some((condition) => condition.includes('#key'))) delete names['#key'];
  return updateCatalogRecord(
    storeId,
    catalogId,
    {
      expression: `SET #doc = :doc, updated_at = :at${takes === undefined ? '' : ' REMOVE #upload'}`,
      ...(conditions.length === 0 ? {} : { condition: conditions.join(' AND ') }),
      names,
      values,
    },
    caller,
  );
}

export const pcmRepository = {
  async getCatalog(storeId: string, catalogId: string, consistent = true): Promise<PcmCatalog | undefined> {
    const found = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('products'),
        Key: pcmKey(storeId, catalogId),
        ConsistentRead: consistent,
      }),
    );
    return found.Item ? strip<PcmCatalog>(found.Item) : undefined;
  },

  /**
   * Every catalog of the store, oldest first (ids are UUID v7): at most MAX_CATALOGS_PER_STORE (more only
   * in a store that made them before the cap).
   */
  async listCatalogs(storeId: string): Promise<PcmCatalog[]> {
    return (await queryAll(catalogsQuery(storeId))).map((item) => strip<PcmCatalog>(item));
  },

  /**
   * One page of the store's catalogs, oldest first, and how many the store has, read in the database: the
   * store's counter (a GetItem), the `offset` skipped with COUNT queries (no items transferred, at most
   * 1,000 each) and the page itself with a Limit, whatever the number of catalogs.
   */
  async pageOfCatalogs(
    storeId: string,
    page: { limit: number; offset: number },
  ): Promise<{ catalogs: PcmCatalog[]; total: number }> {
    const [total, catalogs] = await Promise.all([
      countCatalogs(storeId),
      queryPage(catalogsQuery(storeId), page).then((items) => items.map((item) => strip<PcmCatalog>(item))),
    ]);
    return { catalogs, total };
  },

  /**
   * Creates a catalog and counts it in the store's counter, in one transaction: CatalogLimitError when the
   * store holds MAX_CATALOGS_PER_STORE already, whatever runs concurrently.
   */
  async createCatalog(storeId: string, catalog: PcmCatalog, caller?: WriteCaller): Promise<void> {
    await withCatalogCounter(
      storeId,
      1,
      [
        {
          Put: {
            TableName: tableName('products'),
            Item: { ...pcmKey(storeId, catalog.id), ...catalog },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      caller,
      (codes) => new Error(`catalog ${catalog.id} could not be created (${codes.join(', ')})`),
    );
  },

  /** Changes a catalog's attributes; CatalogNotFoundError when it does not exist. */
  async updateCatalog(
    storeId: string,
    catalogId: string,
    changes: Partial<
      Pick<PcmCatalog, 'name' | 'description' | 'hierarchy_ids' | 'pricebook_id' | 'pricebook_ids'>
    >,
    at: string,
    caller?: WriteCaller,
  ): Promise<void> {
    const names: Record<string, string> = { '#updated': 'updated_at' };
    const values: Record<string, unknown> = { ':updated': at };
    // Only the attributes: `changes` may be a request's object, with any other key in it (`__proto__`,
    // `publishing`, `document`, `pk`...), none of which a caller may set.
    const attributes = CATALOG_ATTRIBUTES.map((field): [string, unknown] => [field, changes[field]]);
    const sets = ['#updated = :updated', ...assignments(attributes, names, values)];
    // Hierarchies make a catalog authored: not while it has a document or an upload pending.
    const authored = (changes.hierarchy_ids ?? []).length > 0;
    if (authored) Object.assign(names, { '#doc': 'document', '#upload': 'upload' });
    const codes = await transact(
      [
        {
          Update: {
            TableName: tableName('products'),
            Key: pcmKey(storeId, catalogId),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: authored
              ? 'attribute_exists(pk) AND attribute_not_exists(#doc) AND attribute_not_exists(#upload)'
              : 'attribute_exists(pk)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
      ],
      caller,
    );
    if (codes?.[0] === 'ConditionalCheckFailed') {
      if (authored && (await this.getCatalog(storeId, catalogId))) throw new CatalogSourceError('document');
      throw new CatalogNotFoundError(catalogId);
    }
    if (codes) throw new Error(`catalog ${catalogId} could not be updated (${codes.join(', ')})`);
  },

  /**
   * Points the catalog at a newly stored document. With `replaces` (the key of the document it replaces, or
   * null for none), only while that is still the catalog's document: false, nothing changed, otherwise (so
   * that the replaced document is known, and deleted, exactly once). CatalogNotFoundError without a catalog.
   */
  async setDocument(
    storeId: string,
    catalogId: string,
    document: NonNullable<PcmCatalog['document']>,
    caller?: WriteCaller,
    replaces?: string | null,
  ): Promise<boolean> {
    return writeDocument(storeId, catalogId, document, caller, replaces);
  },

  /** Records a new pre-signed upload as the catalog's pending one (replacing an earlier one). */
  async setUpload(storeId: string, catalogId: string, upload: PendingUpload, caller?: WriteCaller) {
    const written = await updateCatalogRecord(
      storeId,
      catalogId,
      {
        expression: 'SET #upload = :upload',
        condition: '(attribute_not_exists(#hierarchies) OR size(#hierarchies) = :none)',
        names: { '#upload': 'upload', '#hierarchies': 'hierarchy_ids' },
        values: { ':upload': upload, ':none': 0 },
      },
      caller,
    );
    if (!written) throw new CatalogSourceError('authored');
  },

  /**
   * Takes the pending upload `uploadKey` in: `document` (its copy) becomes the catalog's document and the
   * upload is no longer pending, in one write. False when `uploadKey` is no longer the pending upload (a newer
   * one replaced it meanwhile), or the document is no longer `replaces` (as for `setDocument`): nothing changed.
   */
  async takeUpload(
    storeId: string,
    catalogId: string,
    uploadKey: string,
    document: NonNullable<PcmCatalog['document']>,
    caller?: WriteCaller,
    replaces?: string | null,
  ): Promise<boolean> {
    return writeDocument(storeId, catalogId, document, caller, replaces, uploadKey);
  },

  /** The catalog's document `key` holds its upload now: it is copied from nothing any more (if still the document). */
  async documentCopied(storeId: string, catalogId: string, key: string): Promise<void> {
    await updateCatalogRecord(
      storeId,
      catalogId,
      {
        expression: 'REMOVE #doc.#from',
        condition: '#doc.#key = :key',
        names: { '#doc': 'document', '#key': 'key', '#from': 'copy_from' },
        values: { ':key': key },
      },
      undefined,
    ).catch((error: unknown) => {
      // A catalog deleted meanwhile: its release goes on as the catalog's deletion left it.
      if (!(error instanceof CatalogNotFoundError)) throw error;
    });
  },

  /** Forgets the pending upload `uploadKey` (lapsed unused, or older than the document), if it is still the pending one. */
  async dropUpload(storeId: string, catalogId: string, uploadKey: string, caller?: WriteCaller) {
    await updateCatalogRecord(
      storeId,
      catalogId,
      {
        expression: 'REMOVE #upload',
        condition: '#upload.#key = :upload',
        names: { '#upload': 'upload', '#key': 'key' },
        values: { ':upload': uploadKey },
      },
      caller,
    );
  },

  /**
   * Deletes a catalog record, unless a release of it is being published (CatalogBusyError). Its releases are
   * the caller's to remove first.
   */
  async deleteCatalog(
    storeId: string,
    catalogId: string,
    caller?: WriteCaller,
    registryVersion?: { version: number | undefined },
  ): Promise<void> {
    const codes = await withCatalogCounter(
      storeId,
      -1,
      [
        {
          Delete: {
            TableName: tableName('products'),
            Key: pcmKey(storeId, catalogId),
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(publishing)',
          },
        },
        ...(registryVersion === undefined
          ? []
          : [catalogRepository.registryCheck(storeId, registryVersion.version)]),
      ],
      caller,
      (failed) =>
        failed[0] === 'ConditionalCheckFailed'
          ? undefined
          : failed[1] === 'ConditionalCheckFailed'
            ? new RegistryChangedError()
            : new Error(`catalog ${catalogId} could not be deleted (${failed.join(', ')})`),
    );
    if (codes?.[0] === 'ConditionalCheckFailed') {
      const catalog = await pcmRepository.getCatalog(storeId, catalogId);
      if (!catalog) throw new CatalogNotFoundError(catalogId);
      throw new CatalogBusyError(catalog.publishing ?? '');
    }
  },

  /**
   * Creates a PENDING release of the catalog's current document and marks the catalog as publishing it, in
   * one transaction: CatalogNotFoundError, NoDocumentError, or CatalogBusyError when another release of it
   * is being published (`takeOver`: the id of a stalled release whose lock may be taken).
   */
  async createRelease(
    release: PcmRelease,
    options: { caller?: WriteCaller; takeOver?: string } = {},
  ): Promise<void> {
    const table = tableName('products');
    const lock =
      options.takeOver === undefined ? 'attribute_not_exists(publishing)' : 'publishing = :stalled';
    const codes = await transact(
      [
        {
          Update: {
            TableName: table,
            Key: pcmKey(release.store_id, release.catalog_id),
            UpdateExpression: 'SET publishing = :release',
            // A document release reads the catalog's document of now; an authored one, its hierarchies.
            ...(release.authored === undefined
              ? {
                  ConditionExpression: `attribute_exists(pk) AND #doc.#key = :document AND ${lock}`,
                  ExpressionAttributeNames: { '#doc': 'document', '#key': 'key' },
                }
              : {
                  ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(#doc) AND size(#hierarchies) > :none AND ${lock}`,
                  ExpressionAttributeNames: { '#doc': 'document', '#hierarchies': 'hierarchy_ids' },
                }),
            ExpressionAttributeValues: {
              ':release': release.release_id,
              ...(release.authored === undefined ? { ':document': release.document_key } : { ':none': 0 }),
              ...(options.takeOver === undefined ? {} : { ':stalled': options.takeOver }),
            },
          },
        },
        {
          Put: {
            TableName: table,
            Item: {
              ...catalogKeys.releaseMarker(release.store_id, release.catalog_id, release.release_id),
              ...release,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      options.caller,
    );
    if (!codes) return;
    if (codes[0] !== 'ConditionalCheckFailed') {
      throw new Error(`release ${release.release_id} could not be created (${codes.join(', ')})`);
    }
    const catalog = await pcmRepository.getCatalog(release.store_id, release.catalog_id);
    if (!catalog) throw new CatalogNotFoundError(release.catalog_id);
    if (catalog.publishing !== undefined) throw new CatalogBusyError(catalog.publishing);
    // The document changed between the caller's read and this write: the caller reads again.
    throw new NoDocumentError('the catalog has no document to publish');
  },

  async getRelease(storeId: string, catalogId: string, releaseId: string): Promise<PcmRelease | undefined> {
    const found = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('products'),
        Key: catalogKeys.releaseMarker(storeId, catalogId, releaseId),
        ConsistentRead: true,
      }),
    );
    return found.Item ? strip<PcmRelease>(found.Item) : undefined;
  },

  /** Sets fields of a release (the workflow's progress). Only while the release still exists. */
  async updateRelease(
    storeId: string,
    catalogId: string,
    releaseId: string,
    fields: Partial<PcmRelease>,
    options: { add?: Partial<Record<'written_items', number>>; unlessState?: ReleaseState[] } = {},
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    // However many or long the issues, the record stays far under DynamoDB's item limit: cut, not lost.
    const recorded =
      fields.errors === undefined ? fields : { ...fields, errors: recordableIssues(fields.errors) };
    const sets = assignments(Object.entries(recorded), names, values);
    const adds: string[] = [];
    for (const [field, value] of Object.entries(options.add ?? {})) {
      names[`#${field}`] = field;
      values[`:add_${field}`] = value;
      adds.push(`#${field} :add_${field}`);
    }
    let condition = 'attribute_exists(pk)';
    if (options.unlessState && options.unlessState.length > 0) {
      names['#state'] = 'state';
      const listed = options.unlessState.map((state, n) => {
        values[`:unless${n}`] = state;
        return `:unless${n}`;
      });
      condition += ` AND NOT #state IN (${listed.join(', ')})`;
    }
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('products'),
          Key: catalogKeys.releaseMarker(storeId, catalogId, releaseId),
          UpdateExpression: [
            sets.length > 0 ? `SET ${sets.join(', ')}` : '',
            adds.length > 0 ? `ADD ${adds.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join(' '),
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  },

  /** Clears the catalog's publishing lock if this release holds it. */
  async releaseLock(storeId: string, catalogId: string, releaseId: string): Promise<void> {
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('products'),
          Key: pcmKey(storeId, catalogId),
          UpdateExpression: 'REMOVE publishing',
          ConditionExpression: 'publishing = :release',
          ExpressionAttributeValues: { ':release': releaseId },
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  },
};

/** A release's `percent_completed` once its items are derived; the Write steps take it to 99. */
export const DERIVED_PERCENT = 20;

/**
 * How far a release that has not published is: the step it last recorded (`percent_completed`), or, once
 * items are written, the share of them written (each Write step adds its own to `written_items`, one
 * atomic ADD: no step reads the others' figure, so none can write a smaller one over a larger).
 */
export function progressOf(
  release: Pick<PcmRelease, 'percent_completed' | 'total_items' | 'written_items'>,
): number {
  const recorded = release.percent_completed ?? 0;
  const total = release.total_items ?? 0;
  const written = release.written_items ?? 0;
  if (total === 0 || written === 0) return recorded;
  const share = Math.floor(((99 - DERIVED_PERCENT) * Math.min(written, total)) / total);
  return Math.max(recorded, DERIVED_PERCENT + share);
}
