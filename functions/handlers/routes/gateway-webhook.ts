/** The gateway's signed webhook route: served by the API locally and, on AWS, by the webhooks function's URL alone. */
import { GATEWAY_WEBHOOK_PATH } from '../../definitions/routing';
import { handleGatewayWebhook } from '../../application/releases/handle-gateway-webhook';
import { json, rawBodyOf, type ApiEvent } from '../http';
import type { ApiRoute } from './route';

/** POST /webhooks/gateway: the use case verifies the HMAC signature on the raw body before anything else. */
export const GATEWAY_WEBHOOK_ROUTE: ApiRoute = {
  method: 'POST',
  path: GATEWAY_WEBHOOK_PATH,
  run: async (e, deps) => {
    const result = await handleGatewayWebhook(await deps(), { headers: lowerCased(e.headers), rawBody: rawBodyOf(e) });
    return json(200, result);
  },
};

function lowerCased(headers: ApiEvent['headers']): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
