import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { GatewayCors } from '../gateway-cors';
import { flattenTemplate, type StackTemplate } from './nested';

/*
 * Reads what `cdk deploy` would deploy from a synthesized cloud assembly (cdk.out), nested stacks
 * included (local/template/nested.ts): the HTTP API's routes, the function each route integrates, each
 * function's bundled code, handler, environment and timeout, and the state machines' definitions. Only the template and the assembly's manifests are
 * read: nothing of functions/ or lib/.
 */

type Json = Record<string, unknown>;

interface Resource {
  Type: string;
  Properties?: Json;
  Metadata?: Json;
}

export interface TemplateFunction {
  /** `create-access-token`: the construct id (`CreateAccessToken`) in kebab case. */
  name: string;
  logicalId: string;
  /** Absolute path of the function's bundled asset directory in the assembly. */
  codeDir: string;
  /** The template's `Handler`, e.g. `index.handler`. */
  handler: string;
  /** `Environment.Variables`, with table references resolved to the local table names. */
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
  /** The logical id of the state machine its environment names (by its ARN): it starts executions of it. */
  startsWorkflow?: string;
}

/** A Step Functions state machine of the template. */
export interface TemplateStateMachine {
  logicalId: string;
  /**
   * Its definition (Amazon States Language) with the template's tokens resolved: a function's ARN is
   * `localFunctionArn` of its name, the documents bucket the local one.
   */
  definition: Json;
}

export interface TemplateRoute {
  method: string;
  path: string;
  /** The `name` of the function its integration invokes. */
  function: string;
}

