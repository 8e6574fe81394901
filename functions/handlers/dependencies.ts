/** How handlers get their Dependencies: built once per cold start, lazily at the first invocation. */
import type { Dependencies } from '../application/ports';
import type { AwsAdapters } from '../composition/compose';

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
 * A function's AWS runtime: the environment read once and the adapters of its own composition built
 * (functions/composition/<function>.ts: only the SDK clients it uses, so its bundle carries no other). Imported lazily
 * so that a test of a handler factory never loads the AWS SDK. `sendsToGateway`: only the release function sends, so
 * the release queue's bounded consumer is the only sender and the deployment stays under the gateway's limit.
 */
export function awsRuntime(functionName: string, composition: () => Promise<{ adapters: AwsAdapters }>, sendsToGateway = false): DependencySource {
  return async () => {
    const [{ composeDependencies }, { readRuntimeConfig }, { adapters }] = await Promise.all([
      import('../composition/compose'), import('../composition/runtime-config'), composition(),
    ]);
    return composeDependencies(readRuntimeConfig(process.env), adapters, functionName, { sendsToGateway });
  };
}
