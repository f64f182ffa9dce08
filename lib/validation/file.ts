import { BadRequestError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { assertValid, compileSchema, type Schema } from '../schema/index';

/**
 * The body of `POST /v2/files` (docs/files.md). The platform takes a `multipart/form-data` form whose one
 * field is `file_location`, the URL of a file hosted elsewhere (what the SDK's `Files.Link(url)` sends); this
 * API takes that form, the same field as a flat JSON object (`{"file_location": …}`, what `Files.Create(body,
 * 'application/json')` sends), or the JSON:API envelope `{"data": {"type": "file", "file_location": …}}`.
 * The URL is recorded, never fetched: the server makes no request to it.
 */
export const FILE_TYPE = 'file';
/** Longest accepted `file_location`, in characters (browsers and CDNs handle 2,048 everywhere). */
export const FILE_LOCATION_MAX = 2048;

export const FILE_LOCATION_SCHEMA: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: FILE_LOCATION_MAX,
  // No whitespace or control characters anywhere (a URL percent-encodes them), no lone surrogate.
  pattern: '^[^\\s\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]+$',
  'x-message': `must be an https URL of at most ${FILE_LOCATION_MAX} characters, without spaces or control characters`,
  description:
    'The https URL where the file is hosted (a CDN, say), without credentials. Recorded as sent and served as `link.href`; the server never fetches it.',
  examples: ['https://cdn.example.com/images/red-shirt.png'],
};

/** The form's fields, and the flat JSON body: `file_location` only. */
export const FILE_FORM_SCHEMA: Schema = {
  type: 'object',
  required: ['file_location'],
  properties: { file_location: FILE_LOCATION_SCHEMA },
  additionalProperties: false,
};

/** The JSON:API envelope. */
export const FILE_ENVELOPE_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['file_location'],
      properties: {
        type: { const: FILE_TYPE, description: 'When given, `file`.' },
        file_location: FILE_LOCATION_SCHEMA,
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** What the OpenAPI document publishes for a JSON body: either shape. */
export const NEW_FILE_JSON_SCHEMA: Schema = {
  anyOf: [FILE_FORM_SCHEMA, FILE_ENVELOPE_SCHEMA],
  description: '`{"file_location": …}` or `{"data": {"type": "file", "file_location": …}}`.',
};

const validateForm = compileSchema(FILE_FORM_SCHEMA);
const validateEnvelope = compileSchema(FILE_ENVELOPE_SCHEMA);

/** The fields the platform's form also knows, refused with the reason (rather than "is not allowed"). */
const REFUSED_FIELDS: Record<string, string> = {
  file: 'uploading file content is not supported; send file_location, the https URL where the file is hosted',
  public: 'public cannot be sent with file_location (every file this API records is public)',
};

/** 400 unless `location` is an absolute https URL without credentials; `source` names where it was. */
export function checkFileLocation(location: string, source: string): void {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new BadRequestError(
      `${source} must be an absolute https URL, such as https://cdn.example.com/a.png`,
      source,
    );
  }
  if (url.protocol !== 'https:') {
    throw new BadRequestError(
      `${source} must be an https URL; ${url.protocol.slice(0, -1)} URLs are not accepted`,
      source,
    );
  }
  // What a URL parser forgives (`https:host/a.png`, backslashes for slashes) a browser may not: refused.
  if (!/^https:\/\//i.test(location) || location.includes('\\')) {
    throw new BadRequestError(`${source} must be written https://host/path, with forward slashes`, source);
  }
  if (url.username !== '' || url.password !== '') {
    throw new BadRequestError(`${source} must not carry credentials (user:password@)`, source);
  }
}

/** The `file_location` of a `POST /v2/files` body (form fields or JSON), checked. */
export function parseNewFile(body: unknown): string {
  if (body === undefined) {
    throw new BadRequestError('a body with file_location is required', 'body');
  }
  const envelope =
    typeof body === 'object' && body !== null && !Array.isArray(body) && Object.hasOwn(body, 'data');
  const fields = envelope ? (body as { data: unknown }).data : body;
  const prefix = envelope ? 'data.' : '';
  if (typeof fields === 'object' && fields !== null) {
    for (const [field, reason] of Object.entries(REFUSED_FIELDS)) {
      if (Object.hasOwn(fields, field))
        throw new BadRequestError(`${prefix}${field}: ${reason}`, `${prefix}${field}`);
    }
  }
  const location = envelope
    ? assertValid<{ data: { file_location: string } }>(validateEnvelope, body).data.file_location
    : assertValid<{ file_location: string }>(validateForm, body).file_location;
  checkFileLocation(location, `${prefix}file_location`);
  return location;
}

/** A file id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseFileId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('file not found');
  return raw.toLowerCase();
}
