import type { FileRelationship } from '../files/relationships';
import { ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { assertCallerExists, type WriteCaller } from '../store/caller-check';
import { FileNotFoundError } from '../store/file-repository';
import { backoff } from '../store/items';
import {
  MAX_PRODUCT_FILES,
  ProductChangedError,
  type ProductFile,
  ProductNotFoundError,
  type ProductRecord,
  ProductWriteConflictError,
  productRepository,
} from '../store/product-repository';
import { ProductValidationError } from '../validation/product';
import { nextVersion, writableProduct } from './service';

/**
 * A product's file relationships (docs/products.md#files-and-the-main-image): its `main_image` and its
 * `files`, set, added, replaced and removed by `/pcm/products/{id}/relationships/main_image` and
 * `…/relationships/files`. Each write reads the product, applies the change and writes it back on condition
 * that it did not change since (else reads again and re-applies, as attribute updates do), moving the link
 * counts of the files it starts or stops naming in the same transaction: a file that does not exist (or is
 * deleted at that moment) is a 422 naming it, and a file products name cannot be deleted.
 */

/**
 * The most bytes a product's `files` may take as JSON (their ids, dates and tags): with the product's own
 * 300,000 bytes of attributes the item stays well under DynamoDB's 400 KB.
 */
export const MAX_PRODUCT_FILES_BYTES = 65_536;
const ATTEMPTS = 8;

/** The files a product names: its main image and its files list (absent when it names none). */
type Links = Pick<ProductRecord, 'main_image' | 'files'>;

const linksOf = (product: ProductRecord): Links => ({ main_image: product.main_image, files: product.files });

/** The product with `links` instead of its own; no attribute for none (no main image, an empty list). */
function withLinks(product: ProductRecord, links: Links): ProductRecord {
  const { main_image: _image, files: _files, ...rest } = product;
  return {
    ...rest,
    ...(links.main_image === undefined ? {} : { main_image: links.main_image }),
    ...(links.files === undefined || links.files.length === 0 ? {} : { files: links.files }),
  };
}

const sameLinks = (a: Links, b: Links) =>
  (a.main_image ?? null) === (b.main_image ?? null) &&
  JSON.stringify(a.files ?? []) === JSON.stringify(b.files ?? []);

/** 422 for a files list over MAX_PRODUCT_FILES entries or MAX_PRODUCT_FILES_BYTES bytes. */
function checkFiles(files: ProductFile[]): ProductFile[] {
  if (files.length > MAX_PRODUCT_FILES) {
    throw new ProductValidationError(
      `data: the product would name ${files.length} files, at most ${MAX_PRODUCT_FILES} are allowed: remove some first (DELETE .../relationships/files)`,
      'data',
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(files), 'utf8');
  if (bytes > MAX_PRODUCT_FILES_BYTES) {
    throw new ProductValidationError(
      `data: the product's files and their tags would take ${bytes} bytes, at most ${MAX_PRODUCT_FILES_BYTES} are allowed: send fewer or shorter tags`,
      'data',
    );
  }
  return files;
}

const entryOf = (file: FileRelationship, created_at: string): ProductFile =>
  file.tags === undefined ? { id: file.id, created_at } : { id: file.id, created_at, tags: file.tags };

/**
 * Reads the product, applies `apply` to the files it names and writes the result with the link counts
 * moved (retrying when the product changed meanwhile). A change that changes nothing writes nothing, but
 * still answers 401 to a caller whose key was deleted. `sourceOf` names the body field of a file that does
 * not exist.
 */
async function relinkProduct(
  storeId: string,
  productId: string,
  caller: WriteCaller,
  apply: (before: ProductRecord, at: string) => Links,
  sourceOf: (fileId: string) => string,
): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    if (attempt > 1) await backoff(attempt);
    const before = await writableProduct(storeId, productId);
    if (before === undefined) continue;
    const next = nextVersion(before);
    const links = apply(before, next.updated_at);
    if (sameLinks(linksOf(before), links)) {
      await assertCallerExists(caller);
      return;
    }
    try {
      await productRepository.relink(storeId, before, withLinks(next, links), caller);
      return;
    } catch (error) {
      if (error instanceof ProductNotFoundError) throw new NotFoundError('product not found');
      if (error instanceof ProductChangedError) continue;
      if (error instanceof FileNotFoundError) {
        const source = sourceOf(error.fileId);
        throw new ProductValidationError(
          `${source}: file ${error.fileId} does not exist in the store (create it with POST /v2/files first)`,
          source,
        );
      }
      if (error instanceof ProductWriteConflictError) throw new ConflictError(WRITE_CONFLICT);
      throw error;
    }
  }
  throw new ConflictError(WRITE_CONFLICT);
}

/** Makes `fileId` the product's main image (POST and PUT: either replaces the one it had). */
export function setMainImage(
  storeId: string,
  productId: string,
  fileId: string,
  source: string,
  caller: WriteCaller,
): Promise<void> {
  return relinkProduct(
    storeId,
    productId,
    caller,
    (before) => ({ ...linksOf(before), main_image: fileId }),
    () => source,
  );
}

/**
 * Removes the product's main image; when the body named `fileId`, only if that file is it (409 when the
 * main image is another file: the caller's view is stale). No main image: nothing to do.
 */
export function removeMainImage(
  storeId: string,
  productId: string,
  fileId: string | undefined,
  caller: WriteCaller,
): Promise<void> {
  return relinkProduct(
    storeId,
    productId,
    caller,
    (before) => {
      if (fileId !== undefined && before.main_image !== undefined && before.main_image !== fileId) {
        throw new ConflictError(
          `the product's main image is file ${before.main_image}, not ${fileId}: nothing was removed`,
          'data.id',
        );
      }
      return { ...linksOf(before), main_image: undefined };
    },
    () => 'data.id',
  );
}

/** `data[i].id` of the body entry naming the file. */
const entrySource = (files: FileRelationship[]) => (fileId: string) =>
  `data[${files.findIndex((file) => file.id === fileId)}].id`;

/** A write of the product's files list: `change` makes the new list from the one it has and the files sent. */
const filesWrite =
  (change: (listed: ProductFile[], files: FileRelationship[], at: string) => ProductFile[]) =>
  (storeId: string, productId: string, files: FileRelationship[], caller: WriteCaller): Promise<void> =>
    relinkProduct(
      storeId,
      productId,
      caller,
      (before, at) => ({ ...linksOf(before), files: change(before.files ?? [], files, at) }),
      entrySource(files),
    );

/**
 * Adds files at the end of the product's list; a file it lists already keeps its place, and takes the
 * tags sent when `meta.tags` is (its own otherwise).
 */
export const addFiles = filesWrite((listed, files, at) => {
  const list = [...listed];
  for (const file of files) {
    const index = list.findIndex((entry) => entry.id === file.id);
    const found = list[index];
    if (found === undefined) list.push(entryOf(file, at));
    else if (file.tags !== undefined) list[index] = entryOf(file, found.created_at);
  }
  return checkFiles(list);
});

/** Replaces the product's list by the files sent, in their order, with the tags sent ([] removes all). */
export const replaceFiles = filesWrite((listed, files, at) => {
  const since = new Map(listed.map((entry) => [entry.id, entry.created_at]));
  return checkFiles(files.map((file) => entryOf(file, since.get(file.id) ?? at)));
});

/** Removes the files sent from the product's list (a file it does not list is already not there). */
export const removeFiles = filesWrite((listed, files) => {
  const removed = new Set(files.map((file) => file.id));
  return listed.filter((entry) => !removed.has(entry.id));
});
