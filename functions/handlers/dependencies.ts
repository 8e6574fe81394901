/** How handlers get their Dependencies: built once per cold start, lazily at the first invocation. */
import type { Dependencies } from '../application/ports';

export type DependencySource = () => Promise<Dependencies> | Dependencies;

/**
 * Memoizes `source`; a failed build (a missing environment variable) is not cached, so the error shows on every
 * invocation instead of a half-built runtime being reused.
 */
export function lazyDependencies(source: DependencySource): () => Promise<Dependencies> {
  let built: Promise<Dependencies> | null = null;
  return () => {
    built ??= Promise.resolve().then(source).catch((error: unknown) => {
      built = null;
      throw error;
    });
    return built;
  };
}

/**
 * The AWS runtime: the environment read once and the adapters built. Imported lazily so that a test of a handler
 * factory never loads the AWS SDK.
 */
function awsRuntime(sendsToGateway: boolean): DependencySource {
  return async () => {
    const { buildDependencies, readRuntimeConfig } = await import('../composition-root');
    return buildDependencies(readRuntimeConfig(process.env), { sendsToGateway });
  };
}

/** The release function's runtime: the one sender to the gateway. */
export const runtimeDependencies: DependencySource = awsRuntime(true);

/**
 * The AWS runtime of every function but the release function: its gateway refuses to send, so the release queue's
 * bounded consumer is the only sender and the deployment stays under the gateway's limit.
 */
export const nonSendingRuntimeDependencies: DependencySource = awsRuntime(false);
