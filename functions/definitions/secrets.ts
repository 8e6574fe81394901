/** What the CDK stack and the runtime both know of the gateway's credentials secret. */

/** The placeholder the stack writes into a secret it creates (see lib/gateway-credentials.ts). */
export const PLACEHOLDER_CLIENT_ID = 'replace-with-the-gateway-client-id';
