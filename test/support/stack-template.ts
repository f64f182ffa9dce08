import { type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { flattenTemplate, type StackTemplate } from '../../local/template/nested';

/**
 * The template a stack deploys as, its nested stacks (the parts of the API) inlined as CloudFormation
 * deploys them: what the assertions of the stack's tests read (and the template server, from cdk.out).
 */
export function flatTemplate(stack: Stack): Template {
  const nested = new Map<string, Stack>();
  for (const child of stack.node.findAll()) {
    if (!NestedStack.isNestedStack(child) || child === stack) continue;
    const resource = child.nestedStackResource;
    if (!resource) throw new Error(`${child.node.path} has no nested stack resource`);
    nested.set(Stack.of(resource).resolve(resource.logicalId) as string, child);
  }
  const templateOf = (of: Stack) => Template.fromStack(of).toJSON() as StackTemplate;
  return Template.fromJSON(
    flattenTemplate(templateOf(stack), (logicalId) => {
      const child = nested.get(logicalId);
      if (!child) throw new Error(`no nested stack ${logicalId} under ${stack.node.path}`);
      return templateOf(child);
    }),
  );
}

/** A CloudFormation element's logical id in the stack (nested or not) that holds it: its id in `flatTemplate`. */
export function logicalIdOf(element: unknown): string {
  const cfn = element as CfnElement;
  return Stack.of(cfn).getLogicalId(cfn);
}
