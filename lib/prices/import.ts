import { createGunzip } from 'node:zlib';
import { eachAtMost } from '../at-most';
import { ApiError, toApiError } from '../http/errors';
import { isUuid, uuidv7 } from '../ids';
import { type JobContext, type JobError, JobErrorList, type JobOutcome } from '../jobs/outcome';
import { createPricebook, updatePricebook } from '../pricebooks/service';
import { importFileKeyOf } from '../products/import';
import type { JobRecord } from '../store/job-repository';
import { objectStore } from '../store/object-store';
import { priceRepository } from '../store/price-repository';
import { pricebookRepository } from '../store/pricebook-repository';
import { type NewPriceAttributes, PRICE_TYPE, parseNewPrice } from '../validation/price';
import { PRICEBOOK_TYPE, type PricebookAttributes, parsePricebookUpdate } from '../validation/pricebook';
import { createPrice, updatePrice } from './service';

/**
 * The platform's price book import (`POST /pcm/pricebooks/import`, docs/price-books.md#importing-prices): a
 * `price-import` job whose runner reads the JSONL file (gzipped or not) from the documents bucket, as a
 * stream of JSON objects (one a line, or pretty-printed over several: objects are split at their closing
 * brace), three times, holding one object and the store's books at a time:
 *
 * 1. **validate** every object: a price book line (`{"data": {"type": "pricebook", "id"?, "attributes"}}`)
 *    by the price book API's rules, a price line (`{"data": {"type": "product-price", "pricebook_id" |
 *    "pricebook_external_ref", "attributes"}}`) by the price API's; the books they name (in the store or
 *    the file), a sku twice for one book. Any error: the job fails with every error found, by line, and
 *    **nothing is imported**.
 * 2. **apply the price book lines** (in file order): `id` updates that book, else the book holding the
 *    `external_ref` is updated, else one is created (it needs `name` and `external_ref`, its key).
 * 3. **apply the price lines**, 100 at a time: each updates the price of its sku in its book (read by
 *    claim), else creates it (16 at a time).
 *
 * Books are keyed by id or external_ref and prices by sku, so a second run of the same file (a retried job)
 * updates what the first created.
 */

/** Objects a file may hold (the platform's limit). */
export const MAX_PRICE_IMPORT_OBJECTS = 50_000;
/** The largest object of a file, in bytes (a price's budget is far below it). */
const MAX_OBJECT_BYTES = 256 * 1024;
const APPLY_BATCH = 100;
const WRITE_CONCURRENCY = 16;

/** The key of a price import file sent in a form, in the documents bucket. */
export const priceImportFileKey = (storeId: string, id: string) => `work/imports/${storeId}/${id}.jsonl`;
export const PRICE_IMPORT_CONTENT_TYPE = 'application/jsonl';

class LineError extends Error {
  constructor(
    readonly line: number,
    readonly column: string | undefined,
    detail: string,
  ) {
    super(`line ${line}${column === undefined ? '' : `, ${column}`}: ${detail}`);
  }
  toJobError(): JobError {
    return {
      message: this.message,
      line: this.line,
      ...(this.column === undefined ? {} : { column: this.column }),
    };
  }
}

class TooManyObjectsError extends Error {
  constructor() {
    super(`the file has more than ${MAX_PRICE_IMPORT_OBJECTS} objects: split it; nothing was imported`);
  }
}

/** The file's bytes, gunzipped when they start with gzip's magic bytes. */
async function* decompressed(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const rest = {
    async *[Symbol.asyncIterator]() {
      yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    },
  };
  if (first.value[0] !== 0x1f || first.value[1] !== 0x8b) {
    yield* rest;
    return;
  }
  const gunzip = createGunzip();
  const feeding = (async () => {
    for await (const chunk of rest)
      if (!gunzip.write(chunk)) await new Promise((done) => gunzip.once('drain', done));
    gunzip.end();
  })();
  feeding.catch((error) => gunzip.destroy(error as Error));
  for await (const chunk of gunzip) yield chunk as Uint8Array;
  await feeding;
}

/** One JSON object of the file: the line it starts on and its text. */
interface RawObject {
  line: number;
  text: string;
}

