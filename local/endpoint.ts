/** Where the local CLIs find DynamoDB when DYNAMODB_ENDPOINT is unset: the database of `npm start`. */
export const LOCAL_DYNAMODB_ENDPOINT = 'http://127.0.0.1:8000';

/**
 * Resolves DYNAMODB_ENDPOINT for a local CLI before any configuration is read: `aws` means the real
 * DynamoDB of AWS_REGION (the variable is removed, so the SDK's own endpoint is used), unset means
 * `npm start`'s DynamoDB Local, anything else is used as given.
 */
export function useDynamoDbEndpointFromEnv(env: NodeJS.ProcessEnv = process.env): void {
  if (env.DYNAMODB_ENDPOINT === 'aws') delete env.DYNAMODB_ENDPOINT;
  else if (env.DYNAMODB_ENDPOINT === undefined) env.DYNAMODB_ENDPOINT = LOCAL_DYNAMODB_ENDPOINT;
}
