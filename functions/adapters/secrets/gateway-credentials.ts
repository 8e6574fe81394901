/** The gateway's client credentials at run time: from Secrets Manager (cached, so a rotation needs no deploy) or fixed. */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { PLACEHOLDER_CLIENT_ID } from '../../definitions/secrets';

export { PLACEHOLDER_CLIENT_ID } from '../../definitions/secrets';

export interface GatewayCredentials {
  clientId: string;
  clientSecret: string;
}

/** Where a client gets the credentials for each call; a source caches on its own. */
export type GatewayCredentialSource = () => Promise<GatewayCredentials>;

/**
 * Every credential value a process has seen, so that logs and errors can scrub them, the old ones after a rotation
 * included. Longest first, so that a secret containing another is replaced whole.
 */
export class SecretScrubber {
  #secrets: string[] = [];

  remember(...values: string[]): void {
    const fresh = values.filter((v) => v.length > 0 && !this.#secrets.includes(v));
    if (fresh.length > 0) this.#secrets = [...this.#secrets, ...fresh].sort((a, b) => b.length - a.length);
  }

  scrub(text: string, replacement = '[redacted]'): string {
    let clean = text;
    for (const secret of this.#secrets) clean = clean.split(secret).join(replacement);
    return clean;
  }
}

/** Credentials known at start (the embedded default's sandbox, tests). */
export function fixedCredentials(credentials: GatewayCredentials, scrubber?: SecretScrubber): GatewayCredentialSource {
  scrubber?.remember(credentials.clientSecret, credentials.clientId);
  const answer = Promise.resolve({ ...credentials });
  return () => answer;
}

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

function credentialsOf(value: unknown): GatewayCredentials | null {
  if (!value || typeof value !== 'object') return null;
  const { clientId, clientSecret } = value as Record<string, unknown>;
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string') return null;
  if (!clientId.trim() || !clientSecret.trim() || clientId === PLACEHOLDER_CLIENT_ID) return null;
  return { clientId, clientSecret };
}