/**
 * The file's top-level JSON objects, split at their closing brace (strings and escapes followed), each with
 * the line it starts on; anything else between objects but white space is an error of its line.
 */
export async function* jsonObjects(source: AsyncIterable<Uint8Array>): AsyncGenerator<RawObject | LineError> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = 0;
  let current = '';
  for await (const chunk of decompressed(source)) {
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      yield new LineError(line, undefined, 'the file is not UTF-8 text (or a gzip of it)');
      return;
    }
    let from = 0;
    for (let i = 0; i < text.length; i += 1) {
      const c = text[i] as string;
      if (c === '\n') line += 1;
      if (depth === 0) {
        if (c === '{') {
          depth = 1;
          start = line;
          from = i;
        } else if (c !== ' ' && c !== '\t' && c !== '\r' && c !== '\n' && c !== '\uFEFF') {
          yield new LineError(line, undefined, `expected a JSON object, found ${JSON.stringify(c)}`);
          return;
        }
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth += 1;
      else if (c === '}' || c === ']') {
        depth -= 1;
        if (depth === 0) {
          yield { line: start, text: current + text.slice(from, i + 1) };
          current = '';
        }
      }
    }
    if (depth > 0) {
      current += text.slice(from);
      if (current.length > MAX_OBJECT_BYTES) {
        yield new LineError(start, undefined, `an object of more than ${MAX_OBJECT_BYTES} bytes`);
        return;
      }
    }
  }
  if (depth > 0) yield new LineError(start, undefined, 'the object is not closed at the end of the file');
}

/** A line as validated. */
type ImportLine =
  | { kind: 'book'; line: number; id?: string; attributes: PricebookAttributes }
  | {
      kind: 'price';
      line: number;
      book: { id: string } | { external_ref: string };
      attributes: NewPriceAttributes;
    };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function lineErrorFrom(line: number, error: unknown): LineError {
  const api = toApiError(error);
  if (api.status >= 500) throw error;
  return new LineError(line, api.source, api.detail);
}

/** One object's line: its shape and attributes by the APIs' own rules. */
function readLine(raw: RawObject): ImportLine {
  let value: unknown;
  try {
    value = JSON.parse(raw.text);
  } catch (error) {
    throw new LineError(raw.line, undefined, `not JSON: ${(error as Error).message}`);
  }
  const data = isObject(value) ? value.data : undefined;
  if (!isObject(data)) throw new LineError(raw.line, 'data', 'each object is {"data": {"type", …}}');
  try {
    if (data.type === PRICEBOOK_TYPE) {
      const id = data.id === undefined ? undefined : String(data.id);
      if (id !== undefined && !isUuid(id)) throw new LineError(raw.line, 'data.id', 'not a price book id');
      const extra = Object.keys(data).find((key) => !['type', 'id', 'attributes'].includes(key));
      if (extra !== undefined)
        throw new LineError(raw.line, `data.${extra}`, 'not an attribute of a price book line');
      const attributes = parsePricebookUpdate({ data: { type: data.type, attributes: data.attributes } }, '');
      return {
        kind: 'book',
        line: raw.line,
        ...(id === undefined ? {} : { id: id.toLowerCase() }),
        attributes,
      };
    }
    if (data.type === PRICE_TYPE) {
      const { pricebook_id: bookId, pricebook_external_ref: bookRef, ...rest } = data;
      const attributes = parseNewPrice({ data: { type: rest.type, attributes: rest.attributes } });
      const extra = Object.keys(rest).find((key) => key !== 'type' && key !== 'attributes');
      if (extra !== undefined)
        throw new LineError(raw.line, `data.${extra}`, 'not an attribute of a price line');
      if (typeof bookId === 'string' && isUuid(bookId)) {
        return { kind: 'price', line: raw.line, book: { id: bookId.toLowerCase() }, attributes };
      }
      if (bookId === undefined && typeof bookRef === 'string' && bookRef !== '') {
        return { kind: 'price', line: raw.line, book: { external_ref: bookRef }, attributes };
      }
      throw new LineError(
        raw.line,
        'data.pricebook_id',
        'a price names its book by pricebook_id (a price book id) or pricebook_external_ref',
      );
    }
    throw new LineError(
      raw.line,
      'data.type',
      'must be pricebook or product-price (price modifiers are not imported)',
    );
  } catch (error) {
    if (error instanceof LineError) throw error;
    throw lineErrorFrom(raw.line, error);
  }
}

