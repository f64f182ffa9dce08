import { renderFile } from '../../lib/files/render';
import { fileOf } from '../../lib/files/service';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parseFileId } from '../../lib/validation/file';
import { createHandler } from '../create-handler';
import { GET_FILE } from '../routes';

/** GET /v2/files/{file_id}: one file of the token's store; 404 for any other id. */
export const handler = createHandler('get-file', GET_FILE, {}, async (event) => {
  const fileId = parseFileId(pathParameter(event, 'file_id'));
  const file = await fileOf(event.auth.storeId, fileId);
  return ok({ data: renderFile(file, requestOrigin(event)) });
});
