/** How handlers get their Dependencies: built once per cold start, lazily at the first invocation. */
import type { Dependencies } from '../application/ports';
import { composeDependencies, type AwsAdapters } from '../composition/compose';
import { readRuntimeConfig } from '../composition/runtime-config';

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
 * A function's AWS runtime: the environment read once (at the first invocation) and the adapters of its own
 * composition built (functions/composition/<function>.ts: only the SDK clients it uses, so its bundle carries no
 * other). The composition is imported statically, never with import(): esbuild wraps a module reached by a dynamic
 * import, and with it each SDK client's index, whose `export *` then keeps every command and schema of the service in
 * the bundle (about 36 KB gzipped a function; `npx tsx bench/run.ts bundles`). `sendsToGateway`: only the release
 * function sends, so the release queue's bounded consumer is the only sender and the deployment stays under the
 * gateway's limit.
 */
export function awsRuntime(functionName: string, composition: { adapters: AwsAdapters }, sendsToGateway = false): DependencySource {
  return () => composeDependencies(readRuntimeConfig(process.env), composition.adapters, functionName, { sendsToGateway });
}
