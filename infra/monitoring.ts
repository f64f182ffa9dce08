import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  type MetricOptions,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { RouteDefinition } from '../functions/routes';
import { METRIC, METRIC_DIMENSIONS, METRICS_NAMESPACE } from '../lib/metrics/names';

/** When an alarm fires. Each is compared over one 5-minute period; defaults in DEFAULT_ALARM_THRESHOLDS. */
export interface AlarmThresholds {
  /** Failed invocations of one function (errors the function did not turn into a response). */
  functionErrors: number;
  /** Throttled invocations of one function (account or reserved concurrency exhausted). */
  functionThrottles: number;
  /** p99 duration of one function, in milliseconds (the functions time out at 10 s). */
  functionP99DurationMs: number;
  /** The API's 5xx responses as a percentage of its requests. */
  api5xxRatePercent: number;
  /** The API's p99 latency (gateway in to gateway out), in milliseconds. */
  apiP99LatencyMs: number;
  /** Throttled requests of one table (any operation). */
  tableThrottledRequests: number;
  /** DynamoDB system errors (HTTP 500) of one table (any operation). */
  tableSystemErrors: number;
  /** Requests refused with 429 by the stores' rate limits (all stores). */
  rateLimitedRequests: number;
  /** Publishing workflow executions that failed (a step failed, or the document was invalid). */
  releaseFailedExecutions: number;
  /** Publishing workflow executions that ran past their timeout (2 hours). */
  releaseTimedOutExecutions: number;
  /** Failed invocations of the workflow's writer (each is retried; a chunk fails the release after 3). */
  releaseWriterErrors: number;
}

/** Defaults, documented in docs/deploy.md ("Alarms and dashboard"). */
export const DEFAULT_ALARM_THRESHOLDS: AlarmThresholds = {
  functionErrors: 1,
  functionThrottles: 1,
  functionP99DurationMs: 3000,
  api5xxRatePercent: 1,
  apiP99LatencyMs: 2000,
  tableThrottledRequests: 1,
  tableSystemErrors: 1,
  rateLimitedRequests: 100,
  releaseFailedExecutions: 1,
  releaseTimedOutExecutions: 1,
  releaseWriterErrors: 1,
};

const PERIOD = Duration.minutes(5);

/** The operations the functions call, for the tables' per-operation throttling and error metrics. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.QUERY,
  Operation.BATCH_GET_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.TRANSACT_GET_ITEMS,
];

export interface MonitoringProps {
  api: HttpApi;
  stageName: string;
  tables: Record<string, ITable>;
  routes: readonly RouteDefinition[];
  thresholds?: Partial<AlarmThresholds>;
  /** Subscribed to the alarm topic when given. */
  alarmEmail?: string;
  /** The publishing workflow (infra/publishing.ts): its executions and its writer function. */
  workflow?: { stateMachine: IStateMachine; writer: IFunction };
}

/**
 * An alarm as the stack's alarms are: at or over `threshold` in one period (missing data is not breaching),
 * notifying `action` when it fires and when it clears.
 */
export function notifyingAlarm(
  scope: Construct,
  id: string,
  props: { metric: IMetric; threshold: number; description: string; action: SnsAction },
): Alarm {
  const created = new Alarm(scope, id, {
    metric: props.metric,
    threshold: props.threshold,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: props.description,
  });
  created.addAlarmAction(props.action);
  created.addOkAction(props.action);
  return created;
}

