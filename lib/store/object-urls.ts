import { type Config, getConfig } from '../config/index';
import { credentialsFor } from './client';
import { type AwsCredentials, presignUrl } from './sigv4';

/*
 * Pre-signed URLs of the documents bucket, made without the S3 client (lib/store/object-store.ts), which
 * would add about 300 KiB to the bundle of every function that only hands out a link or deletes one object
 * (docs/performance.md): the same URL the SDK's presigner makes (a unit test compares them), for AWS S3 and
 * for the local object store (S3_ENDPOINT, path-style, signed with its one key pair).
 */

/**
 * s3rver's (local/object-store-local.ts) only key pair: it refuses any other access key id, so a local
 * endpoint is always signed with it, whatever AWS_ACCESS_KEY_ID says (the harness sets `local` there).
 */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** S3 refuses pre-signed URLs valid for longer than 7 days. */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/** Throws a RangeError unless `seconds` is a validity S3 accepts for a pre-signed URL. */
export function checkPresignSeconds(seconds: number): void {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PRESIGN_SECONDS) {
    throw new RangeError(
      `expiresInSeconds must be an integer from 1 to ${MAX_PRESIGN_SECONDS}, got ${seconds}`,
    );
  }
}

/** The container's credentials provider, built once per configuration (the CLIs' provider chain caches). */
let provider: { config: Config; credentials: () => Promise<AwsCredentials> } | undefined;

function credentialsOf(config: Config): Promise<AwsCredentials> {
  if (config.s3Endpoint !== undefined) return Promise.resolve(LOCAL_S3_CREDENTIALS);
  if (provider?.config !== config) {
    // The environment's credentials first, as the S3 client takes them (createS3Client).
    provider = { config, credentials: credentialsFor({ ...config, dynamodbEndpoint: undefined }) };
  }
  return provider.credentials();
}

/** Where a key of `bucket` is: the local endpoint path-style, else S3's virtual-hosted style (path-style for a bucket with dots, as the SDK does: its name would not match the TLS certificate). */
function objectAddress(config: Config, bucket: string, key: string): { origin: string; path: string } {
  if (config.s3Endpoint !== undefined) {
    return { origin: new URL(config.s3Endpoint).origin, path: `/${bucket}/${key}` };
  }
  if (bucket.includes('.')) {
    return { origin: `https://s3.${config.region}.amazonaws.com`, path: `/${bucket}/${key}` };
  }
  return { origin: `https://${bucket}.s3.${config.region}.amazonaws.com`, path: `/${key}` };
}

/** A pre-signed URL of `key` of `bucket` for `method` (the S3 operation `operation`), valid from the whole second. */
async function presign(
  method: 'GET' | 'DELETE',
  operation: string,
  bucket: string,
  key: string,
  expiresInSeconds: number,
  config: Config,
): Promise<{ url: string; expires_at: string }> {
  checkPresignSeconds(expiresInSeconds);
  const signingDate = new Date(Math.floor(Date.now() / 1000) * 1000);
  const url = presignUrl(
    { method, ...objectAddress(config, bucket, key), query: { 'x-id': operation }, expiresInSeconds },
    await credentialsOf(config),
    config.region,
    's3',
    signingDate,
  );
  return { url, expires_at: new Date(signingDate.getTime() + expiresInSeconds * 1000).toISOString() };
}

/**
 * A pre-signed URL that lets anyone holding it GET `key` of `bucket` until `expires_at` (signed at a whole
 * second, so that `expires_at` is exactly the URL's). Signed with temporary credentials, as in Lambda, the
 * URL also stops working when they expire; it grants what the signer's role may do (s3:GetObject).
 */
export function presignGet(
  bucket: string,
  key: string,
  options: { expiresInSeconds: number },
  config: Config = getConfig(),
): Promise<{ url: string; expires_at: string }> {
  return presign('GET', 'GetObject', bucket, key, options.expiresInSeconds, config);
}

/** How long the URL of a DELETE this process sends at once is valid: only for that request. */
const DELETE_URL_SECONDS = 60;

/**
 * Deletes `key` of `bucket` (S3's DeleteObject, through a URL signed for the request): a missing key is not
 * an error, as in S3. Throws with S3's status and code when refused.
 */
export async function deleteObject(bucket: string, key: string, config: Config = getConfig()): Promise<void> {
  const { url } = await presign('DELETE', 'DeleteObject', bucket, key, DELETE_URL_SECONDS, config);
  const response = await fetch(url, { method: 'DELETE' });
  const body = await response.text();
  if (!response.ok) {
    const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1] ?? 'no error code';
    throw new Error(`the object store refused to delete ${key}: ${response.status} ${code}`);
  }
}
