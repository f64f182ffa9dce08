import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { FunctionDefinition } from '../functions/routes';
import { CORS_VARY_ENV } from '../lib/http/cors';
import type { TableRole } from '../lib/store/schema';
import { BUNDLING } from './bundling';

/** Lambda memory for every API function (see README "Performance" for the measurements behind it). */
export const FUNCTION_MEMORY_MB = 256;

/** Environment variable that carries each table's name to the functions (read by lib/config). */
export const TABLE_ENV: Record<TableRole, string> = {
  keys: 'KEYS_TABLE',
  mappings: 'MAPPINGS_TABLE',
  products: 'PRODUCTS_TABLE',
  limits: 'LIMITS_TABLE',
};

export interface ApiFunctionProps {
  name: string;
  definition: FunctionDefinition;
  tables: Record<TableRole, ITable>;
  /** The API allows listed origins (not `*`): its responses must say `Vary: Origin` (see lib/http/middleware.ts). */
  varyOnOrigin?: boolean;
}

/** One operation's Lambda with the shared defaults and least-privilege grants from the route table. */
export class ApiFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const environment: Record<string, string> = { LOG_LEVEL: 'info' };
    if (props.varyOnOrigin === true) environment[CORS_VARY_ENV] = 'Origin';
    for (const role of Object.keys(props.definition.tables) as TableRole[]) {
      environment[TABLE_ENV[role]] = props.tables[role].tableName;
    }
    super(scope, id, {
      entry: `functions/${props.name}/handler.ts`,
      handler: 'handler',
      description: props.definition.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: FUNCTION_MEMORY_MB,
      timeout: Duration.seconds(10),
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      environment,
      bundling: {
        format: OutputFormat.ESM,
        minify: BUNDLING.minify,
        target: BUNDLING.target,
        mainFields: [...BUNDLING.mainFields],
        banner: BUNDLING.banner,
        externalModules: [],
        sourceMap: false,
        esbuildArgs: Object.fromEntries(
          Object.entries(BUNDLING.alias).map(([from, to]) => [`--alias:${from}`, to]),
        ),
      },
    });
    for (const [role, access] of Object.entries(props.definition.tables) as [TableRole, string][]) {
      const table = props.tables[role];
      if (access === 'read') table.grantReadData(this);
      else table.grantReadWriteData(this);
    }
  }
}
