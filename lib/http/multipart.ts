import { BadRequestError } from './errors';
import { bodyText } from './utf8';

/**
 * The smallest `multipart/form-data` reader the API needs: text fields only, from a body already in memory
 * (at most MAX_BODY_BYTES, checked before this runs). A part that carries a file (a `filename` in its
 * `Content-Disposition`) is refused by name: this API records where a file is hosted, it stores no file
 * content. Every refusal is a 400 whose `source` is `body` or the field's name.
 */

/** At most this many parts: the one route that takes a form needs one field. */
export const MAX_MULTIPART_PARTS = 8;

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
/** RFC 2046's boundary: 1 to 70 characters of a restricted set, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The `boundary` parameter of a `multipart/form-data` Content-Type, quoted or not. */
export function multipartBoundary(header: string | undefined): string {
  const match = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(header ?? '');
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined || !BOUNDARY.test(boundary)) {
    throw new BadRequestError(
      'a multipart/form-data body needs a boundary parameter of 1 to 70 characters in its Content-Type',
      'body',
    );
  }
  return boundary;
}

const malformed = (why: string) =>
  new BadRequestError(`request body is not a valid multipart form: ${why}`, 'body');

/** The name and (for a file part) filename of a part's `Content-Disposition: form-data` header. */
function disposition(headers: string): { name: string; file: boolean } {
  const line = headers
    .split('\r\n')
    .find((header) => /^content-disposition\s*:/i.test(header))
    ?.replace(/^content-disposition\s*:/i, '');
  if (line === undefined || !/^\s*form-data\s*(;|$)/i.test(line)) {
    throw malformed('each part needs a Content-Disposition: form-data header');
  }
  const name = /;\s*name\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(line);
  const value = name?.[1] ?? name?.[2];
  if (value === undefined || value === '') throw malformed('each part needs a name');
  return { name: value, file: /;\s*filename\*?\s*=/i.test(line) };
}

/** A form's parts in order: the name, whether it carries a file, its value's bytes and their offset. */
function formParts(
  bytes: Buffer,
  contentTypeHeader: string | undefined,
): { name: string; file: boolean; value: Buffer; offset: number }[] {
  const boundary = multipartBoundary(contentTypeHeader);
  const delimiter = Buffer.from(`--${boundary}`);
  const first = bytes.indexOf(delimiter);
  // The first delimiter opens the body or follows a preamble line.
  if (first === -1 || (first > 0 && bytes.indexOf(CRLF, first - 2) !== first - 2)) {
    throw malformed(`no part starts with the boundary "--${boundary}"`);
  }
  const next = Buffer.concat([CRLF, delimiter]);
  const parts: { name: string; file: boolean; value: Buffer; offset: number }[] = [];
  const names = new Set<string>();
  let at = first + delimiter.length;
  for (let count = 0; ; count += 1) {
    if (bytes.subarray(at, at + 2).toString('latin1') === '--') return parts;
    if (bytes.indexOf(CRLF, at) !== at) throw malformed('a boundary line must end with CRLF');
    const end = bytes.indexOf(next, at);
    if (end === -1) throw malformed('the body does not end with the closing boundary');
    if (count === MAX_MULTIPART_PARTS) throw malformed(`at most ${MAX_MULTIPART_PARTS} parts are allowed`);
    const start = at + CRLF.length;
    const part = bytes.subarray(start, end);
    const split = part.indexOf(HEADER_END);
    const { name, file } = disposition((split === -1 ? part : part.subarray(0, split)).toString('latin1'));
    if (split === -1) throw malformed(`part ${name} has no blank line after its headers`);
    if (names.has(name)) throw new BadRequestError(`field ${name} is repeated`, name);
    names.add(name);
    const valueStart = split + HEADER_END.length;
    parts.push({ name, file, value: part.subarray(valueStart), offset: start + valueStart });
    at = end + next.length;
  }
}

/**
 * The text fields of a `multipart/form-data` body as one object, as a form-encoded body parses, reading
 * its parts in order: 400 for a part that carries a file (this API stores no file content), for a field
 * sent twice, and for a value that is not UTF-8 (naming the byte's offset in the body).
 */
export function multipartFields(
  bytes: Buffer,
  contentTypeHeader: string | undefined,
): Record<string, string> {
  const fields = new Map<string, string>();
  for (const { name, file, value, offset } of formParts(bytes, contentTypeHeader)) {
    if (file) {
      throw new BadRequestError(
        `part ${name} carries a file: uploading file content is not supported; send file_location, the https URL where the file is hosted`,
        name,
      );
    }
    // Own properties only, whatever the names (`__proto__` included).
    fields.set(name, bodyText(value, offset));
  }
  return Object.fromEntries(fields);
}

/** A form that uploads files: its text fields (strict UTF-8) and its files' bytes, by part name. */
export interface UploadForm {
  fields: Record<string, string>;
  files: Record<string, Buffer>;
}

/** The text fields and file parts of a `multipart/form-data` body (the 400s of `multipartFields` but the file one). */
export function multipartUpload(bytes: Buffer, contentTypeHeader: string | undefined): UploadForm {
  const fields = new Map<string, string>();
  const files = new Map<string, Buffer>();
  for (const { name, file, value, offset } of formParts(bytes, contentTypeHeader)) {
    if (file) files.set(name, value);
    else fields.set(name, bodyText(value, offset));
  }
  return { fields: Object.fromEntries(fields), files: Object.fromEntries(files) };
}
