import { deleteFile } from '../../lib/files/service';
import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseFileId } from '../../lib/validation/file';
import { createHandler } from '../create-handler';
import { DELETE_FILE } from '../routes';

/** DELETE /v2/files/{file_id}: deletes one file of the token's store (204); 404 for any other id. */
export const handler = createHandler('delete-file', DELETE_FILE, {}, async (event) => {
  const fileId = parseFileId(pathParameter(event, 'file_id'));
  await asWriteCaller(event, (caller) => deleteFile(event.auth.storeId, fileId, caller));
  return noContent();
});
