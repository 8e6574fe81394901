/** The CDK app: one Holdback stack, configured from the `holdback:*` context (cdk.json or `-c key=value`). */
import { App } from 'aws-cdk-lib';
import { HoldbackStack } from '../lib/holdback-stack';
import { holdbackPropsFromContext } from '../lib/holdback-context';
import { checkGatewaySecret } from '../lib/deploy-preflight';

async function main(): Promise<void> {
  const app = new App();
  // A second stack in the same account: `-c holdback:stackName=Holdback-staging` (every name in it is scoped by it).
  const { stackName, region, ...props } = holdbackPropsFromContext(app.node);
  // A named secret must exist in the region: refused here, at synth, rather than by the deploy or the first release.
  if (props.gatewaySecretName) {
    const outcome = await checkGatewaySecret(props.gatewaySecretName, region);
    if (!outcome.checked) process.stderr.write(`holdback: ${outcome.why}\n`);
  }
  new HoldbackStack(app, stackName, {
    description: 'Holdback: defers vendor settlements on the gateway by scheduling eligibility updates',
    // The account comes from the deploying credentials; the region defaults to ap-south-1, near the gateway.
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region },
    ...props,
  });
  app.synth();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
