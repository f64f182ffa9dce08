import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { RuntimeEnvironment } from './runtime';

/**
 * Reads a JSON Lines object, one item a line, as a Map state's ItemReader does, from the object store the
 * functions are given: the runtime environment's S3_ENDPOINT (s3rver, which takes only its own key pair,
 * `LOCAL_S3_CREDENTIALS` of lib/store/object-urls.ts, not importable here) or, without one, S3 with the
 * environment's credentials (else the SDK's own chain).
 */
export function jsonLinesReader(env: RuntimeEnvironment) {
  let client: S3Client | undefined;
  const connect = () => {
    const endpoint = env.S3_ENDPOINT;
    const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
    return new S3Client({
      region: env.AWS_REGION ?? 'us-east-1',
      ...(endpoint !== undefined
        ? {
            endpoint,
            forcePathStyle: true,
            credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          }
        : accessKeyId && secretAccessKey
          ? { credentials: { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN } }
          : {}),
      // As the functions' client: no checksums S3 does not require (s3rver sends none).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  };
  return {
    async read(bucket: string, key: string): Promise<unknown[]> {
      client ??= connect();
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const text = (await answer.Body?.transformToString('utf-8')) ?? '';
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
    },
    close(): void {
      client?.destroy();
      client = undefined;
    },
  };
}
