import { type Config, getConfig } from '../config/index';
import { changeItems } from './catalog-changes';
import { DynamoDbClient, type DynamoDbClientOptions } from './dynamodb';
import type { AwsCredentials } from './sigv4';

let documentClient: DynamoDbClient | undefined;

/** Refresh temporary credentials this long before they expire. */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

/**
 * Where credentials come from: DynamoDB Local takes any; Lambda hands the function its role's
 * credentials in environment variables; elsewhere (the CLIs against AWS) the SDK's full provider chain
 * (profiles, SSO, ...) is loaded on first use. Lambda bundles alias that chain to the env-only provider.
 */
export function credentialsFor(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
): () => Promise<AwsCredentials> {
  if (config.dynamodbEndpoint !== undefined) {
    const local = {
      accessKeyId: env.AWS_ACCESS_KEY_ID || 'local',
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY || 'local',
    };
    return async () => local;
  }
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    const fromEnv = {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN || undefined,
    };
    return async () => fromEnv;
  }
  let current: Promise<AwsCredentials> | undefined;
  let expiresAt = Number.POSITIVE_INFINITY;
  return () => {
    if (!current || Date.now() > expiresAt - REFRESH_MARGIN_MS) {
      current = import('@aws-sdk/credential-provider-node').then(async ({ defaultProvider }) => {
        const credentials = await defaultProvider()();
        expiresAt = credentials.expiration?.getTime() ?? Number.POSITIVE_INFINITY;
        return credentials;
      });
      current.catch(() => {
        current = undefined;
      });
    }
    return current;
  };
}

/** Builds a DynamoDB client for the given configuration (keep-alive, endpoint override). */
export function createDocumentClient(
  config: Config,
  overrides: Partial<DynamoDbClientOptions> = {},
): DynamoDbClient {
  return new DynamoDbClient({
    region: config.region,
    endpoint: config.dynamodbEndpoint,
    credentials: credentialsFor(config),
    maxAttempts: 4,
    writeHook: (command) => {
      const items = changeItems(command, config.productsTable);
      return items.length === 0 ? undefined : { table: config.productsTable, items };
    },
    ...overrides,
  });
}

/** The container's single DynamoDB client, created on first use. */
export function getDocumentClient(): DynamoDbClient {
  documentClient ??= createDocumentClient(getConfig());
  return documentClient;
}

/** Makes `client` the container's client (tests: e.g. one with shorter retry delays). */
export function setDocumentClient(client: DynamoDbClient): void {
  if (documentClient !== client) documentClient?.destroy();
  documentClient = client;
}

/** Drops the container's client (tests that switch endpoints). */
export function resetDocumentClient(): void {
  documentClient?.destroy();
  documentClient = undefined;
}
