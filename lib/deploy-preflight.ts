/**
 * Checks at synth that need the account (bin/app.ts runs them before building the stack): a context value naming
 * something that does not exist is refused there, naming the value and what to pass, rather than failing the deploy
 * half-way or leaving releases waiting on a secret nobody can read.
 */
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CONTEXT_KEYS } from './holdback-context';

export type PreflightOutcome = { checked: true } | { checked: false; why: string };

/**
 * The gateway secret named by `holdback:gatewaySecretName` must exist in the deploy's region. Without credentials
 * (an offline synth) nothing can be asked: the outcome says so and the synth goes on.
 */
export async function checkGatewaySecret(secretName: string, region: string, client = new SecretsManagerClient({ region, maxAttempts: 2 })): Promise<PreflightOutcome> {
  try {
    await client.send(new DescribeSecretCommand({ SecretId: secretName }));
    return { checked: true };
  } catch (error) {
    const name = (error as { name?: string }).name ?? '';
    if (name === 'ResourceNotFoundException') {
      throw new Error(
        `context ${CONTEXT_KEYS.gatewaySecretName} is ${JSON.stringify(secretName)}, but no secret of that name exists in ${region}; ` +
        `create it first (aws secretsmanager create-secret --region ${region} --name ${secretName} ` +
        `--secret-string '{"clientId":"...","clientSecret":"..."}'), pass the name of an existing one, ` +
        'or leave the key unset so that the stack creates the secret',
      );
    }
    if (name === 'CredentialsProviderError' || name === 'AccessDeniedException' || name === 'UnrecognizedClientException') {
      return { checked: false, why: `could not check that secret ${JSON.stringify(secretName)} exists in ${region} (${name}); the deploy will fail if it does not` };
    }
    throw error;
  } finally {
    client.destroy();
  }
}
