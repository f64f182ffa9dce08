import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, type ITable, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { FUNCTIONS, ROUTES } from '../functions/routes';
import { TABLE_KEY, TABLE_ROLES, type TableRole, TTL_ATTRIBUTE, TTL_ROLES } from '../lib/store/schema';
import { ApiFunction } from './api-function';

export interface CommerceStackProps extends StackProps {
  /** Stage-wide throttling: steady requests per second and burst. */
  throttle?: { rateLimit: number; burstLimit: number };
}

/**
 * The whole service: four tables (keys, mappings, products, and limits for the shared rate-limit windows),
 * one Lambda per operation, and the HTTP API routing to them.
 */
export class CommerceStack extends Stack {
  readonly tables: Record<TableRole, ITable>;
  readonly functions: Record<string, ApiFunction> = {};

  constructor(scope: Construct, id: string, props: CommerceStackProps = {}) {
    super(scope, id, props);

    const tables = {} as Record<TableRole, ITable>;
    for (const role of TABLE_ROLES) {
      tables[role] = new Table(this, `${role[0]?.toUpperCase()}${role.slice(1)}Table`, {
        partitionKey: { name: TABLE_KEY.partitionKey, type: AttributeType.STRING },
        sortKey: { name: TABLE_KEY.sortKey, type: AttributeType.STRING },
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        removalPolicy: RemovalPolicy.RETAIN,
        // Tokens (keys) and rate-limit windows and failure counters (limits) expire through TTL.
        ...(TTL_ROLES.includes(role) ? { timeToLiveAttribute: TTL_ATTRIBUTE } : {}),
      });
    }
    this.tables = tables;

    const api = new HttpApi(this, 'HttpApi', {
      apiName: `${id}-api`,
      description: 'Commerce API: application keys, merchant realm mappings, catalog',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs) },
    });

    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const [name, definition] of Object.entries(FUNCTIONS)) {
      const fn = new ApiFunction(this, pascal(name), { name, definition, tables });
      this.functions[name] = fn;
      integrations.set(name, new HttpLambdaIntegration(`${pascal(name)}Integration`, fn));
    }
    for (const route of ROUTES) {
      const integration = integrations.get(route.function);
      if (!integration)
        throw new Error(`route ${route.method} ${route.path} names unknown function ${route.function}`);
      api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
    }

    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'Base URL of the commerce API' });
    for (const role of TABLE_ROLES) {
      new CfnOutput(this, `${pascal(role)}TableName`, { value: tables[role].tableName });
    }
  }
}

function pascal(name: string): string {
  return name
    .split('-')
    .map((part) => `${part[0]?.toUpperCase() ?? ''}${part.slice(1)}`)
    .join('');
}
