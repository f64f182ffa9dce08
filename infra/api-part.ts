import { NestedStack } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey, type IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { FUNCTIONS, type FunctionName, type RouteDefinition } from '../functions/routes';
import type { TableRole } from '../lib/store/schema';
import { ApiFunction } from './api-function';
import { type AlarmThresholds, functionAlarms, pascal } from './monitoring';

export interface ApiPartProps {
  /** The part's name (its tag in the OpenAPI document): `Products`. */
  part: string;
  /** Its routes; every function they name is created here, once. */
  routes: readonly RouteDefinition[];
  api: IHttpApi;
  tables: Record<TableRole, ITable>;
  varyOnOrigin: boolean;
  thresholds: AlarmThresholds;
  alarmAction: SnsAction;
}

/**
 * One part of the API (the routes of one OpenAPI tag) as a nested stack: its functions, their routes and
 * integrations on the service's one HTTP API, and each function's alarms. Parts keep every template well
 * under CloudFormation's 500 resources a stack: a function costs about ten (function, role, policy, log
 * group, three alarms, integration, route, invoke permission), and the API has more than fifty.
 */
export class ApiPart extends NestedStack {
  readonly functions: Record<string, ApiFunction> = {};
  /** The functions' alarms, apart from the functions (`pcm-get-job`'s `Errors` would meet `pcm-get-job-errors`). */
  private readonly alarms: Construct;

  constructor(scope: Construct, id: string, props: ApiPartProps) {
    super(scope, id, { description: `Commerce API: ${props.part}` });
    this.alarms = new Construct(this, 'Alarms');
    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const route of props.routes) {
      let integration = integrations.get(route.function);
      if (!integration) {
        const fn = this.createFunction(route.function, props);
        integration = new HttpLambdaIntegration(`${pascal(route.function)}Integration`, fn);
        integrations.set(route.function, integration);
      }
      new HttpRoute(this, `${route.method}${pascal(route.path.replace(/[^A-Za-z0-9]+/g, '-'))}Route`, {
        httpApi: props.api,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration,
      });
    }
  }

  private createFunction(name: FunctionName, props: ApiPartProps): ApiFunction {
    const fn = new ApiFunction(this, pascal(name), {
      name,
      definition: FUNCTIONS[name],
      tables: props.tables,
      varyOnOrigin: props.varyOnOrigin,
    });
    functionAlarms(this.alarms, name, fn, props.thresholds, props.alarmAction);
    this.functions[name] = fn;
    return fn;
  }
}
