import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { ROUTES, type RouteDefinition } from '../functions/routes';

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  params: string[];
}

const compiled: CompiledRoute[] = ROUTES.map((route) => {
  const params: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
      if (param?.[1]) {
        params.push(param[1]);
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), params };
});

export interface RouteMatch {
  route: RouteDefinition;
  routeKey: string;
  pathParameters: Record<string, string>;
}

/** Matches a method and raw path against the route table, like API Gateway (path parameters decoded). */
export function matchRoute(method: string, rawPath: string): RouteMatch | undefined {
  for (const { route, pattern, params } of compiled) {
    if (route.method !== method.toUpperCase()) continue;
    const match = pattern.exec(rawPath);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    params.forEach((name, index) => {
      const raw = match[index + 1] ?? '';
      try {
        pathParameters[name] = decodeURIComponent(raw);
      } catch {
        pathParameters[name] = raw;
      }
    });
    return { route, routeKey: `${route.method} ${route.path}`, pathParameters };
  }
  return undefined;
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