/**
 * Alarms on what needs an operator across the service (the API, the tables, rate limiting, the publishing
 * workflow), all notifying one SNS topic (each API function's own alarms sit beside it: `functionAlarms`),
 * and one dashboard with requests, latency and errors per route and a row for the publishing workflow.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  /** What every alarm does, on alarm and on recovery: notify the topic. */
  readonly action: SnsAction;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  readonly thresholds: AlarmThresholds;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const thresholds = { ...DEFAULT_ALARM_THRESHOLDS, ...props.thresholds };
    this.thresholds = thresholds;

    // A customer-managed key: CloudWatch can publish to a topic encrypted with it (not with aws/sns).
    const key = new Key(this, 'AlarmTopicKey', {
      enableKeyRotation: true,
      description: 'Encrypts the alarm notifications topic',
      // It protects only notifications in flight: nothing to keep once the stack is gone.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'AlarmTopic', { masterKey: key, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    this.action = action;

    const alarm = (alarmId: string, metric: IMetric, threshold: number, description: string) => {
      this.alarms.push(notifyingAlarm(this, alarmId, { metric, threshold, description, action }));
    };

    const apiMetric = (metricName: string, statistic: string) =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiId: props.api.apiId, Stage: props.stageName },
        statistic,
        period: PERIOD,
      });
    alarm(
      'Api5xxRate',
      new MathExpression({
        expression: '100 * errors / MAX([requests, 1])',
        usingMetrics: { errors: apiMetric('5xx', 'Sum'), requests: apiMetric('Count', 'Sum') },
        label: '5xx rate (%)',
        period: PERIOD,
      }),
      thresholds.api5xxRatePercent,
      'API: 5xx responses as a percentage of requests',
    );
    alarm('ApiP99Latency', apiMetric('Latency', 'p99'), thresholds.apiP99LatencyMs, 'API: p99 latency (ms)');

    for (const [role, table] of Object.entries(props.tables)) {
      const id = `${pascal(role)}Table`;
      alarm(
        `${id}ThrottledRequests`,
        table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }),
        thresholds.tableThrottledRequests,
        `${role} table: throttled requests`,
      );
      alarm(
        `${id}SystemErrors`,
        table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: PERIOD }),
        thresholds.tableSystemErrors,
        `${role} table: DynamoDB system errors`,
      );
    }

    const ownMetric = (metricName: string) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { ...METRIC_DIMENSIONS },
        statistic: 'Sum',
        period: PERIOD,
      });
    alarm(
      'RateLimitedRequests',
      ownMetric(METRIC.rateLimitedRequests),
      thresholds.rateLimitedRequests,
      'Requests refused with 429 by the stores’ rate limits',
    );

    const workflow = props.workflow;
    if (workflow) {
      alarm(
        'ReleaseExecutionsFailed',
        workflow.stateMachine.metricFailed({ period: PERIOD, statistic: 'Sum' }),
        thresholds.releaseFailedExecutions,
        'Publishing workflow: failed executions',
      );
      alarm(
        'ReleaseExecutionsTimedOut',
        workflow.stateMachine.metricTimedOut({ period: PERIOD, statistic: 'Sum' }),
        thresholds.releaseTimedOutExecutions,
        'Publishing workflow: timed-out executions',
      );
      alarm(
        'ReleaseWriterErrors',
        workflow.writer.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        thresholds.releaseWriterErrors,
        'Publishing workflow: failed invocations of the writer',
      );
    }

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `${Stack.of(this).stackName}-api` });
    const routeMetric = (route: RouteDefinition, metricName: string, statistic: string, label: string) =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        // Route-level metrics (detailed metrics on the stage): Resource is the route's path.
        dimensionsMap: {
          ApiId: props.api.apiId,
          Stage: props.stageName,
          Method: route.method,
          Resource: route.path,
        },
        statistic,
        period: Duration.minutes(1),
        label,
      });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          '# Commerce API\nPer route: requests, latency p50/p99, 4xx and 5xx. Alarms notify the alarm topic.',
        width: 24,
        height: 2,
      }),
    );
    for (const route of props.routes) {
      const title = `${route.method} ${route.path}`;
      this.dashboard.addWidgets(
        new GraphWidget({
          title: `${title}: requests`,
          left: [routeMetric(route, 'Count', 'Sum', 'requests')],
          width: 8,
        }),
        new GraphWidget({
          title: `${title}: latency (ms)`,
          left: [routeMetric(route, 'Latency', 'p50', 'p50'), routeMetric(route, 'Latency', 'p99', 'p99')],
          width: 8,
        }),
        new GraphWidget({
          title: `${title}: errors`,
          left: [routeMetric(route, '4xx', 'Sum', '4xx'), routeMetric(route, '5xx', 'Sum', '5xx')],
          width: 8,
        }),
      );
    }
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Rate limiting and authentication',
        left: [ownMetric(METRIC.rateLimitedRequests), ownMetric(METRIC.authenticationFailures)],
        width: 12,
      }),
      new GraphWidget({
        title: 'Catalog cache hit ratio (%)',
        left: [
          new MathExpression({
            expression: '100 * hits / MAX([hits + misses, 1])',
            usingMetrics: {
              hits: ownMetric(METRIC.catalogCacheHits),
              misses: ownMetric(METRIC.catalogCacheMisses),
            },
            label: 'hit ratio (%)',
            period: PERIOD,
          }),
        ],
        width: 12,
      }),
    );
    if (workflow) {
      const perMinute = (statistic: string, label: string): MetricOptions => ({
        period: Duration.minutes(1),
        statistic,
        label,
      });
      const graph = (title: string, left: IMetric[]) => new GraphWidget({ title, left, width: 8 });
      const { stateMachine, writer } = workflow;
      this.dashboard.addWidgets(
        new TextWidget({
          markdown:
            '# Publishing workflow\nExecutions of the release state machine, and its writer (one chunk a call).',
          width: 24,
          height: 2,
        }),
        graph('Release executions', [
          stateMachine.metricStarted(perMinute('Sum', 'started')),
          stateMachine.metricSucceeded(perMinute('Sum', 'succeeded')),
          stateMachine.metricFailed(perMinute('Sum', 'failed')),
          stateMachine.metricTimedOut(perMinute('Sum', 'timed out')),
        ]),
        graph('Writer: invocations and errors', [
          writer.metricInvocations(perMinute('Sum', 'invocations')),
          writer.metricErrors(perMinute('Sum', 'errors')),
          writer.metricThrottles(perMinute('Sum', 'throttles')),
        ]),
        graph('Writer: duration (ms)', [
          writer.metricDuration(perMinute('p50', 'p50')),
          writer.metricDuration(perMinute('p99', 'p99')),
        ]),
      );
    }
  }
}

/**
 * One API function's alarms, created beside it (in its part's nested stack): failed invocations,
 * throttled invocations and p99 duration, at the thresholds given.
 */
export function functionAlarms(
  scope: Construct,
  name: string,
  fn: IFunction,
  thresholds: AlarmThresholds,
  action: SnsAction,
): Alarm[] {
  const id = pascal(name);
  return [
    notifyingAlarm(scope, `${id}Errors`, {
      metric: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
      threshold: thresholds.functionErrors,
      description: `${name}: failed invocations`,
      action,
    }),
    notifyingAlarm(scope, `${id}Throttles`, {
      metric: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
      threshold: thresholds.functionThrottles,
      description: `${name}: throttled invocations`,
      action,
    }),
    notifyingAlarm(scope, `${id}P99Duration`, {
      metric: fn.metricDuration({ period: PERIOD, statistic: 'p99' }),
      threshold: thresholds.functionP99DurationMs,
      description: `${name}: p99 duration (ms)`,
      action,
    }),
  ];
}

export function pascal(name: string): string {
  return name
    .split('-')
    .map((part) => `${part[0]?.toUpperCase() ?? ''}${part.slice(1)}`)
    .join('');
}
