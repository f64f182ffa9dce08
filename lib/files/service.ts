import {
  type FilterExpression,
  type FilterGrammar,
  type FilterOperator,
  likeMatcher,
  parseFilter,
} from '../filter/index';
import { BadRequestError, ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { isUuid, uuidv7 } from '../ids';
import type { PageRequest } from '../pagination/index';
import type { WriteCaller } from '../store/caller-check';
import {
  FileLimitError,
  FileLinkedError,
  FileNotFoundError,
  type FileRecord,
  FileWriteConflictError,
  fileRepository,
} from '../store/file-repository';

/**
 * The files API (docs/files.md): a file is a URL the merchant's CDN already serves, recorded with the name
 * and media type its path shows. The server never fetches the URL.
 */

/** The media types of the file types the platform lists as supported, by extension. */
const MEDIA_TYPES: Record<string, string> = {
  gif: 'image/gif',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  jp2: 'image/jp2',
  jxr: 'image/jxr',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  aac: 'audio/aac',
  pdf: 'application/pdf',
  usdz: 'model/vnd.usdz+zip',
  glb: 'model/gltf-binary',
  vrml: 'model/vrml',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};
/** The media type of a name whose extension is none of those (or that has none). */
export const UNKNOWN_MEDIA_TYPE = 'application/octet-stream';

/**
 * The name and media type a file's URL shows: the last segment of its path, percent-decoded (as sent when
 * it does not decode), or its host when the path has no segment; the media type its extension names.
 */
export function describeLocation(location: string): { file_name: string; mime_type: string } {
  const url = new URL(location);
  const segment = url.pathname
    .split('/')
    .filter((part) => part !== '')
    .at(-1);
  let name = url.hostname;
  if (segment !== undefined) {
    try {
      name = decodeURIComponent(segment);
    } catch {
      name = segment;
    }
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  const mime = extension === undefined ? undefined : MEDIA_TYPES[extension];
  return { file_name: name, mime_type: mime ?? UNKNOWN_MEDIA_TYPE };
}

export async function createFile(
  storeId: string,
  location: string,
  caller: WriteCaller,
): Promise<FileRecord> {
  const file: FileRecord = {
    id: uuidv7(),
    file_location: location,
    ...describeLocation(location),
    created_at: new Date().toISOString(),
  };
  try {
    await fileRepository.create(storeId, file, caller);
  } catch (error) {
    if (error instanceof FileLimitError) throw new ConflictError(error.message);
    if (error instanceof FileWriteConflictError) throw new ConflictError(WRITE_CONFLICT);
    throw error;
  }
  return file;
}

/** The file, or 404. */
export async function fileOf(storeId: string, fileId: string): Promise<FileRecord> {
  const file = await fileRepository.get(storeId, fileId);
  if (!file) throw new NotFoundError('file not found');
  return file;
}

export async function deleteFile(storeId: string, fileId: string, caller: WriteCaller): Promise<void> {
  try {
    await fileRepository.delete(storeId, fileId, caller);
  } catch (error) {
    if (error instanceof FileNotFoundError) throw new NotFoundError('file not found');
    if (error instanceof FileLinkedError) {
      throw new ConflictError(
        `products still name the file (${error.links} ${error.links === 1 ? 'link' : 'links'} as a main_image or among files): remove it from them first (DELETE /pcm/products/{product_id}/relationships/main_image or .../relationships/files)`,
      );
    }
    if (error instanceof FileWriteConflictError) throw new ConflictError(WRITE_CONFLICT);
    throw error;
  }
}

/** Files per page when `page[limit]` is absent (the platform's list shows 100). */
export const FILES_DEFAULT_LIMIT = 100;

/** What `GET /v2/files?filter=` may test. */
export type FileFilterAttribute = 'id' | 'file_name' | 'public';

/** The platform's file filters this API can answer: `eq`/`in` on id, file_name and public, `like` on file_name. */
export const FILE_FILTER: FilterGrammar<FileFilterAttribute> = {
  attributes: new Map<string, FileFilterAttribute>([
    ['id', 'id'],
    ['file_name', 'file_name'],
    ['public', 'public'],
  ]),
  description: 'id, file_name, public',
  inOnly: new Set(),
  lowerCase: new Set(),
  operators: new Map<FilterOperator, ReadonlySet<FileFilterAttribute>>([
    ['eq', new Set(['id', 'file_name', 'public'])],
    ['in', new Set(['id', 'file_name', 'public'])],
    ['like', new Set(['file_name'])],
  ]),
};

/** Longest `like` pattern: bounds the matching work a filtered list does per file. */
export const MAX_LIKE_PATTERN = 255;

/**
 * Parses `filter` for the file list: 400 (`source: "filter"`) for other attributes, operators or values,
 * and for a `like` pattern over MAX_LIKE_PATTERN characters.
 */
export function parseFileFilter(text: string): FilterExpression<FileFilterAttribute>[] {
  return parseFilter(text, FILE_FILTER).map((expression) => {
    const { attribute, values, op } = expression;
    const long = op === 'like' ? values.find((value) => value.length > MAX_LIKE_PATTERN) : undefined;
    if (long !== undefined) {
      throw new BadRequestError(`a like pattern has at most ${MAX_LIKE_PATTERN} characters`, 'filter');
    }
    const bad =
      attribute === 'public' ? values.find((value) => value !== 'true' && value !== 'false') : undefined;
    if (bad !== undefined)
      throw new BadRequestError(`public is true or false, not ${JSON.stringify(bad)}`, 'filter');
    // Ids compare as the API writes them, in lower case.
    return attribute === 'id' ? { ...expression, values: values.map((id) => id.toLowerCase()) } : expression;
  });
}

/** The test of a parsed filter: every expression must hold (AND). */
function fileMatcher(filter: FilterExpression<FileFilterAttribute>[]): (file: FileRecord) => boolean {
  const tests = filter.map(({ op, attribute, values }) => {
    // Every file this API records is public.
    const tested = (file: FileRecord) => (attribute === 'public' ? 'true' : file[attribute]);
    if (op === 'like') {
      const like = likeMatcher(values[0] as string);
      return (file: FileRecord) => like(tested(file));
    }
    const wanted = new Set(values);
    return (file: FileRecord) => wanted.has(tested(file));
  });
  return (file) => tests.every((test) => test(file));
}

/**
 * A page of the store's files (creation order) and their total: all of them, or those `filter` selects
 * (a filter naming ids reads those only; any other reads the store's files, at most MAX_FILES_PER_STORE).
 */
export async function listFiles(
  storeId: string,
  page: PageRequest,
  filter: FilterExpression<FileFilterAttribute>[] | undefined,
): Promise<{ files: FileRecord[]; total: number }> {
  if (filter === undefined) return fileRepository.page(storeId, page);
  const ids = filter.find((expression) => expression.attribute === 'id')?.values;
  const candidates =
    ids === undefined
      ? await fileRepository.all(storeId)
      : // Only a UUID can be a file's id (and a longer value could not be a key).
        await fileRepository.byIds(storeId, ids.filter(isUuid));
  const selected = candidates.filter(fileMatcher(filter));
  return { files: selected.slice(page.offset, page.offset + page.limit), total: selected.length };
}
