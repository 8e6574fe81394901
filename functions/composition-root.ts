/**
 * The AWS runtime's composition root: reads the environment once, failing fast (composition/runtime-config.ts), and
 * builds the adapters (composition/compose.ts). Each Lambda function builds only its own (composition/<function>.ts,
 * so that its bundle carries only the SDK clients it uses); `buildDependencies` builds every adapter, as the API and
 * the embedded default's API need.
 */
import type { Dependencies } from './application/ports';
import { composeDependencies, type AwsAdapters, type BuildOptions } from './composition/compose';
import { adapters as changes } from './composition/api';
import { adapters as reads } from './composition/api-reads';
import { adapters as audit } from './composition/api-audit';
import { adapters as jobs } from './composition/api-jobs';
import { exportBucket } from './composition/services/s3';
import { queues } from './composition/services/sqs';
import { gatewaySends } from './composition/services/gateway';
import { publisher } from './composition/services/eventbridge';
import type { RuntimeConfig } from './composition/runtime-config';

export { RUNTIME_ENV, RuntimeConfigError, readRuntimeConfig, type RuntimeConfig } from './composition/runtime-config';
export { containerRatePerMinute, systemClock, type ClientHook } from './composition/compose';

/**
 * Every adapter: the API's functions' together, and the publisher, the export bucket and the gateway's PUT (the
 * webhooks' and the release's, the jobs', the release's): the embedded default's API serves the webhook route too,
 * and its publisher serves every local container. The queues are the SDK client's release and job queues (the api's),
 * not the audit log's job steps alone (api-audit.ts enqueues no release).
 */
const everyAdapter: AwsAdapters = { ...changes, ...reads, ...jobs, ...audit, queues, publisher, exportBucket, gatewaySends };

/** Builds every adapter once, with one SDK client per service. */
export function buildDependencies(config: RuntimeConfig, overrides: BuildOptions = {}): Dependencies {
  return composeDependencies(config, everyAdapter, 'api', overrides);
}
