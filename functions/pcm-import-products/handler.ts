import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { importFileOf } from '../../lib/imports/request';
import { renderJob } from '../../lib/jobs/render';
import { enqueueJob } from '../../lib/jobs/service';
import { IMPORT_CONTENT_TYPE, importFileKey } from '../../lib/products/import';
import { createHandler } from '../create-handler';
import { PCM_IMPORT_PRODUCTS } from '../routes';

/**
 * POST /pcm/products/import: the CSV file of the form's `file` part (up to 4 MiB), or the one uploaded to
 * the pre-signed URL a JSON body names by its `upload_id`, is imported by a `product-import` job, queued
 * (201, pending); the job validates the whole file, then applies it (docs/jobs.md).
 */
export const handler = createHandler(
  'pcm-import-products',
  PCM_IMPORT_PRODUCTS,
  {},
  async (event, context) => {
    const storeId = event.auth.storeId;
    const fileKey = await importFileOf(storeId, event, {
      type: 'product-import',
      format: 'CSV',
      sdkCall: 'PCM.ImportProducts',
      contentType: IMPORT_CONTENT_TYPE,
      fileKey: importFileKey,
    });
    const job = await asWriteCaller(event, (caller) =>
      enqueueJob(storeId, 'product-import', {}, context.awsRequestId, {
        input: { file_key: fileKey, key_id: event.auth.keyId },
        caller,
      }),
    );
    return json(201, { data: renderJob(job) }, { Location: `${requestOrigin(event)}/pcm/jobs/${job.id}` });
  },
);
