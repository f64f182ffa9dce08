import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { ROUTES, type RouteDefinition } from '../functions/routes';
import { compileRoutes } from './gateway';

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

/** The route table as the gateway's routes. */
export const GATEWAY_ROUTES = ROUTES.map((route) => ({
  method: route.method,
  path: route.path,
  target: route,
}));

const match = compileRoutes(GATEWAY_ROUTES);

export interface RouteMatch {
  route: RouteDefinition;
  routeKey: string;
  pathParameters: Record<string, string>;
}

/** Matches a method and raw path against the route table, like API Gateway (path parameters decoded). */
export function matchRoute(method: string, rawPath: string): RouteMatch | undefined {
  const found = match(method, rawPath);
  return found && { route: found.target, routeKey: found.routeKey, pathParameters: found.pathParameters };
}

const loaded = new Map<string, Promise<LambdaHandler>>();

/** The handler of a function, imported once per process (a warm container, as in Lambda). */
export function loadHandler(functionName: string): Promise<LambdaHandler> {
  if (!/^[a-z0-9-]+$/.test(functionName))
    return Promise.reject(new Error(`invalid function name ${functionName}`));
  let handler = loaded.get(functionName);
  if (!handler) {
    handler = import(`../functions/${functionName}/handler.ts`).then(
      (module) => module.handler as LambdaHandler,
    );
    loaded.set(functionName, handler);
  }
  return handler;
}
