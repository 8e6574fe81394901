/**
 * The gateway's client credentials at run time: fixed (locally), or from Secrets Manager (cached, so a rotation needs no
 * deploy; secrets-manager-credentials.ts, apart so that a function that never calls the gateway does not load its client).
 */
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

/** The credentials a secret's value holds, or null (not JSON of both, or still the stack's placeholder). */
export function credentialsOf(value: unknown): GatewayCredentials | null {
  if (!value || typeof value !== 'object') return null;
  const { clientId, clientSecret } = value as Record<string, unknown>;
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string') return null;
  if (!clientId.trim() || !clientSecret.trim() || clientId === PLACEHOLDER_CLIENT_ID) return null;
  return { clientId, clientSecret };
}
