import { created } from '../../lib/http/response';
import { createImportUpload, IMPORT_CONTENT_TYPE } from '../../lib/products/import';
import { createHandler } from '../create-handler';
import { PCM_CREATE_IMPORT_UPLOAD } from '../routes';

/**
 * POST /pcm/products/import-uploads: a pre-signed URL to PUT an import file larger than the 4 MiB a form
 * takes (up to 50 MB) straight to the documents bucket, valid for 15 minutes; `POST /pcm/products/import`
 * with its `upload_id` then imports it. No body.
 */
export const handler = createHandler(
  'pcm-create-import-upload',
  PCM_CREATE_IMPORT_UPLOAD,
  {},
  async (event) => {
    const upload = await createImportUpload(event.auth.storeId);
    return created({
      data: {
        type: 'product-import-upload',
        id: upload.id,
        upload_url: upload.upload_url,
        expires_at: upload.expires_at,
        // What the upload must send: the URL is signed for this method and this Content-Type.
        method: 'PUT',
        headers: { 'Content-Type': IMPORT_CONTENT_TYPE },
      },
    });
  },
);
