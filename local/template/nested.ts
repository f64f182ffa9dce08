/*
 * A stack with nested stacks, read as the one template it deploys as: each `AWS::CloudFormation::Stack`
 * resource is replaced by the resources of its template, in which a reference to one of its parameters
 * becomes the value the parent passes for it (a `Ref` or `Fn::GetAtt` of the parent's resources), and a
 * parent's `Fn::GetAtt` of a nested stack's output becomes that output's value. Logical ids must not repeat
 * across the stacks (CDK makes them from construct paths, unique in the service): a repeated one throws,
 * except CDK's usage record (`AWS::CDK::Metadata`), of which the root's is kept.
 */

type Json = Record<string, unknown>;

export interface StackTemplate {
  Parameters?: Record<string, unknown>;
  Resources?: Record<string, Json>;
  Outputs?: Record<string, { Value?: unknown }>;
  [key: string]: unknown;
}

export class NestedTemplateError extends Error {
  override name = 'NestedTemplateError';
}

const NESTED_STACK = 'AWS::CloudFormation::Stack';
/** CDK's usage record, one in every template: the root's is kept. */
const CDK_METADATA = 'AWS::CDK::Metadata';

/** `value` with every object node that `replace` answers for replaced by its answer, deeply. */
function substitute(value: unknown, replace: (node: Json) => unknown | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => substitute(item, replace));
  if (typeof value !== 'object' || value === null) return value;
  const replaced = replace(value as Json);
  if (replaced !== undefined) return replaced;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, replace)]));
}

/**
 * The template of `root` with its nested stacks (and theirs) inlined. `nestedOf` gives the template of a
 * nested stack resource (from its `aws:asset:path` in a cloud assembly, or from the CDK object in a test).
 */
export function flattenTemplate(
  root: StackTemplate,
  nestedOf: (logicalId: string, resource: Json) => StackTemplate,
): StackTemplate {
  const resources: Record<string, Json> = {};
  const outputs = new Map<string, unknown>();
  const rootResources = root.Resources ?? {};
  for (const [logicalId, resource] of Object.entries(rootResources)) {
    if (resource.Type !== NESTED_STACK) continue;
    const passed = ((resource.Properties as Json | undefined)?.Parameters ?? {}) as Json;
    const nested = flattenTemplate(nestedOf(logicalId, resource), nestedOf);
    const parameterRef = (node: Json) => {
      const keys = Object.keys(node);
      const ref = keys.length === 1 ? node.Ref : undefined;
      if (typeof ref !== 'string' || !(ref in (nested.Parameters ?? {}))) return undefined;
      if (!(ref in passed))
        throw new NestedTemplateError(`${logicalId} passes no value for its parameter ${ref}`);
      return passed[ref];
    };
    for (const [id, inner] of Object.entries(nested.Resources ?? {})) {
      if (inner.Type === CDK_METADATA) continue;
      if (id in rootResources || id in resources)
        throw new NestedTemplateError(`logical id ${id} is in more than one stack`);
      resources[id] = substitute(inner, parameterRef) as Json;
    }
    for (const [name, output] of Object.entries(nested.Outputs ?? {})) {
      outputs.set(`${logicalId}/${name}`, substitute(output.Value, parameterRef));
    }
  }
  const outputRef = (node: Json) => {
    const getAtt = node['Fn::GetAtt'];
    if (!Array.isArray(getAtt) || Object.keys(node).length !== 1) return undefined;
    const [id, attribute] = getAtt as [unknown, unknown];
    if (typeof id !== 'string' || rootResources[id]?.Type !== NESTED_STACK) return undefined;
    const name = typeof attribute === 'string' && attribute.startsWith('Outputs.') ? attribute.slice(8) : '';
    if (!outputs.has(`${id}/${name}`))
      throw new NestedTemplateError(`${id} has no output ${String(attribute)}`);
    return outputs.get(`${id}/${name}`);
  };
  for (const [logicalId, resource] of Object.entries(rootResources)) {
    if (resource.Type !== NESTED_STACK) resources[logicalId] = substitute(resource, outputRef) as Json;
  }
  const flat: StackTemplate = { ...root, Resources: resources };
  if (root.Outputs) flat.Outputs = substitute(root.Outputs, outputRef) as StackTemplate['Outputs'];
  return flat;
}
