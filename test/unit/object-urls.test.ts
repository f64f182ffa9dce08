import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type Config, loadConfig } from '../../lib/config/index';
import { createObjectStore, createS3Client } from '../../lib/store/object-store';
import { LOCAL_S3_CREDENTIALS, presignGet } from '../../lib/store/object-urls';

const SIGNED_AT = new Date('2026-01-02T03:04:05Z');
const KEY = 'deltas/a b/c+d~é!(x).jsonl.gz';
const AWS_ENV = {
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  AWS_SESSION_TOKEN: 'session/token+with=odd chars',
};

/** The URL the AWS SDK's own presigner makes for the same object, credentials and instant (a GET, or a PUT of a content type). */
async function sdkUrl(options: {
  region: string;
  bucket: string;
  endpoint?: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  putType?: string;
}): Promise<string> {
  const client = new S3Client({
    region: options.region,
    credentials: options.credentials,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint, forcePathStyle: true }),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    if (options.putType !== undefined) {
      const put = new PutObjectCommand({ Bucket: options.bucket, Key: KEY, ContentType: options.putType });
      return await getSignedUrl(client, put, {
        expiresIn: 3600,
        signingDate: SIGNED_AT,
        signableHeaders: new Set(['content-type']),
      });
    }
    return await getSignedUrl(client, new GetObjectCommand({ Bucket: options.bucket, Key: KEY }), {
      expiresIn: 3600,
      signingDate: SIGNED_AT,
    });
  } finally {
    client.destroy();
  }
}

describe('presignGet', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    jest.useFakeTimers({ now: SIGNED_AT.getTime() + 700, doNotFake: ['nextTick', 'setImmediate'] });
  });
  afterEach(() => {
    jest.useRealTimers();
    process.env = { ...saved };
  });

  it.each([
    { name: 'a bucket in us-east-1 (virtual-hosted)', region: 'us-east-1', bucket: 'commerce-documents' },
    { name: 'a bucket in eu-west-1 (virtual-hosted)', region: 'eu-west-1', bucket: 'my-documents' },
    { name: 'a bucket with dots (path-style)', region: 'eu-west-1', bucket: 'my.documents' },
  ])('signs AWS S3 URLs exactly as the AWS SDK does: $name', async ({ region, bucket }) => {
    Object.assign(process.env, AWS_ENV);
    const config = loadConfig({ ...AWS_ENV, AWS_REGION: region, DOCUMENTS_BUCKET: bucket });
    const { url, expires_at } = await presignGet(bucket, KEY, { expiresInSeconds: 3600 }, config);
    expect(url).toBe(
      await sdkUrl({
        region,
        bucket,
        credentials: {
          accessKeyId: AWS_ENV.AWS_ACCESS_KEY_ID,
          secretAccessKey: AWS_ENV.AWS_SECRET_ACCESS_KEY,
          sessionToken: AWS_ENV.AWS_SESSION_TOKEN,
        },
      }),
    );
    // Signed at the whole second: the URL works until exactly expires_at.
    expect(expires_at).toBe('2026-01-02T04:04:05.000Z');
  });

  it('signs a local object store URL path-style with its own key pair, as the SDK does', async () => {
    const config = loadConfig({
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      S3_ENDPOINT: 'http://127.0.0.1:9320',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8320',
    });
    const { url } = await presignGet('commerce-documents', KEY, { expiresInSeconds: 3600 }, config);
    expect(url.startsWith('http://127.0.0.1:9320/commerce-documents/deltas/a%20b/')).toBe(true);
    expect(url).toBe(
      await sdkUrl({
        region: 'us-east-1',
        bucket: 'commerce-documents',
        endpoint: 'http://127.0.0.1:9320',
        credentials: LOCAL_S3_CREDENTIALS,
      }),
    );
  });

  it('refuses a validity S3 does not accept', async () => {
    const config = loadConfig({ S3_ENDPOINT: 'http://127.0.0.1:9320' });
    for (const seconds of [0, 1.5, 7 * 24 * 3600 + 1]) {
      await expect(presignGet('b-1', KEY, { expiresInSeconds: seconds }, config)).rejects.toThrow(RangeError);
    }
  });
});

describe("the object store's presignPut", () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: SIGNED_AT.getTime() + 700, doNotFake: ['nextTick', 'setImmediate'] });
  });
  afterEach(() => jest.useRealTimers());

  const storeOf = (config: Config, bucket: string, credentials = LOCAL_S3_CREDENTIALS) =>
    createObjectStore({
      client: () => createS3Client(config, { credentials: async () => credentials }),
      bucket: () => bucket,
    });

  it.each([
    {
      name: 'in AWS (virtual-hosted, session token)',
      region: 'eu-west-1',
      bucket: 'my-documents',
      endpoint: undefined,
    },
    {
      name: 'locally (path-style)',
      region: 'us-east-1',
      bucket: 'commerce-documents',
      endpoint: 'http://127.0.0.1:9320',
    },
  ])(
    'signs the Content-Type of an upload exactly as the AWS SDK does: $name',
    async ({ region, bucket, endpoint }) => {
      const credentials =
        endpoint === undefined
          ? {
              accessKeyId: AWS_ENV.AWS_ACCESS_KEY_ID,
              secretAccessKey: AWS_ENV.AWS_SECRET_ACCESS_KEY,
              sessionToken: AWS_ENV.AWS_SESSION_TOKEN,
            }
          : LOCAL_S3_CREDENTIALS;
      const config = loadConfig({
        AWS_REGION: region,
        ...(endpoint === undefined ? {} : { S3_ENDPOINT: endpoint }),
      });
      const { url, expires_at } = await storeOf(config, bucket, credentials).presignPut(KEY, {
        expiresInSeconds: 3600,
        contentType: 'application/json',
      });
      expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
      expect(url).toBe(await sdkUrl({ region, bucket, endpoint, credentials, putType: 'application/json' }));
      expect(expires_at).toBe('2026-01-02T04:04:05.000Z');
    },
  );
});
