import { renderFileList } from '../../lib/files/render';
import { FILES_DEFAULT_LIMIT, listFiles, parseFileFilter } from '../../lib/files/service';
import { queryParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { LIST_FILES } from '../routes';

/**
 * GET /v2/files: a page of the store's files (creation order) with their total; `filter` (`eq`/`in` on
 * id, file_name and public) narrows the list and its count.
 */
export const handler = createHandler('list-files', LIST_FILES, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: FILES_DEFAULT_LIMIT });
  const filter = queryParameter(event, 'filter');
  const { files, total } = await listFiles(
    event.auth.storeId,
    page,
    filter === undefined ? undefined : parseFileFilter(filter),
  );
  return ok(renderFileList(files, total, page, requestOrigin(event), filter));
});
