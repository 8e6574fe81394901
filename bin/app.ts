/** The CDK app: one Holdback stack, configured from the `holdback:*` context (cdk.json or `-c key=value`). */
import { App } from 'aws-cdk-lib';
import { HoldbackStack } from '../lib/holdback-stack';
import { holdbackPropsFromContext, regionFromContext } from '../lib/holdback-context';
import { checkGatewaySecret, readAccountConcurrencyLimit } from '../lib/deploy-preflight';

// The synth runs here (Node 20 allowed); the functions run Node 24 on Lambda: the pinned SDK's notice that its releases
// after January 2027 need Node 22 (README "Requirements") says nothing about the deployed stack.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(): Promise<void> {
  const app = new App();
  // A second stack in the same account: `-c holdback:stackName=Holdback-staging` (every name in it is scoped by it).
  // The reserved concurrency budget must fit the account's own Lambda limit (a new account's is 10): read it here.
  const account = await readAccountConcurrencyLimit(app.node, regionFromContext(app.node));
  if (account.note) process.stderr.write(`holdback: ${account.note}\n`);
  const { stackName, region, ...props } = holdbackPropsFromContext(app.node, account.limit);
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
