import { createHash, createHmac } from 'node:crypto';

/** AWS credentials as Lambda hands them to a function (or a local stand-in for DynamoDB Local). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
  /** When temporary credentials stop working; undefined for long-lived ones. */
  expiration?: Date | undefined;
}

export interface SignableRequest {
  method: string;
  host: string;
  /** Already URI-encoded (`encodePath`). */
  path: string;
  /** The canonical query string (`encodeQuery`), sent as it is signed; none when absent. */
  query?: string;
  /** Lower-case header names; `host` and `x-amz-date` are added by the signer. */
  headers: Record<string, string>;
  body: string | Uint8Array;
}

/** Text is hashed as UTF-8 (`update`'s default for strings). */
const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac('sha256', key).update(data, 'utf8').digest();

let cachedKey: { scope: string; secret: string; key: Buffer } | undefined;

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  const scope = `${date}/${region}/${service}`;
  if (cachedKey?.scope === scope && cachedKey.secret === secret) return cachedKey.key;
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  cachedKey = { scope, secret, key };
  return key;
}

/** Headers as SigV4 signs them: `name:value` lines in name order (values trimmed, spaces folded), and the names. */
function canonicalize(headers: Record<string, string>): { canonicalHeaders: string; signedHeaders: string } {
  const names = Object.keys(headers).sort();
  return {
    canonicalHeaders: names
      .map((name) => `${name}:${String(headers[name]).trim().replace(/\s+/g, ' ')}\n`)
      .join(''),
    signedHeaders: names.join(';'),
  };
}

/**
 * Signs a request with AWS Signature Version 4 (header-based): returns the headers to send, including
 * `x-amz-date`, `x-amz-security-token` when the credentials have one, and `authorization`. The path and
 * query must be sent exactly as given (DynamoDB only ever uses `/`; S3 gives `encodePath`'s and
 * `encodeQuery`'s). The payload is signed by `x-amz-content-sha256` when given, else by its hash.
 */
export function signRequest(
  request: SignableRequest,
  credentials: AwsCredentials,
  region: string,
  service: string,
  now: Date = new Date(),
): Record<string, string> {
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = { ...request.headers, host: request.host, 'x-amz-date': amzDate };
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  const { canonicalHeaders, signedHeaders } = canonicalize(headers);
  const payloadHash = headers['x-amz-content-sha256'] ?? sha256Hex(request.body);
  const canonicalRequest = [
    request.method,
    request.path,
    request.query ?? '',
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, date, region, service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** SHA-256 of a body (text as UTF-8), hex: the `x-amz-content-sha256` header value. */
export function payloadHash(body: string | Uint8Array): string {
  return sha256Hex(body);
}

/** RFC 3986 percent-encoding, as SigV4 canonicalizes names and values (`encodeURIComponent` leaves `!'()*`). */
const uriEncode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A path as S3 signs and receives it: each `/`-separated segment encoded once. */
export function encodePath(path: string): string {
  return path.split('/').map(uriEncode).join('/');
}

/** Query parameters as SigV4 canonicalizes them (names and values encoded, sorted by name), to send as signed. */
export function encodeQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .sort()
    .map((name) => `${uriEncode(name)}=${uriEncode(params[name] as string)}`)
    .join('&');
}

export interface PresignableRequest {
  method: string;
  /** `https://host[:port]`: where the URL points. */
  origin: string;
  /** The path, not yet encoded: each `/`-separated segment is encoded once (S3's canonical URI). */
  path: string;
  /** Query parameters signed with the URL besides SigV4's own. */
  query?: Record<string, string>;
  /**
   * Headers signed besides `host` (lower-case names): a request made with the URL must send them with
   * these values (e.g. the `content-type` an upload was granted).
   */
  headers?: Record<string, string>;
  expiresInSeconds: number;
}

/**
 * A pre-signed URL (SigV4 in the query string, `host` and the given headers signed, the payload unsigned)
 * as the AWS SDK's S3 presigner makes it, parameter for parameter: lets the API hand out an S3 link without
 * bundling the S3 client.
 */
export function presignUrl(
  request: PresignableRequest,
  credentials: AwsCredentials,
  region: string,
  service: string,
  now: Date,
): string {
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const date = amzDate.slice(0, 8);
  const scope = `${date}/${region}/${service}/aws4_request`;
  const { canonicalHeaders, signedHeaders } = canonicalize({
    ...request.headers,
    host: new URL(request.origin).host,
  });
  const query: Record<string, string> = {
    ...request.query,
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD',
    'X-Amz-Credential': `${credentials.accessKeyId}/${scope}`,
    'X-Amz-Date': amzDate,
    'X-Amz-Expires': String(request.expiresInSeconds),
    'X-Amz-SignedHeaders': signedHeaders,
  };
  if (credentials.sessionToken) query['X-Amz-Security-Token'] = credentials.sessionToken;
  const path = encodePath(request.path);
  const canonicalRequest = [
    request.method,
    path,
    encodeQuery(query),
    canonicalHeaders,
    signedHeaders,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(credentials.secretAccessKey, date, region, service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  return `${request.origin}${path}?${encodeQuery({ ...query, 'X-Amz-Signature': signature })}`;
}
