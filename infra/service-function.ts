import { join, resolve } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Code, LayerVersion, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { TableAccess } from '../functions/routes';
import type { TableRole } from '../lib/store/schema';
import { functionCode } from './function-code';
import { ROOT_CERTIFICATES_ENV, rootCertificatesLayerDir } from './root-certificates';

/** Environment variable that carries each table's name to the functions (read by lib/config). */
export const TABLE_ENV: Record<TableRole, string> = {
  keys: 'KEYS_TABLE',
  mappings: 'MAPPINGS_TABLE',
  products: 'PRODUCTS_TABLE',
  limits: 'LIMITS_TABLE',
};

export interface ServiceFunctionProps {
  /** Its code: `functions/<name>/handler.ts`, exporting `handler`. */
  name: string;
  description: string;
  memoryMb: number;
  timeoutSeconds: number;
  /** The tables it touches and how: each gets its name in TABLE_ENV and a least-privilege grant. */
  tableAccess: Partial<Record<TableRole, TableAccess>>;
  tables: Record<TableRole, ITable>;
  /** More environment variables (LOG_LEVEL and the table names are set here). */
  environment?: Record<string, string>;
}

/**
 * The layer of root certificates in OpenSSL's hashed layout (infra/root-certificates.ts), in the top stack,
 * made with its first function: every function, nested stacks' too, takes its roots from it.
 */
function rootCertificatesLayer(scope: Construct): LayerVersion {
  let stack = Stack.of(scope);
  while (stack.nestedStackParent) stack = stack.nestedStackParent;
  const existing = stack.node.tryFindChild('RootCertificates');
  if (existing instanceof LayerVersion) return existing;
  return new LayerVersion(stack, 'RootCertificates', {
    code: Code.fromAsset(
      rootCertificatesLayerDir(join(resolve('.'), 'node_modules/.cache/root-certificates')),
    ),
    compatibleRuntimes: [Runtime.NODEJS_22_X],
    compatibleArchitectures: [Architecture.ARM_64],
    description:
      "Node's root certificates, one file each named by its subject's hash: OpenSSL reads one when a chain needs it",
  });
}

/**
 * A Lambda with the defaults every function of the service shares, API operations and workflow steps alike:
 * nodejs22.x on arm64, the ESM bundle of infra/bundling.ts (built once for its content: infra/function-code.ts), JSON logs to its own log group kept 30 days,
 * X-Ray tracing, read or read-write grants on exactly the tables it names, and node's root certificates
 * read as its TLS connections need them, not all parsed at the first (the layer and ROOT_CERTIFICATES_ENV).
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const environment: Record<string, string> = {
      ...ROOT_CERTIFICATES_ENV,
      LOG_LEVEL: 'info',
      ...props.environment,
    };
    for (const role of Object.keys(props.tableAccess) as TableRole[]) {
      environment[TABLE_ENV[role]] = props.tables[role].tableName;
    }
    super(scope, id, {
      code: functionCode(scope, props.name),
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb,
      timeout: Duration.seconds(props.timeoutSeconds),
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      environment,
      layers: [rootCertificatesLayer(scope)],
    });
    for (const [role, access] of Object.entries(props.tableAccess) as [TableRole, TableAccess][]) {
      const table = props.tables[role];
      if (access === 'read') table.grantReadData(this);
      else table.grantReadWriteData(this);
    }
  }
}
