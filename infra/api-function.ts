import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { FunctionDefinition } from '../functions/routes';
import { CORS_VARY_ENV } from '../lib/http/cors';
import type { TableRole } from '../lib/store/schema';
import { ServiceFunction } from './service-function';

export { TABLE_ENV } from './service-function';

/** Lambda memory for every API function (see README "Performance" for the measurements behind it). */
export const FUNCTION_MEMORY_MB = 256;

/** API Gateway's integration timeout is 30 s; every operation answers well within 10. */
const FUNCTION_TIMEOUT_SECONDS = 10;

export interface ApiFunctionProps {
  name: string;
  definition: FunctionDefinition;
  tables: Record<TableRole, ITable>;
  /** The API allows listed origins (not `*`): its responses must say `Vary: Origin` (see lib/http/middleware.ts). */
  varyOnOrigin?: boolean;
}

/** One operation's Lambda with the shared defaults and least-privilege grants from the route table. */
export class ApiFunction extends ServiceFunction {
  readonly definition: FunctionDefinition;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id, {
      name: props.name,
      description: props.definition.description,
      memoryMb: FUNCTION_MEMORY_MB,
      timeoutSeconds: FUNCTION_TIMEOUT_SECONDS,
      tableAccess: props.definition.tables,
      tables: props.tables,
      environment: props.varyOnOrigin === true ? { [CORS_VARY_ENV]: 'Origin' } : {},
    });
    this.definition = props.definition;
  }
}
