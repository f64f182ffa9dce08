import { type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import type { FileRecord } from '../store/file-repository';

/**
 * The platform's file resource (`type: "file"`, docs/files.md), as the SDK's `Files` reads it. The server
 * never fetches a file's URL, so it knows neither its size nor its dimensions: `file_size` is 0 and
 * `meta.dimensions` is absent (the SDK types it optional), rather than made up.
 */

export const fileUrl = (origin: string, fileId: string) => `${origin}/v2/files/${fileId}`;

export function renderFile(file: FileRecord, origin: string): Record<string, unknown> {
  return {
    type: 'file',
    id: file.id,
    link: { href: file.file_location },
    file_name: file.file_name,
    mime_type: file.mime_type,
    file_size: 0,
    public: true,
    meta: { timestamps: { created_at: file.created_at } },
    links: { self: fileUrl(origin, file.id) },
  };
}

/**
 * A page of files in the platform's list shape: `data`, `links` (`self`, `first`, `last`, `prev`, `next`;
 * `filter` kept in each) and `meta.page` / `meta.results.total`.
 */
export function renderFileList(
  files: FileRecord[],
  total: number,
  page: PageRequest,
  origin: string,
  filter: string | undefined,
): Record<string, unknown> {
  const extra: Record<string, string> = filter === undefined ? {} : { filter };
  return {
    data: files.map((file) => renderFile(file, origin)),
    links: pageLinks(page, total, (offset, limit) => pageUrl(`${origin}/v2/files`, offset, limit, extra)),
    meta: { page: pageMeta(page, total), results: { total } },
  };
}
