/** The gateway's client credentials from Secrets Manager, read with Powertools' cache. */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { credentialsOf, type GatewayCredentialSource, type SecretScrubber } from './gateway-credentials';

/** How long a fetched secret is used before Secrets Manager is asked again: a rotation reaches every container within it. */
export const SECRET_MAX_AGE_SECONDS = 300;

/**
 * The secret `secretId` (JSON `{"clientId", "clientSecret"}`), read with Powertools' cache. A secret that still holds
 * the placeholder the stack created is refused with what to put there, so releases wait instead of failing at the
 * gateway with a 401.
 */
export function secretsManagerCredentials(secretId: string, scrubber: SecretScrubber, maxAge = SECRET_MAX_AGE_SECONDS): GatewayCredentialSource {
  return async () => {
    const value = await getSecret<unknown>(secretId, { transform: 'json', maxAge });
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