/** The file's lines, each read or its error, stopping past MAX_PRICE_IMPORT_OBJECTS. */
async function* linesOf(fileKey: string): AsyncGenerator<ImportLine | LineError> {
  let count = 0;
  for await (const raw of jsonObjects(objectStore.read(fileKey))) {
    if (raw instanceof LineError) {
      yield raw;
      return;
    }
    count += 1;
    if (count > MAX_PRICE_IMPORT_OBJECTS) throw new TooManyObjectsError();
    try {
      yield readLine(raw);
    } catch (error) {
      if (!(error instanceof LineError)) throw error;
      yield error;
    }
  }
}

/** The store's books by id and by external_ref (a store holds at most 1,000). */
async function booksOf(storeId: string) {
  const { pricebooks } = await pricebookRepository.page(storeId, { limit: 1000, offset: 0 });
  return {
    byId: new Map(pricebooks.map((book) => [book.id, book])),
    byRef: new Map(
      pricebooks.flatMap((book) => (book.external_ref === undefined ? [] : [[book.external_ref, book]])),
    ),
    names: new Map(pricebooks.map((book) => [book.name, book.id])),
  };
}

/** Step 1: every line's rules, the books named and the (book, sku) pairs unique in the file. */
async function validate(storeId: string, fileKey: string, errors: JobErrorList): Promise<void> {
  const books = await booksOf(storeId);
  const fileIds = new Set<string>();
  const fileRefs = new Set<string>();
  const fileNames = new Map<string, number>();
  // The books the price lines name, each once, with the lines naming it: checked at the end of the file
  // (a book line may come after its prices), holding line numbers, never a line's attributes.
  const named = new Map<string, number[]>();
  const seen = new Map<string, number>();
  for await (const line of linesOf(fileKey)) {
    if (line instanceof LineError) {
      errors.add(line.toJobError());
      continue;
    }
    if (line.kind === 'book') {
      const { id, attributes } = line;
      const ref = attributes.external_ref;
      const target = id ?? (ref === undefined ? undefined : books.byRef.get(ref)?.id);
      if (id !== undefined && !books.byId.has(id)) {
        errors.add(new LineError(line.line, 'data.id', `no price book has the id ${id}`).toJobError());
        continue;
      }
      if (target === undefined && (ref === undefined || attributes.name === undefined)) {
        errors.add(
          new LineError(
            line.line,
            'data.attributes',
            'a price book line that creates a book needs a name and an external_ref (its key, so that a second run updates it)',
          ).toJobError(),
        );
        continue;
      }
      const name = attributes.name;
      const holder = name === undefined ? undefined : books.names.get(name);
      const twice = name === undefined ? undefined : fileNames.get(name);
      if ((holder !== undefined && holder !== target) || twice !== undefined) {
        errors.add(
          new LineError(line.line, 'data.attributes.name', 'another price book has this name').toJobError(),
        );
        continue;
      }
      if (name !== undefined) fileNames.set(name, line.line);
      if (target !== undefined) fileIds.add(target);
      if (ref !== undefined) fileRefs.add(ref);
      continue;
    }
    const book = 'id' in line.book ? `id:${line.book.id}` : `ref:${line.book.external_ref}`;
    named.set(book, [...(named.get(book) ?? []), line.line]);
    const key = `${book}\u0000${line.attributes.sku.toLowerCase()}`;
    const first = seen.get(key);
    if (first !== undefined) {
      errors.add(
        new LineError(
          line.line,
          'data.attributes.sku',
          `the same sku and book as line ${first}`,
        ).toJobError(),
      );
    } else seen.set(key, line.line);
  }
  for (const [book, lines] of named) {
    const [kind, value] = [book.slice(0, book.indexOf(':')), book.slice(book.indexOf(':') + 1)];
    const known =
      kind === 'id'
        ? books.byId.has(value) || fileIds.has(value)
        : books.byRef.has(value) || fileRefs.has(value);
    if (known) continue;
    for (const at of lines) {
      errors.add(
        (kind === 'id'
          ? new LineError(at, 'data.pricebook_id', 'price book not found')
          : new LineError(at, 'data.pricebook_external_ref', 'price book external ref not found')
        ).toJobError(),
      );
    }
  }
}

