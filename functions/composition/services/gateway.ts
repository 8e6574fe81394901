/** The gateway over HTTP: its order, vendor and recon reads, and the eligibility PUT (only the release function sends). */
import { HttpEligibilityGateway } from '../../adapters/gateway/http-eligibility-gateway';
import { HttpGatewayOrders } from '../../adapters/gateway/http-gateway-orders';
import type { AwsAdapters } from '../compose';

export const gatewayReads: NonNullable<AwsAdapters['gatewayReads']> = (c, client) => new HttpGatewayOrders({
  pgBaseUrl: c.config.gateway.pgBaseUrl,
  ...client,
  timeoutMs: c.config.gateway.timeoutMs,
});

export const gatewaySends: NonNullable<AwsAdapters['gatewaySends']> = (c, client, ratePerMinute) =>
  new HttpEligibilityGateway({ ...c.config.gateway, ratePerMinute, ...client, now: () => c.clock.now() });
