import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { importFileOf } from '../../lib/imports/request';
import { renderJob } from '../../lib/jobs/render';
import { enqueueJob } from '../../lib/jobs/service';
import { PRICE_IMPORT_CONTENT_TYPE, priceImportFileKey } from '../../lib/prices/import';
import { createHandler } from '../create-handler';
import { PCM_IMPORT_PRICES } from '../routes';

/**
 * POST /pcm/pricebooks/import: the JSONL file (gzipped or not) of the form's `file` part (up to 4 MiB), or
 * the one uploaded to a pre-signed URL of `POST /pcm/products/import-uploads` a JSON body names by its
 * `upload_id`, is imported by a `price-import` job, queued (201, pending); the job validates the whole file,
 * then applies it (docs/price-books.md).
 */
export const handler = createHandler('pcm-import-prices', PCM_IMPORT_PRICES, {}, async (event, context) => {
  const storeId = event.auth.storeId;
  const fileKey = await importFileOf(storeId, event, {
    type: 'price-import',
    format: 'JSONL',
    sdkCall: 'PriceBooks.ImportProductPrices',
    contentType: PRICE_IMPORT_CONTENT_TYPE,
    fileKey: priceImportFileKey,
  });
  const job = await asWriteCaller(event, (caller) =>
    enqueueJob(storeId, 'price-import', {}, context.awsRequestId, {
      input: { file_key: fileKey, key_id: event.auth.keyId },
      caller,
    }),
  );
  return json(201, { data: renderJob(job) }, { Location: `${requestOrigin(event)}/pcm/jobs/${job.id}` });
});
