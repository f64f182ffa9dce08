import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { type Config, getConfig } from '../config/index';

let documentClient: DynamoDBDocumentClient | undefined;

/** Builds a DynamoDB document client for the given configuration (keep-alive, endpoint override). */
export function createDocumentClient(config: Config): DynamoDBDocumentClient {
  const local = config.dynamodbEndpoint !== undefined;
  const client = new DynamoDBClient({
    region: config.region,
    ...(local
      ? { endpoint: config.dynamodbEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 4,
    requestHandler: new NodeHttpHandler({
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
      connectionTimeout: 2000,
      requestTimeout: 10000,
    }),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

/** The container's single DynamoDB document client, created on first use. */
export function getDocumentClient(): DynamoDBDocumentClient {
  documentClient ??= createDocumentClient(getConfig());
  return documentClient;
}

/** Drops the container's client (tests that switch endpoints). */
export function resetDocumentClient(): void {
  documentClient?.destroy();
  documentClient = undefined;
}