/** Step 2: a book line's update or create, keyed by id or external_ref. */
async function applyBook(storeId: string, line: Extract<ImportLine, { kind: 'book' }>): Promise<void> {
  const ref = line.attributes.external_ref;
  const books = line.id === undefined && ref !== undefined ? await booksOf(storeId) : undefined;
  const target = line.id ?? (ref === undefined ? undefined : books?.byRef.get(ref)?.id);
  if (target !== undefined) await updatePricebook(storeId, target, line.attributes, undefined);
  else await createPricebook(storeId, line.attributes as PricebookAttributes & { name: string }, undefined);
}

/** Step 3 on a batch of price lines: each updates the price of its sku, else creates it. */
async function applyPrices(
  storeId: string,
  lines: Extract<ImportLine, { kind: 'price' }>[],
  bookIdOf: (line: Extract<ImportLine, { kind: 'price' }>) => string,
  errors: JobErrorList,
): Promise<void> {
  const byBook = new Map<string, Extract<ImportLine, { kind: 'price' }>[]>();
  for (const line of lines) byBook.set(bookIdOf(line), [...(byBook.get(bookIdOf(line)) ?? []), line]);
  for (const [bookId, bookLines] of byBook) {
    const found = await priceRepository.pricesBySku(
      storeId,
      bookId,
      bookLines.map((line) => line.attributes.sku),
    );
    await eachAtMost(bookLines, WRITE_CONCURRENCY, async (line) => {
      try {
        for (let attempt = 1; ; attempt += 1) {
          const existing = found.get(line.attributes.sku);
          try {
            if (existing) await updatePrice(storeId, bookId, existing.id, line.attributes, undefined);
            else await createPrice(storeId, bookId, line.attributes, undefined);
            return;
          } catch (error) {
            // Another writer priced the sku meanwhile: the line updates that price instead.
            const taken =
              error instanceof ApiError && error.status === 409 && error.source === 'data.attributes.sku';
            if (!taken || attempt >= 2) throw error;
            const again = await priceRepository.pricesBySku(storeId, bookId, [line.attributes.sku]);
            for (const [sku, price] of again) found.set(sku, price);
          }
        }
      } catch (error) {
        errors.add(lineErrorFrom(line.line, error).toJobError());
      }
    });
  }
}

/**
 * The `price-import` runner (see above). The job's input names the file's key and the application key that
 * asked for it: an import whose key was deleted before it ran does nothing.
 */
export async function runPriceImport(job: JobRecord, context: JobContext): Promise<JobOutcome> {
  const { storeId } = context;
  const fileKey = await importFileKeyOf(job, storeId);
  if (typeof fileKey !== 'string') return fileKey;
  const errors = new JobErrorList();
  try {
    await validate(storeId, fileKey, errors);
  } catch (error) {
    if (!(error instanceof TooManyObjectsError)) throw error;
    return { errors: [{ message: error.message }] };
  }
  if (errors.count > 0) return byLine(errors.outcome());

  for await (const line of linesOf(fileKey)) {
    if (line instanceof LineError)
      throw new Error(`the import file changed between its reads (${line.message})`);
    if (line.kind !== 'book') continue;
    try {
      await applyBook(storeId, line);
    } catch (error) {
      errors.add(lineErrorFrom(line.line, error).toJobError());
    }
  }
  const books = await booksOf(storeId);
  const bookIdOf = (line: Extract<ImportLine, { kind: 'price' }>) =>
    'id' in line.book ? line.book.id : (books.byRef.get(line.book.external_ref)?.id ?? uuidv7());
  let pending: Extract<ImportLine, { kind: 'price' }>[] = [];
  for await (const line of linesOf(fileKey)) {
    if (line instanceof LineError || line.kind !== 'price') continue;
    pending.push(line);
    if (pending.length === APPLY_BATCH) {
      await applyPrices(storeId, pending, bookIdOf, errors);
      pending = [];
    }
  }
  await applyPrices(storeId, pending, bookIdOf, errors);
  return byLine(errors.outcome());
}

function byLine(outcome: JobOutcome): JobOutcome {
  outcome.errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return outcome;
}
