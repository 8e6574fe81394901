/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (lib/holdback-function.ts aliases the package
 * to this file). Every SDK client's default credential chain imports that package, which carries the SSO, STS, INI,
 * process, web-identity, container and instance-metadata providers and the nested clients they call: about a fifth of
 * a bundle. In Lambda the execution role's credentials are always the environment's (`AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), the first provider of that chain, so the bundle keeps that one only.
 * Outside Lambda (tests, the embedded default, the CLI) nothing is aliased and the full chain runs.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The chain's entry point as the clients call it: `defaultProvider(init)` returns the credentials' provider. */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
