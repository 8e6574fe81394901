/**
 * Checks at synth that need the account (bin/app.ts runs them before building the stack): a context value naming
 * something that does not exist is refused there, naming the value and what to pass, rather than failing the deploy
 * half-way or leaving releases waiting on a secret nobody can read.
 */
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Node } from 'constructs';
import { CONTEXT_KEYS, type AccountConcurrencyLimit } from './holdback-context';

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

/** The errors that mean "these credentials cannot ask" (or there are none: an offline synth), not "the answer is no". */
const CANNOT_ASK = new Set(['CredentialsProviderError', 'AccessDeniedException', 'AccessDenied', 'UnrecognizedClientException', 'ExpiredTokenException', 'InvalidSignatureException', 'TimeoutError']);
const OFFLINE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENETUNREACH']);

export type AccountLimitOutcome = { limit: AccountConcurrencyLimit; note?: string } | { limit?: undefined; note?: string };

/**
 * The account's Lambda concurrency limit, read with GetAccountSettings, for the budget check of
 * holdbackPropsFromContext: a new account's limit of 10 refuses the default budget at synth, naming the limit and what
 * to pass, instead of failing the deploy half-way. Not asked when the budget is `none` (nothing is reserved). Without
 * credentials or permission (an offline synth) the outcome says so and `holdback:accountConcurrencyLimit` (or 1,000)
 * is used instead; a flag that differs from the account's answer is noted and not used.
 */
export async function readAccountConcurrencyLimit(node: Node, region: string, client = new LambdaClient({ region, maxAttempts: 2 })): Promise<AccountLimitOutcome> {
  try {
    if (node.tryGetContext(CONTEXT_KEYS.concurrencyBudget) === 'none') return {};
    const flag: unknown = node.tryGetContext(CONTEXT_KEYS.accountConcurrencyLimit);
    let value: number | undefined;
    try {
      value = (await client.send(new GetAccountSettingsCommand({}))).AccountLimit?.ConcurrentExecutions;
    } catch (error) {
      const { name = '', code = '' } = error as { name?: string; code?: string };
      if (!CANNOT_ASK.has(name) && !OFFLINE_CODES.has(code)) throw error;
      return {
        note: `could not read the account's Lambda concurrency limit in ${region} (${name || code}); the budget is checked against ` +
          (flag === undefined ? `1000, the standard quota (pass -c ${CONTEXT_KEYS.accountConcurrencyLimit}=<limit> for another)` : `${CONTEXT_KEYS.accountConcurrencyLimit}=${String(flag)}`),
      };
    }
    if (value === undefined || !Number.isInteger(value)) return { note: `Lambda GetAccountSettings in ${region} named no concurrency limit; the budget is checked against ${CONTEXT_KEYS.accountConcurrencyLimit} or 1000` };
    const limit = { value, from: `read from the account: Lambda GetAccountSettings in ${region}` };
    if (flag !== undefined && String(flag).trim() !== String(value)) {
      return { limit, note: `${CONTEXT_KEYS.accountConcurrencyLimit}=${String(flag)} is not used: the account's Lambda concurrency limit in ${region} is ${value}` };
    }
    return { limit };
  } finally {
    client.destroy();
  }
}
