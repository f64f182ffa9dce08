import { type Config, getConfig } from '../config/index';
import { presignObject, s3Credentials, s3HttpFor } from './s3-http';

/*
 * Pre-signed URLs of the documents bucket, and deleting one object: the S3 requests that functions which
 * only hand out a link or delete one object make (lib/store/s3-http.ts, no S3 client): the same URL the
 * AWS SDK's presigner makes (a unit test compares them), for AWS S3 and for the local object store
 * (S3_ENDPOINT, path-style, signed with its one key pair).
 */

export { LOCAL_S3_CREDENTIALS } from './s3-http';

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

/**
 * Signs `sign` at a whole second (SigV4 dates have whole seconds) so that `expires_at` is exactly the
 * URL's. Signed with temporary credentials, as in Lambda, the URL also stops working when they expire.
 */
export async function presignedFor(
  expiresInSeconds: number,
  sign: (signingDate: Date) => Promise<string>,
): Promise<{ url: string; expires_at: string }> {
  checkPresignSeconds(expiresInSeconds);
  const signingDate = new Date(Math.floor(Date.now() / 1000) * 1000);
  const url = await sign(signingDate);
  return { url, expires_at: new Date(signingDate.getTime() + expiresInSeconds * 1000).toISOString() };
}

/**
 * A pre-signed URL that lets anyone holding it GET `key` of `bucket` until `expires_at`. It grants what
 * the signer's role may do (s3:GetObject).
 */
export function presignGet(
  bucket: string,
  key: string,
  options: { expiresInSeconds: number },
  config: Config = getConfig(),
): Promise<{ url: string; expires_at: string }> {
  const { expiresInSeconds } = options;
  return presignedFor(expiresInSeconds, async (signingDate) =>
    presignObject(
      config,
      await s3Credentials(config),
      bucket,
      { method: 'GET', operation: 'GetObject', key, expiresInSeconds },
      signingDate,
    ),
  );
}

/**
 * Deletes `key` of `bucket` (S3's DeleteObject): a missing key is not an error, as in S3. Throws S3's
 * error (its code as `name`) when refused.
 */
export async function deleteObject(bucket: string, key: string, config: Config = getConfig()): Promise<void> {
  await s3HttpFor(config).sendForHeaders(bucket, { operation: 'DeleteObject', method: 'DELETE', key });
}