export interface TemplateApi {
  stackName: string;
  templateFile: string;
  functions: Map<string, TemplateFunction>;
  routes: TemplateRoute[];
  /** The state machines, by logical id. */
  stateMachines: Map<string, TemplateStateMachine>;
  /** The HTTP API's `CorsConfiguration` (what `corsPreflight` synthesized), if it has one. */
  cors?: GatewayCors;
  /** Every resource of the stack, its nested stacks' inlined (local/template/nested.ts), by logical id. */
  resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** The template of the assembly's stack: the only one, or the one named `stackName`. */
function findStack(outdir: string, stackName: string | undefined): { name: string; file: string } {
  const manifestFile = join(outdir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new TemplateError(`${manifestFile} not found: run cdk synth`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const stacks = Object.entries(manifest.artifacts ?? {})
    .filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack')
    .map(([name, artifact]) => ({ name, file: join(outdir, artifact.properties?.templateFile ?? '') }));
  const chosen = stackName ? stacks.filter((stack) => stack.name === stackName) : stacks;
  if (chosen.length !== 1 || !chosen[0]) {
    throw new TemplateError(
      `expected ${stackName ? `a stack named ${stackName}` : 'one stack'} in ${outdir}, found: ${
        stacks.map((stack) => stack.name).join(', ') || 'none'
      }`,
    );
  }
  return chosen[0];
}

/** `CommerceApi/CreateAccessToken/Resource` -> `CreateAccessToken`. */
function constructId(resource: Resource, logicalId: string): string {
  const path = resource.Metadata?.['aws:cdk:path'];
  const parts = typeof path === 'string' ? path.split('/') : [];
  const id = parts.length >= 3 ? parts[parts.length - 2] : undefined;
  if (!id) throw new TemplateError(`${logicalId} has no aws:cdk:path metadata`);
  return id;
}

/** The ARN a definition's Task names a function of the template by (the account and region are placeholders). */
export function localFunctionArn(name: string): string {
  return `arn:aws:lambda:local:123456789012:function:${name}`;
}

/** The pseudo parameters an ARN in a definition may use (`arn:${AWS::Partition}:states:::s3:getObject`). */
const PSEUDO_PARAMETERS: Record<string, string> = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'local',
  'AWS::AccountId': '123456789012',
  'AWS::URLSuffix': 'amazonaws.com',
};

function kebab(id: string): string {
  return id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function refOf(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 1) {
    const ref = (value as { Ref?: unknown }).Ref;
    if (typeof ref === 'string') return ref;
  }
  return undefined;
}

/**
 * Parses the assembly. `tables` gives the local name of each table by its construct id (`KeysTable`):
 * a function's environment variable that references a table gets that name. `documentsBucket` is the
 * local object store's bucket, which a reference to the template's bucket resolves to (by default none:
 * a function then reads the bucket the harness's runtime environment gives it, else its default).
 */
export function readTemplateApi(
  outdir: string,
  tables: Record<string, string>,
  stackName?: string,
  documentsBucket = '',
): TemplateApi {
  const root = resolve(outdir);
  const stack = findStack(root, stackName);
  const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as StackTemplate;
  // The parts of the API are nested stacks: read as the one template they deploy as.
  const template = flattenTemplate(readJson(stack.file), (logicalId, resource) => {
    const assetPath = (resource.Metadata as Json | undefined)?.['aws:asset:path'];
    if (typeof assetPath !== 'string')
      throw new TemplateError(`nested stack ${logicalId} has no template in the assembly (aws:asset:path)`);
    return readJson(join(root, assetPath));
  }) as { Resources?: Record<string, Resource> };
  const resources = template.Resources ?? {};
  const byType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

  const resolveValue = (value: unknown, where: string): string => {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    const ref = refOf(value);
    const target = ref === undefined ? undefined : resources[ref];
    if (ref && target?.Type === 'AWS::DynamoDB::Table') {
      const id = constructId(target, ref);
      const local = tables[id];
      if (local === undefined)
        throw new TemplateError(`${where} references table ${id}, which has no local table`);
      return local;
    }
    // The documents bucket is the local object store's (S3_ENDPOINT, DOCUMENTS_BUCKET). A state machine's ARN
    // is left empty: a function without one asks the harness to run the workflow (`startsWorkflow`).
    if (ref && target?.Type === 'AWS::S3::Bucket') return documentsBucket;
    if (ref && target?.Type === 'AWS::StepFunctions::StateMachine') return '';
    // A queue's URL is left empty too: the function hands its messages to the harness (local/template/jobs.ts).
    if (ref && target?.Type === 'AWS::SQS::Queue') return '';
    throw new TemplateError(`${where} has a value the local API cannot resolve: ${JSON.stringify(value)}`);
  };

  const functions = new Map<string, TemplateFunction>();
  const byLogicalId = new Map<string, TemplateFunction>();
  for (const [logicalId, resource] of byType('AWS::Lambda::Function')) {
    const props = resource.Properties ?? {};
    const name = kebab(constructId(resource, logicalId));
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string')
      throw new TemplateError(`${logicalId} has no bundled asset (aws:asset:path)`);
    if (typeof props.Handler !== 'string') throw new TemplateError(`${logicalId} has no Handler`);
    const variables = ((props.Environment as Json | undefined)?.Variables ?? {}) as Json;
    const environment: Record<string, string> = {};
    let startsWorkflow: string | undefined;
    for (const [key, value] of Object.entries(variables)) {
      environment[key] = resolveValue(value, `${name}: environment variable ${key}`);
      const ref = refOf(value);
      if (ref && resources[ref]?.Type === 'AWS::StepFunctions::StateMachine') startsWorkflow = ref;
    }
    const fn: TemplateFunction = {
      name,
      logicalId,
      codeDir: join(root, assetPath),
      handler: props.Handler,
      environment,
      timeoutSeconds: typeof props.Timeout === 'number' ? props.Timeout : 3,
      memoryMb: typeof props.MemorySize === 'number' ? props.MemorySize : 128,
      ...(startsWorkflow === undefined ? {} : { startsWorkflow }),
    };
    functions.set(name, fn);
    byLogicalId.set(logicalId, fn);
  }

  // A definition's tokens: functions' ARNs, pseudo parameters, and what an environment may reference.
  const resolveToken = (value: unknown, where: string): string => {
    const ref = refOf(value);
    if (ref !== undefined && PSEUDO_PARAMETERS[ref] !== undefined) return PSEUDO_PARAMETERS[ref];
    const [id, attribute] = ((value as { 'Fn::GetAtt'?: unknown[] } | null)?.['Fn::GetAtt'] ??
      []) as unknown[];
    const fn = typeof id === 'string' && attribute === 'Arn' ? byLogicalId.get(id) : undefined;
    if (fn) return localFunctionArn(fn.name);
    return resolveValue(value, where);
  };
  const stateMachines = new Map<string, TemplateStateMachine>();
  for (const [logicalId, resource] of byType('AWS::StepFunctions::StateMachine')) {
    const props = resource.Properties ?? {};
    if (props.DefinitionSubstitutions !== undefined || props.DefinitionS3Location !== undefined)
      throw new TemplateError(`${logicalId}: only a DefinitionString is read locally`);
    const where = `${logicalId}: DefinitionString`;
    const joined = (props.DefinitionString as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
    const text = joined
      ? joined[1].map((part) => resolveToken(part, where)).join(joined[0])
      : resolveValue(props.DefinitionString, where);
    stateMachines.set(logicalId, { logicalId, definition: JSON.parse(text) as Json });
  }

  const routes: TemplateRoute[] = [];
  for (const [logicalId, resource] of byType('AWS::ApiGatewayV2::Route')) {
    const props = resource.Properties ?? {};
    const routeKey = String(props.RouteKey ?? '');
    const [method, path, ...rest] = routeKey.split(' ');
    if (!method || !path?.startsWith('/') || rest.length > 0)
      throw new TemplateError(`${logicalId}: route key "${routeKey}" is not "METHOD /path"`);
    // Target: {"Fn::Join": ["", ["integrations/", {"Ref": "<integration>"}]]}
    const join_ = (props.Target as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
    const integrationId = join_?.[1]?.[0] === 'integrations/' ? refOf(join_[1][1]) : undefined;
    const integration = integrationId === undefined ? undefined : resources[integrationId];
    if (integration?.Type !== 'AWS::ApiGatewayV2::Integration')
      throw new TemplateError(`${logicalId} (${routeKey}) has no integration`);
    const integrationProps = integration.Properties ?? {};
    if (integrationProps.IntegrationType !== 'AWS_PROXY' || integrationProps.PayloadFormatVersion !== '2.0')
      throw new TemplateError(`${integrationId} is not a Lambda proxy integration with payload 2.0`);
    const uri = (integrationProps.IntegrationUri as { 'Fn::GetAtt'?: [string, string] } | undefined)?.[
      'Fn::GetAtt'
    ];
    const fn = uri?.[1] === 'Arn' ? byLogicalId.get(uri[0]) : undefined;
    if (!fn) throw new TemplateError(`${integrationId} does not invoke a function of the template`);
    routes.push({ method, path, function: fn.name });
  }
  if (routes.length === 0) throw new TemplateError(`${stack.file} has no HTTP API routes`);
  const apis = byType('AWS::ApiGatewayV2::Api');
  if (apis.length > 1) throw new TemplateError(`${stack.file} has ${apis.length} HTTP APIs, expected one`);
  const cors = corsOf(apis[0]?.[1].Properties?.CorsConfiguration as Json | undefined);
  return {
    stackName: stack.name,
    templateFile: stack.file,
    functions,
    routes,
    stateMachines,
    ...(cors ? { cors } : {}),
    resources,
  };
}

/** An `AWS::ApiGatewayV2::Api` CorsConfiguration as the gateway applies it. */
function corsOf(config: Json | undefined): GatewayCors | undefined {
  if (config === undefined) return undefined;
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  return {
    allowOrigins: list(config.AllowOrigins),
    allowMethods: list(config.AllowMethods),
    allowHeaders: list(config.AllowHeaders),
    exposeHeaders: list(config.ExposeHeaders),
    maxAgeSeconds: typeof config.MaxAge === 'number' ? config.MaxAge : 0,
  };
}

/** The module file and export a `Handler` like `index.handler` names in a code directory. */
export function handlerEntry(fn: TemplateFunction): { file: string; exportName: string } {
  const dot = fn.handler.lastIndexOf('.');
  const modulePath = fn.handler.slice(0, dot);
  const exportName = fn.handler.slice(dot + 1);
  for (const extension of ['.mjs', '.js', '.cjs']) {
    const file = join(fn.codeDir, `${modulePath}${extension}`);
    if (dot > 0 && existsSync(file)) return { file, exportName };
  }
  throw new TemplateError(`${fn.name}: handler ${fn.handler} not found in ${fn.codeDir}`);
}
