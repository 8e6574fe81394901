/** Reads the stack's settings from CDK context (`holdback:*` keys), naming the key and what to send when one is wrong. */
import type { Node } from 'constructs';
import { DEFAULT_EVENT_BUS, DEFAULT_EVENT_SOURCE } from '../functions/routing';
import { DEFAULT_RELEASE_CONCURRENCY, type HoldbackStackProps } from './holdback-stack';

/** The context keys an operator may set in cdk.json or with `npx cdk deploy -c key=value`. */
export const CONTEXT_KEYS = {
  eventBusName: 'holdback:eventBusName',
  orderEventSource: 'holdback:orderEventSource',
  gatewayBaseUrl: 'holdback:gatewayBaseUrl',
  gatewaySecretName: 'holdback:gatewaySecretName',
  gatewaySecretVersionId: 'holdback:gatewaySecretVersionId',
  releaseConcurrency: 'holdback:releaseConcurrency',
} as const;

type Settings = Pick<HoldbackStackProps,
  'eventBusName' | 'orderEventSource' | 'gatewayBaseUrl' | 'gatewaySecretName' | 'gatewaySecretVersionId' | 'releaseConcurrency'>;

export function holdbackPropsFromContext(node: Node): Settings {
  const text = (key: string): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      throw new Error(`context ${key} is ${JSON.stringify(value)}; send a string, e.g. -c ${key}=value`);
    }
    // Blank counts as unset, so that `-c key=` or a space falls back to the default rather than an empty name.
    return value.trim() || undefined;
  };
  return {
    eventBusName: text(CONTEXT_KEYS.eventBusName) ?? DEFAULT_EVENT_BUS,
    orderEventSource: text(CONTEXT_KEYS.orderEventSource) ?? DEFAULT_EVENT_SOURCE,
    gatewayBaseUrl: text(CONTEXT_KEYS.gatewayBaseUrl),
    gatewaySecretName: text(CONTEXT_KEYS.gatewaySecretName),
    gatewaySecretVersionId: text(CONTEXT_KEYS.gatewaySecretVersionId),
    releaseConcurrency: releaseConcurrencyOf(node.tryGetContext(CONTEXT_KEYS.releaseConcurrency)),
  };
}

/**
 * `none` leaves the release function unreserved: an account whose concurrency quota is still the new-account 10
 * cannot reserve any (Lambda keeps 100 unreserved where the quota is 1,000), so the deploy would fail.
 */
function releaseConcurrencyOf(value: unknown): number | null {
  const text = typeof value === 'string' ? value.trim() : value;
  if (text === undefined || text === null || text === '') return DEFAULT_RELEASE_CONCURRENCY;
  if (text === 'none') return null;
  // Only a number or its text: Number(true) would be 1.
  const count = typeof text === 'number' ? text : typeof text === 'string' ? Number(text) : Number.NaN;
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(
      `context ${CONTEXT_KEYS.releaseConcurrency} is ${JSON.stringify(value)}; send a whole number of at least 1 ` +
      `(default ${DEFAULT_RELEASE_CONCURRENCY}) or "none" to leave the release function unreserved`,
    );
  }
  return count;
}
