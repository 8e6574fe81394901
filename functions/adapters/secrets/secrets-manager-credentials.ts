/**
 * The gateway's client credentials from Secrets Manager, read with a cache: GetSecretValue over Secrets Manager's JSON
 * API (AWS JSON 1.1, `X-Amz-Target: secretsmanager.GetSecretValue`), as the SDK's client sends it, signed by the SDK's
 * own SigV4 signer (aws-http/signed-request.ts says why there is no SDK client here). It replaces Powertools
 * Parameters' getSecret, which brought the SDK's Secrets Manager client (13 KB and the JSON protocol's share of
 * @smithy/core) into every function that reads the gateway, for one call every five minutes; the cache is the same:
 * a value kept `maxAge` seconds a secret, an error never kept. As the SDK's client did, it goes to
 * `AWS_ENDPOINT_URL_SECRETS_MANAGER` if set, in `AWS_REGION`, as the SDK's default credential chain finds.
 */
import { SignedRequests } from '../aws-http/signed-request';
import { credentialsOf, type GatewayCredentialSource, type SecretScrubber } from './gateway-credentials';

/** How long a fetched secret is used before Secrets Manager is asked again: a rotation reaches every container within it. */
export const SECRET_MAX_AGE_SECONDS = 300;

/** Secrets read, by id, until they expire (one container's; shared by its sources as Powertools' cache was). */
const kept = new Map<string, { value: unknown; until: number }>();
let http: SignedRequests | null = null;

async function secretValue(secretId: string, maxAge: number): Promise<unknown> {
  const cached = kept.get(secretId);
  if (cached && cached.until > Date.now()) return cached.value;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  http ??= new SignedRequests('secretsmanager', { region }, `secretsmanager.${region}.amazonaws.com`, { endpointEnv: 'AWS_ENDPOINT_URL_SECRETS_MANAGER', sdkMessages: true });
  const answer = await http.json<{ SecretString?: string; SecretBinary?: string }>(
    'Secrets Manager GetSecretValue', http.base, '1.1', 'secretsmanager.GetSecretValue', { SecretId: secretId });
  const text = answer.SecretString ?? (answer.SecretBinary === undefined ? undefined : Buffer.from(answer.SecretBinary, 'base64').toString('utf8'));
  let value: unknown = null;
  try {
    value = text === undefined ? null : JSON.parse(text) as unknown;
  } catch {
    // Not JSON: refused below as not holding the credentials, without repeating any of its text.
  }
  if (maxAge > 0) kept.set(secretId, { value, until: Date.now() + maxAge * 1000 });
  return value;
}

/**
 * The secret `secretId` (JSON `{"clientId", "clientSecret"}`), read with the cache. A secret that still holds the
 * placeholder the stack created is refused with what to put there, so releases wait instead of failing at the
 * gateway with a 401.
 */
export function secretsManagerCredentials(secretId: string, scrubber: SecretScrubber, maxAge = SECRET_MAX_AGE_SECONDS): GatewayCredentialSource {
  return async () => {
    const value = await secretValue(secretId, maxAge);
    const credentials = credentialsOf(value);
    if (!credentials) {
      throw new Error(
        `gateway secret ${secretId} does not hold the gateway credentials yet; put {"clientId": "...", "clientSecret": "..."} ` +
        'in it (aws secretsmanager put-secret-value); releases wait until then',
      );
    }
    scrubber.remember(credentials.clientSecret, credentials.clientId);
    return credentials;
  };
}
