import { BadRequestError } from '../../lib/http/errors';
import type { UploadForm } from '../../lib/http/multipart';
import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { uuidv7 } from '../../lib/ids';
import { renderJob } from '../../lib/jobs/render';
import { enqueueJob } from '../../lib/jobs/service';
import { IMPORT_CONTENT_TYPE, importFileKey, uploadedImportFile } from '../../lib/products/import';
import { objectStore } from '../../lib/store/object-store';
import { createHandler } from '../create-handler';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The file a form sends (its only field, `file`): stored in the documents bucket; its key. */
async function storeFormFile(storeId: string, form: UploadForm): Promise<string> {
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
  const key = importFileKey(storeId, uuidv7());
  await objectStore.put(key, file, { contentType: IMPORT_CONTENT_TYPE });
  return key;
}

/** The uploaded file a JSON body names: `{"data": {"type": "product-import", "upload_id"}}`; its key. */
async function uploadedFile(storeId: string, body: unknown): Promise<string> {
  const data = isObject(body) ? body.data : undefined;
  if (!isObject(data) || Object.keys(data).length === 0) {
    // `{"data":{}}` is what the SDK's PCM.ImportProducts sends for a FormData under Node.
    throw new BadRequestError(
      'send the CSV file as the field "file" of a multipart/form-data form, or name an uploaded file with {"data": {"type": "product-import", "upload_id"}} (under Node the SDK\'s PCM.ImportProducts sends a FormData as JSON: post the form with fetch)',
      'data',
    );
  }
  if (data.type !== 'product-import')
    throw new BadRequestError('data.type must be product-import', 'data.type');
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

/**
 * POST /pcm/products/import: the CSV file of the form's `file` part (up to 4 MiB), or the one uploaded to
 * the pre-signed URL a JSON body names by its `upload_id`, is imported by a `product-import` job, queued
 * (201, pending); the job validates the whole file, then applies it (docs/jobs.md).
 */
export const handler = createHandler('pcm-import-products', {}, async (event, context) => {
  const storeId = event.auth.storeId;
  const body = event.parsedBody;
  if (body === undefined) {
    throw new BadRequestError('send the CSV file as the field "file" of a multipart/form-data form', 'body');
  }
  // The body parser took a form (multipart/form-data) or JSON, nothing else.
  const isForm = /^\s*multipart\/form-data/i.test(event.headers['content-type'] ?? '');
  const fileKey = isForm
    ? await storeFormFile(storeId, body as unknown as UploadForm)
    : await uploadedFile(storeId, body);
  const job = await asWriteCaller(event, (caller) =>
    enqueueJob(storeId, 'product-import', {}, context.awsRequestId, {
      input: { file_key: fileKey, key_id: event.auth.keyId },
      caller,
    }),
  );
  return json(201, { data: renderJob(job) }, { Location: `${requestOrigin(event)}/pcm/jobs/${job.id}` });
});
