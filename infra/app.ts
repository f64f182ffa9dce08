import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CommerceStack } from './commerce-stack';
import { stackPropsFromContext } from './context';
import { applyNagSuppressions } from './nag-suppressions';

const app = new App();
const stack = new CommerceStack(app, process.env.STACK_NAME || 'CommerceApi', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  ...stackPropsFromContext((key) => app.node.tryGetContext(key), Object.keys(app.node.getAllContext())),
});
applyNagSuppressions(stack);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
