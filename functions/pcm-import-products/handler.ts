import { BadRequestError } from '../../lib/http/errors';
import type { UploadForm } from '../../lib/http/multipart';
import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { uuidv7 } from '../../lib/ids';
import { renderJob } from '../../lib/jobs/render';
import { enqueueJob } from '../../lib/jobs/service';
import { importFileKey } from '../../lib/products/import';
import { objectStore } from '../../lib/store/object-store';
import { createHandler } from '../create-handler';

/**
 * POST /pcm/products/import: the form's `file` (CSV) is stored in the documents bucket and a
 * `product-import` job queued to read it (201, pending); the job validates the whole file, then applies it.
 */
export const handler = createHandler('pcm-import-products', {}, async (event, context) => {
  const form = event.parsedBody as UploadForm | undefined;
  if (form === undefined) {
    throw new BadRequestError('send the CSV file as the field "file" of a multipart/form-data form', 'body');
  }
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
  const storeId = event.auth.storeId;
  const fileKey = importFileKey(storeId, uuidv7());
  await objectStore.put(fileKey, file, { contentType: 'text/csv' });
  const job = await asWriteCaller(event, (caller) =>
    enqueueJob(storeId, 'product-import', {}, context.awsRequestId, {
      input: { file_key: fileKey, key_id: event.auth.keyId },
      caller,
    }),
  );
  return json(201, { data: renderJob(job) }, { Location: `${requestOrigin(event)}/pcm/jobs/${job.id}` });
});
