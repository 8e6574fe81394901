/** The CDK app: one Holdback stack, configured from the `holdback:*` context (cdk.json or `-c key=value`). */
import { App } from 'aws-cdk-lib';
import { HoldbackStack } from '../lib/holdback-stack';
import { holdbackPropsFromContext } from '../lib/holdback-context';

const app = new App();
// A second stack in the same account: `-c holdback:stackName=Holdback-staging` (every name in it is scoped by it).
const { stackName, region, ...props } = holdbackPropsFromContext(app.node);
new HoldbackStack(app, stackName, {
  description: 'Holdback: defers vendor settlements on the gateway by scheduling eligibility updates',
  // The account comes from the deploying credentials; the region defaults to ap-south-1, near the gateway.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region },
  ...props,
});
