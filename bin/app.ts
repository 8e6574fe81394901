/** The CDK app: one Holdback stack, configured from the `holdback:*` context (cdk.json or `-c key=value`). */
import { App } from 'aws-cdk-lib';
import { HoldbackStack } from '../lib/holdback-stack';
import { holdbackPropsFromContext } from '../lib/holdback-context';

const app = new App();
new HoldbackStack(app, 'Holdback', {
  description: 'Holdback: defers vendor settlements on the gateway by scheduling eligibility updates',
  ...holdbackPropsFromContext(app.node),
});
