import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { CorsHttpMethod, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AttributeType,
  BillingMode,
  type CfnTable,
  type ITable,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { apiCorsConfiguration, ROUTES, type RouteDefinition } from '../functions/routes';
import { WORKFLOW_STEPS, type WorkflowStepDefinition, type WorkflowStepName } from '../functions/workflow';
import { parseCorsOrigins } from '../lib/http/cors';
import { routeTag } from '../lib/openapi/document';
import type { OperationTag } from '../lib/openapi/operation';
import { TABLE_KEY, TABLE_ROLES, type TableRole, TTL_ATTRIBUTE, TTL_ROLES } from '../lib/store/schema';
import type { ApiFunction } from './api-function';
import { ApiPart } from './api-part';
import { ContextError } from './context-error';
import { Integrations } from './integrations';
import { Jobs } from './jobs';
import { type AlarmThresholds, Monitoring, pascal } from './monitoring';
import { Publishing } from './publishing';

/** Stage-wide throttling when none is given. */
export const DEFAULT_THROTTLE = { rateLimit: 500, burstLimit: 1000 } as const;

export interface CommerceStackProps extends StackProps {
  /** Stage-wide throttling: steady requests per second and burst (default 500 / 1000). */
  throttle?: { rateLimit: number; burstLimit: number };
  /** Alarm thresholds; each one left out keeps its default (infra/monitoring.ts, docs/deploy.md). */
  alarmThresholds?: Partial<AlarmThresholds>;
  /** An e-mail address subscribed to the alarm topic (it must confirm the subscription). */
  alarmEmail?: string;
  /**
   * Origins browsers may call the API from (default: the `corsOrigins` context value, a comma-separated
   * list or an array, else `*`).
   */
  corsOrigins?: string[];
  /**
   * The products table's warm write throughput, write units a second it serves at once (none by default:
   * an on-demand table starts at 4,000 and grows with use). Warming is billed once, per unit; a million-
   * product publish in under 5 minutes needs about 40,000 (docs/publishing.md, "The arithmetic for AWS").
   */
  productsWarmWrites?: number;
}

/** The least warm write throughput DynamoDB takes: what an on-demand table serves new. */
export const MIN_WARM_WRITES = 4000;

/** The route table's routes grouped by part of the API (their OpenAPI tag), in the table's order. */
export function routesByPart(routes: readonly RouteDefinition[]): Map<OperationTag, RouteDefinition[]> {
  const parts = new Map<OperationTag, RouteDefinition[]>();
  for (const route of routes) {
    const tag = routeTag(route);
    parts.set(tag, [...(parts.get(tag) ?? []), route]);
  }
  return parts;
}

/**
 * The whole service: four tables (keys, mappings, products, and limits for the shared rate-limit windows),
 * one Lambda per operation, the HTTP API routing to them, and the publishing workflow (its documents bucket,
 * step functions and state machine: infra/publishing.ts). The operations' functions and routes live in one
 * nested stack per part of the API (infra/api-part.ts), so no template nears CloudFormation's 500 resources.
 */
export class CommerceStack extends Stack {
  readonly tables: Record<TableRole, ITable>;
  readonly functions: Record<string, ApiFunction> = {};
  /** The nested stacks, one per part of the API (its OpenAPI tag), that hold its functions and routes. */
  readonly parts: Record<string, ApiPart> = {};
  readonly monitoring: Monitoring;
  readonly publishing: Publishing;
  readonly integrations: Integrations;

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
        // Tokens (keys), rate-limit windows and failure counters (limits) and webhook logs (products) expire.
        ...(TTL_ROLES.includes(role) ? { timeToLiveAttribute: TTL_ATTRIBUTE } : {}),
      });
    }
    this.tables = tables;
    if (props.productsWarmWrites !== undefined) {
      if (!Number.isInteger(props.productsWarmWrites) || props.productsWarmWrites < MIN_WARM_WRITES) {
        throw new ContextError(
          `productsWarmWrites must be a whole number of write units a second, at least ${MIN_WARM_WRITES}, got ${props.productsWarmWrites}`,
        );
      }
      (tables.products.node.defaultChild as CfnTable).warmThroughput = {
        writeUnitsPerSecond: props.productsWarmWrites,
      };
    }

    const cors = apiCorsConfiguration(
      parseCorsOrigins(
        props.corsOrigins ?? (this.node.tryGetContext('corsOrigins') as string | string[] | undefined),
        'corsOrigins',
      ),
    );
    const api = new HttpApi(this, 'HttpApi', {
      apiName: `${id}-api`,
      description: 'Commerce API: application keys, merchant realm mappings, catalog',
      createDefaultStage: false,
      // API Gateway answers preflights itself and adds these headers to every response.
      corsPreflight: {
        allowOrigins: [...cors.allowOrigins],
        allowMethods: cors.allowMethods.map(
          (method) => CorsHttpMethod[method as keyof typeof CorsHttpMethod],
        ),
        allowHeaders: [...cors.allowHeaders],
        exposeHeaders: [...cors.exposeHeaders],
        maxAge: Duration.seconds(cors.maxAgeSeconds),
      },
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? DEFAULT_THROTTLE,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs) },
      // Route-level metrics (requests, latency, errors per route) for the dashboard.
      detailedMetricsEnabled: true,
    });

    // After the tables and the API: the publishing workflow, the alarm topic, then the parts of the API.
    const publishing = new Publishing(this, 'Publishing', { tables, corsOrigins: cors.allowOrigins });
    this.publishing = publishing;
    this.monitoring = new Monitoring(this, 'Monitoring', {
      api,
      stageName: '$default',
      tables,
      routes: ROUTES,
      ...(props.alarmThresholds ? { thresholds: props.alarmThresholds } : {}),
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
      workflow: { stateMachine: publishing.stateMachine, writer: publishing.functions['release-write'] },
    });
    for (const [part, routes] of routesByPart(ROUTES)) {
      const nested = new ApiPart(this, `${pascal(part.toLowerCase().replace(/ /g, '-'))}Api`, {
        part,
        routes,
        api,
        tables,
        varyOnOrigin: !cors.allowOrigins.includes('*'),
        thresholds: this.monitoring.thresholds,
        alarmAction: this.monitoring.action,
      });
      this.parts[part] = nested;
      Object.assign(this.functions, nested.functions);
    }
    // Those that start releases or use the documents bucket get grants and names.
    for (const fn of Object.values(this.functions)) {
      if (fn.definition.workflow === 'start') publishing.grantStart(fn);
      if (fn.definition.bucket !== undefined) publishing.grantDocuments(fn, fn.definition.bucket);
    }

    const jobs = new Jobs(this, 'Jobs', { tables, alarmTopic: this.monitoring.topic, documents: publishing });
    for (const fn of Object.values(this.functions))
      if (fn.definition.jobs === 'enqueue') jobs.grantEnqueue(fn);

    // Webhooks: the functions and workflow steps that emit events may send to the deliveries queue.
    const integrations = new Integrations(this, 'Integrations', {
      tables,
      alarmTopic: this.monitoring.topic,
    });
    this.integrations = integrations;
    for (const fn of Object.values(this.functions))
      if (fn.definition.integrations === 'emit') integrations.grantEmit(fn);
    for (const [name, step] of Object.entries(WORKFLOW_STEPS) as [WorkflowStepName, WorkflowStepDefinition][])
      if (step.integrations === 'emit') integrations.grantEmit(publishing.functions[name]);
    integrations.addDashboardRow(this.monitoring.dashboard);

    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'Base URL of the commerce API' });
    for (const role of TABLE_ROLES) {
      new CfnOutput(this, `${pascal(role)}TableName`, { value: tables[role].tableName });
    }
    new CfnOutput(this, 'DocumentsBucketName', {
      value: publishing.bucket.bucketName,
      description: 'The bucket of release documents, their uploads and the publishing workflow files',
    });
    new CfnOutput(this, 'ReleaseStateMachineArn', {
      value: publishing.stateMachine.stateMachineArn,
      description: 'The publishing workflow (one execution a release)',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
  }
}
