import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CorsOriginsError } from '../lib/http/cors';
import { CommerceStack } from './commerce-stack';
import { stackPropsFromContext } from './context';
import { ContextError } from './context-error';
import { applyNagSuppressions } from './nag-suppressions';

const app = new App();
let stack: CommerceStack;
try {
  stack = new CommerceStack(app, process.env.STACK_NAME || 'CommerceApi', {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    ...stackPropsFromContext((key) => app.node.tryGetContext(key), Object.keys(app.node.getAllContext())),
  });
} catch (error) {
  // A wrong setting is the caller's to fix: its message says which and how; a stack trace would bury it.
  if (!(error instanceof ContextError || error instanceof CorsOriginsError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
applyNagSuppressions(stack);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
