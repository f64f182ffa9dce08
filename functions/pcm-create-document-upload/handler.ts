import { pathParameter } from '../../lib/http/request';
import { created } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { createDocumentUpload, UPLOAD_CONTENT_TYPE } from '../../lib/pcm/publishing';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_CREATE_DOCUMENT_UPLOAD } from '../routes';

/**
 * POST /pcm/catalogs/{catalog_id}/document-uploads: a pre-signed URL to PUT a release document larger than
 * the inline `PUT …/document` takes (API Gateway stops at 10 MB) straight to the documents bucket, valid for
 * 15 minutes. The catalog's next release takes the uploaded document in. No body.
 */
export const handler = createHandler(
  'pcm-create-document-upload',
  PCM_CREATE_DOCUMENT_UPLOAD,
  {},
  async (event) => {
    const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
    const upload = await asWriteCaller(event, (caller) =>
      createDocumentUpload(event.auth.storeId, catalogId, caller),
    );
    return created({
      data: {
        type: 'catalog-document-upload',
        id: upload.id,
        upload_url: upload.upload_url,
        expires_at: upload.expires_at,
        // What the upload must send: the URL is signed for this method and this Content-Type.
        method: 'PUT',
        headers: { 'Content-Type': UPLOAD_CONTENT_TYPE },
      },
    });
  },
);
