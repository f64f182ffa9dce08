import { fileUrl, renderFile } from '../../lib/files/render';
import { createFile } from '../../lib/files/service';
import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseNewFile } from '../../lib/validation/file';
import { createHandler } from '../create-handler';
import { CREATE_FILE } from '../routes';

/**
 * POST /v2/files: records a file hosted elsewhere, from its `file_location` (a multipart form field, as the
 * SDK's `Files.Link` sends it, or JSON). The URL is recorded, never fetched.
 */
export const handler = createHandler('create-file', CREATE_FILE, {}, async (event) => {
  const location = parseNewFile(event.parsedBody);
  const file = await asWriteCaller(event, (caller) => createFile(event.auth.storeId, location, caller));
  const origin = requestOrigin(event);
  return json(201, { data: renderFile(file, origin) }, { Location: fileUrl(origin, file.id) });
});
