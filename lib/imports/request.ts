import { BadRequestError } from '../http/errors';
import type { UploadForm } from '../http/multipart';
import { uuidv7 } from '../ids';
import { uploadedImportFile } from '../products/import';
import { objectStore } from '../store/object-store';

/**
 * The file of an import request (`POST /pcm/products/import`, `POST /pcm/pricebooks/import`): the `file`
 * part of a multipart/form-data form (up to 4 MiB), stored in the documents bucket, or a file uploaded to a
 * pre-signed URL of `POST /pcm/products/import-uploads`, named by `{"data": {"type", "upload_id"}}`.
 */
export interface ImportKind {
  /** The body's `data.type` naming an upload. */
  type: 'product-import' | 'price-import';
  /** What the file is ("CSV", "JSONL"), for messages. */
  format: string;
  /** The SDK's call for it, for the message answering what it sends under Node. */
  sdkCall: string;
  contentType: string;
  /** The key a form's file is stored at. */
  fileKey: (storeId: string, id: string) => string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The file a form sends (its only field, `file`): stored in the documents bucket; its key. */
async function storeFormFile(storeId: string, form: UploadForm, kind: ImportKind): Promise<string> {
  const extra = [...Object.keys(form.fields), ...Object.keys(form.files)].find((name) => name !== 'file');
  if (extra !== undefined)
    throw new BadRequestError(`unknown field ${extra.slice(0, 64)}: send only "file"`, extra);
  const file = form.files.file;
  if (file === undefined) {
    throw new BadRequestError(
      form.fields.file === undefined ? 'the field "file" is missing' : 'the field "file" must be a file',
      'file',
    );
  }
  if (file.length === 0) throw new BadRequestError('the file is empty', 'file');
  const key = kind.fileKey(storeId, uuidv7());
  await objectStore.put(key, file, { contentType: kind.contentType });
  return key;
}

/** The uploaded file a JSON body names: `{"data": {"type": <kind>, "upload_id"}}`; its key. */
async function uploadedFile(storeId: string, body: unknown, kind: ImportKind): Promise<string> {
  const data = isObject(body) ? body.data : undefined;
  if (!isObject(data) || Object.keys(data).length === 0) {
    // `{"data":{}}` is what the SDK sends for a FormData under Node.
    throw new BadRequestError(
      `send the ${kind.format} file as the field "file" of a multipart/form-data form, or name an uploaded file with {"data": {"type": "${kind.type}", "upload_id"}} (under Node the SDK's ${kind.sdkCall} sends a FormData as JSON: post the form with fetch)`,
      'data',
    );
  }
  if (data.type !== kind.type) throw new BadRequestError(`data.type must be ${kind.type}`, 'data.type');
  const extra = Object.keys(data).find((name) => name !== 'type' && name !== 'upload_id');
  if (extra !== undefined)
    throw new BadRequestError(`data.${extra.slice(0, 64)} is not an attribute of an import`, `data.${extra}`);
  if (typeof data.upload_id !== 'string') {
    throw new BadRequestError(
      'data.upload_id must be the id POST /pcm/products/import-uploads answered',
      'data.upload_id',
    );
  }
  return uploadedImportFile(storeId, data.upload_id);
}

/** The key of the file an import request sends or names (400 for a request that sends none). */
export function importFileOf(
  storeId: string,
  event: { parsedBody?: unknown; headers: Record<string, string | undefined> },
  kind: ImportKind,
): Promise<string> {
  const body = event.parsedBody;
  if (body === undefined) {
    throw new BadRequestError(
      `send the ${kind.format} file as the field "file" of a multipart/form-data form`,
      'body',
    );
  }
  // The body parser took a form (multipart/form-data) or JSON, nothing else.
  const isForm = /^\s*multipart\/form-data/i.test(event.headers['content-type'] ?? '');
  return isForm
    ? storeFormFile(storeId, body as unknown as UploadForm, kind)
    : uploadedFile(storeId, body, kind);
}
