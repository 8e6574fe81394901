/**
 * The AWS runtime's composition root: reads the environment once, failing fast (composition/runtime-config.ts), and
 * builds the adapters (composition/compose.ts). Each Lambda function builds only its own (composition/<function>.ts,
 * so that its bundle carries only the SDK clients it uses); `buildDependencies` builds every adapter, as the API and
 * the embedded default's API need.
 */
import type { Dependencies } from './application/ports';
import { composeDependencies, type BuildOptions } from './composition/compose';
import { adapters as everyAdapter } from './composition/api';
import type { RuntimeConfig } from './composition/runtime-config';

export { RUNTIME_ENV, RuntimeConfigError, readRuntimeConfig, type RuntimeConfig } from './composition/runtime-config';
export { containerRatePerMinute, systemClock, type ClientHook } from './composition/compose';

/** Builds every adapter once, with one SDK client per service. */
export function buildDependencies(config: RuntimeConfig, overrides: BuildOptions = {}): Dependencies {
  return composeDependencies(config, everyAdapter, 'api', overrides);
}
