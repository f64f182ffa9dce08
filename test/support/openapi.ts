import type { Server } from 'node:http';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { type FunctionName, ROUTE_TABLE, ROUTES, type RouteDefinition } from '../../functions/routes';
import { buildOpenApiDocument } from '../../lib/openapi/document';
import { matchRoute } from '../../local/router';
import { observeExchanges } from './http-tap';

/*
 * Checks real responses against the OpenAPI document, with Ajv (an independent JSON Schema 2020-12
 * implementation, not the handlers' own validator): the status must be documented for the operation,
 * every required header present and valid, the body valid against the documented schema.
 */

type Json = Record<string, any>;

const COMPONENTS_ID = 'https://commerce-api.local/components';
const document = buildOpenApiDocument(ROUTE_TABLE) as Json;

/**
 * `#/components/schemas/X` refs, pointed at the registered copy of the components; discriminators
 * without OpenAPI's `mapping`, which Ajv does not take (it maps by each branch's `const` itself).
 */
function rebase<T>(value: T): T {
  const withoutMapping = (key: string, item: unknown) =>
    key === 'discriminator' ? { propertyName: (item as { propertyName: string }).propertyName } : item;
  return JSON.parse(
    JSON.stringify(value, withoutMapping).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`),
  ) as T;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A strict Ajv that knows the document's formats and extension keywords, with every component loaded. */
export function createDocumentAjv(): Ajv2020 {
  // Strict (unknown keywords and formats are errors), except `required` inside `anyOf` branches naming
  // properties declared beside them: "name or reserved_rate_limit" is written exactly that way.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true, discriminator: true });
  ajv.addKeyword('x-message');
  // Checked by lib/schema (byte limits of values that become DynamoDB keys); Ajv checks it the same way.
  ajv.addKeyword({
    keyword: 'x-max-bytes',
    type: 'string',
    schemaType: 'number',
    validate: (max: number, value: string) => Buffer.byteLength(value, 'utf8') <= max,
  });
  ajv.addFormat('uuid', UUID);
  ajv.addFormat(
    'date-time',
    (value: string) =>
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) &&
      !Number.isNaN(Date.parse(value)),
  );
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rebase(document.components.schemas) });
  return ajv;
}

const ajv = createDocumentAjv();
const compiled = new Map<string, ValidateFunction>();

function validatorFor(key: string, schema: Json): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(rebase(schema));
    compiled.set(key, validate);
  }
  return validate;
}

function resolveHeader(spec: Json): Json {
  const ref: string | undefined = spec.$ref;
  if (ref === undefined) return spec;
  const name = ref.slice('#/components/headers/'.length);
  return document.components.headers[name];
}

export interface ObservedResponse {
  method: string;
  /** The raw request path (a query string is ignored). */
  path: string;
  status: number;
  headers: Record<string, string | undefined>;
  /** The raw body text ('' when none). */
  body: string;
  /** The function that answered, when known: picks among routes sharing a path. */
  function?: FunctionName;
}

/** The route of a request: by method and path, or by the function that answered when the path is synthetic. */
function routeOf(response: ObservedResponse): RouteDefinition | undefined {
  const rawPath = response.path.split('?')[0] ?? '/';
  const matched = matchRoute(response.method, rawPath)?.route;
  if (matched && (response.function === undefined || matched.function === response.function)) return matched;
  if (response.function === undefined) return undefined;
  return ROUTES.find(
    (route) => route.function === response.function && route.method === response.method.toUpperCase(),
  );
}

/** The ways a response breaks the document (empty when it conforms). */
export function responseProblems(response: ObservedResponse): string[] {
  const route = routeOf(response);
  if (!route) return [`${response.method} ${response.path} is not a route of the document`];
  const operation: Json | undefined = document.paths[route.path]?.[route.method.toLowerCase()];
  if (!operation) return [`the document has no operation for ${route.method} ${route.path}`];
  const where = `${route.method} ${route.path} -> ${response.status}`;
  const documented: Json | undefined = operation.responses[String(response.status)];
  if (!documented) {
    return [`${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
  }
  const problems: string[] = [];
  const headers = new Map(
    Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  for (const [name, raw] of Object.entries<Json>(documented.headers ?? {})) {
    const spec = resolveHeader(raw);
    const value = headers.get(name.toLowerCase());
    if (value === undefined) {
      if (spec.required) problems.push(`${where}: required header ${name} is missing`);
      continue;
    }
    const validate = validatorFor(`header ${name} ${JSON.stringify(spec.schema)}`, spec.schema);
    if (!validate(value)) problems.push(`${where}: header ${name}: ${ajv.errorsText(validate.errors)}`);
  }
  const content: Json | undefined = documented.content?.['application/json'];
  if (!content) {
    if (response.body !== '') problems.push(`${where}: a body where the document says none`);
    return problems;
  }
  if (!/^application\/json\b/.test(headers.get('content-type') ?? '')) {
    problems.push(`${where}: Content-Type is ${headers.get('content-type')}, not application/json`);
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return [...problems, `${where}: the body is not JSON`];
  }
  const validate = validatorFor(`${where} body`, content.schema);
  if (!validate(body)) {
    problems.push(`${where}: body: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
  }
  return problems;
}

/** Throws (failing the test) when a response breaks the document. */
export function assertMatchesDocument(response: ObservedResponse): void {
  const problems = responseProblems(response);
  if (problems.length > 0) {
    throw new Error(`response does not match openapi.json:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Checks every response the local API answers from a function of the route table against the
 * document; the problems are collected (a throw inside the server would crash it) for an `afterAll`.
 */
export function checkServerResponses(server: Server, problems: string[], checked: { count: number }): void {
  observeExchanges(server, ({ req, status, headers, body }) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const text = body.toString('utf8');
    // API Gateway's own answers (no route: 404, over 10 MiB: 413) and the local /docs routes are not operations.
    if (!matchRoute(req.method ?? 'GET', path) || /^\{"message":/.test(text)) return;
    checked.count += 1;
    problems.push(...responseProblems({ method: req.method ?? 'GET', path, status, headers, body: text }));
  });
}
